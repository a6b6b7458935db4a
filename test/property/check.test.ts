/**
 * The one way a workflow property runs (./check.ts, checkAsync): fast-check's time budget abandons the run in flight,
 * and checkAsync does not return before that run has ended — else its workflow goes on sending while the next test of
 * the file counts its requests (CI, 2026-11-29: two readable cases counted a POST of a property's abandoned run).
 */
import fc from 'fast-check';
import { checkAsync } from './check';

it('checkAsync returns only once the run its time budget abandoned has ended', async () => {
	let started = 0;
	let ended = 0;
	const details = await checkAsync(
		fc.integer(),
		async () => {
			started++;
			await new Promise((r) => setTimeout(r, 150));
			ended++;
		},
		{ numRuns: 1000, interruptAfterTimeLimit: 400, markInterruptAsFailure: false },
	);
	// the budget ended while a run was in flight …
	expect(details.interrupted).toBe(true);
	expect(started).toBeGreaterThan(details.numRuns);
	// … and that run had ended by the time the check returned
	expect(ended).toBe(started);
});
