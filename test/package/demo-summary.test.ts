/** The demo's judge of a step's items: a failed item is a failed step, whatever fields it carries. */
import { itemProblem } from '../../scripts/demo/summary';

describe('the demo summary judges each item', () => {
	it('a failed item without an `error` field (the first of a spent batch) is a problem', () => {
		expect(itemProblem({ json: { status: 'failed', failed_at: 'download', error_message: 'not a usable file', submitted: true } })).toBe('failed at download: not a usable file');
	});
	it('an error, an uncertain submission and a completed item', () => {
		expect(itemProblem({ json: { error: 'boom' } })).toBe('boom');
		expect(itemProblem({ json: { submission_uncertain: true, reason: 'timeout', task_id: 't1' } })).toBe('submission uncertain: timeout (task t1)');
		expect(itemProblem({ json: { status: 'completed', task_id: 't2' } })).toBeUndefined();
	});
});
