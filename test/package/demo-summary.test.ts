/** The demo's judge of a step's items: a failed item is a failed step, whatever fields it carries; the AI Agent
 * workflow's summary counts model turns, and says why it did not run on n8n 1.x. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	capStopProblem,
	checkWorkflow,
	crashedAfterRun,
	itemProblem,
	refusalProblem,
	runErrorOf,
	skippedEntry,
	table,
} from '../../scripts/demo/summary';
import { WORKFLOWS } from '../../scripts/demo/workflows';
import type { ExecuteResult } from '../../scripts/lib/n8n/cli';

describe('the demo summary judges each item', () => {
	it('a failed item without an `error` field (the first of a spent batch) is a problem', () => {
		expect(
			itemProblem({
				json: {
					status: 'failed',
					failed_at: 'download',
					error_message: 'not a usable file',
					submitted: true,
				},
			}),
		).toBe('failed at download: not a usable file');
	});
	it('an error, an uncertain submission and a completed item', () => {
		expect(itemProblem({ json: { error: 'boom' } })).toBe('boom');
		expect(
			itemProblem({ json: { submission_uncertain: true, reason: 'timeout', task_id: 't1' } }),
		).toBe('submission uncertain: timeout (task t1)');
		expect(itemProblem({ json: { status: 'completed', task_id: 't2' } })).toBeUndefined();
	});
});

describe("the agent-capped step: the agent must be stopped by its Chat Model's cap", () => {
	it('the refusal of a model turn passes; an answer, another error or a refused batch does not', () => {
		const refusal =
			"GenGateway: Max Expected Spend $0.000002 (¤1) refused this model turn before any paid request: this execution's GenGateway calls have spent $0.00057 (¤285), which reached the cap";
		expect(capStopProblem({ json: { error: refusal } })).toBeUndefined();
		expect(capStopProblem({ json: { output: 'The result is 84.' } })).toMatch(
			/expected the agent stopped/,
		);
		expect(
			capStopProblem({ json: { error: 'GenGateway: the gateway is down (HTTP 503)' } }),
		).toMatch(/expected the agent stopped/);
		expect(
			capStopProblem({
				json: { error: 'Max Expected Spend ¤1 refused the batch before any paid request' },
			}),
		).toMatch(/expected the agent stopped/);
	});
});

describe('the demo summary of the AI Agent workflow', () => {
	const agent = WORKFLOWS.find((w) => w.folder === 'agent')!;
	let root: string;
	beforeAll(() => {
		root = mkdtempSync(join(tmpdir(), 'gg-summary-'));
		mkdirSync(join(root, 'agent'));
		writeFileSync(join(root, 'agent/answer.txt'), 'The result is 84.');
	});
	afterAll(() => rmSync(root, { recursive: true, force: true }));

	/** n8n's run data of the workflow: the Chat Model ran `turns` times, the agent answered `output` */
	const run = (turns: number, output = 'The result is 84.'): ExecuteResult => ({
		code: 0,
		stdout: '',
		stderr: '',
		data: {
			data: {
				resultData: {
					runData: {
						'GenGateway Chat Model': Array.from({ length: turns }, () => ({
							data: {
								ai_languageModel: [
									[{ json: { response: {}, tokenUsage: { completionTokens: 5 } } }],
								],
							},
						})),
						'AI Agent': [{ data: { main: [[{ json: { output } }]] } }],
						'Write Answer': [{ data: { main: [[{ json: {} }]] } }],
					},
				},
			},
		} as unknown as ExecuteResult['data'],
	});

	it("counts the Chat Model's turns and checks the file against the agent's `output`", () => {
		const entries = checkWorkflow(agent, run(2), root, root, { checkLoop: true });
		expect(entries.map((e) => [e.step, e.ok, e.error])).toEqual([
			['GenGateway Chat Model', true, undefined],
			['AI Agent', true, undefined],
			['Write Answer', true, undefined],
		]);
		expect(table(entries)).toMatch(/^ok\s+agent\s+GenGateway Chat Model\s+2 model turn\(s\)$/m);
		expect(table(entries)).toMatch(/^ok\s+agent\s+AI Agent\s+"The result is 84\."$/m);
	});

	it('judged by its answer, not by its turns: one model turn that answers 84 passes (issue 35, bullet 7)', () => {
		const entries = checkWorkflow(agent, run(1), root, root, { checkLoop: true });
		expect(entries.map((e) => [e.step, e.ok, e.error])).toEqual([
			['GenGateway Chat Model', true, undefined],
			['AI Agent', true, undefined],
			['Write Answer', true, undefined],
		]);
	});

	it('a wrong answer fails the AI Agent step, whatever the turns; no model turn fails the Chat Model step', () => {
		writeFileSync(join(root, 'agent/answer.txt'), 'It is 82.');
		try {
			const [model, answer] = checkWorkflow(agent, run(2, 'It is 82.'), root, root, {
				checkLoop: true,
			});
			expect(model.ok).toBe(true);
			expect(answer).toMatchObject({ ok: false, error: 'the answer does not say 84: "It is 82."' });
			const [none] = checkWorkflow(agent, run(0, 'It is 82.'), root, root, { checkLoop: true });
			expect(none).toMatchObject({ ok: false, error: 'expected at least 1 model turn(s), got 0' });
		} finally {
			writeFileSync(join(root, 'agent/answer.txt'), 'The result is 84.');
		}
	});

	it('on n8n 1.x: one entry, ok, saying why, shown as skip', () => {
		const entry = skippedEntry(agent, '1.123.81');
		expect(entry).toEqual({
			workflow: 'agent',
			step: 'not run',
			ok: true,
			skipped: "needs n8n 2.16 or newer (n8n's AI node SDK); this is n8n 1.123.81",
			files: [],
		});
		expect(table([entry])).toMatch(/^skip\s+agent\s+not run\s+skipped: needs n8n 2\.16 or newer/m);
	});
});

describe('n8n ended by a signal', () => {
	const printed = (status: string) => ({
		data: { resultData: { runData: {} } },
		status,
		finished: status === 'success',
	});
	it('after a complete, successful run it printed: the run is judged by what it printed, and the summary notes the crash', () => {
		const res = {
			code: null,
			signal: 'SIGSEGV',
			stdout: '',
			stderr: '',
			data: printed('success'),
		} as unknown as ExecuteResult;
		expect(runErrorOf(res)).toBeUndefined();
		expect(crashedAfterRun(res)).toBe(
			'n8n execute was ended by SIGSEGV after it had finished the run and printed it',
		);
	});
	it('before it finished or printed the run, or with a failed run: a failure', () => {
		expect(
			runErrorOf({
				code: null,
				signal: 'SIGSEGV',
				stdout: '',
				stderr: 'x',
			} as unknown as ExecuteResult),
		).toMatch(/^n8n execute was ended by SIGSEGV/);
		expect(
			runErrorOf({
				code: null,
				signal: 'SIGKILL',
				stdout: '',
				stderr: '',
				data: printed('error'),
			} as unknown as ExecuteResult),
		).toMatch(/^n8n execute was ended by SIGKILL/);
		expect(
			runErrorOf({
				code: 1,
				signal: null,
				stdout: '',
				stderr: '',
				data: printed('success'),
			} as unknown as ExecuteResult),
		).toMatch(/^n8n execute exited 1/);
	});
});

describe('a step the spend cap must refuse', () => {
	it('is ok only for a refusal before any request', () => {
		expect(
			refusalProblem({
				json: {
					status: 'failed',
					failed_at: 'budget',
					submitted: false,
					error_message: 'Max Expected Spend …',
				},
			}),
		).toBeUndefined();
		expect(refusalProblem({ json: { status: 'completed', task_id: 't1' } })).toMatch(
			/^expected a refusal by Max Expected Spend/,
		);
		expect(
			refusalProblem({ json: { status: 'failed', failed_at: 'submit', submitted: false } }),
		).toMatch(/^expected a refusal/);
		expect(
			refusalProblem({
				json: { status: 'failed', failed_at: 'budget', submitted: true, task_id: 't2' },
			}),
		).toMatch(/^expected a refusal/);
	});
});
