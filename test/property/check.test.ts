/**
 * The one way a workflow property runs (./check.ts, checkAsync): fast-check's time budget abandons the run in flight,
 * and checkAsync does not return before that run has ended — else its workflow goes on sending while the next test of
 * the file counts its requests (CI, 2026-11-29: two readable cases counted a POST of a property's abandoned run).
 */
import fc from 'fast-check';
import { checkAsync, report } from './check';

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

it('a check its budget stopped before any run ended fails saying it checked nothing (not with a TypeError)', async () => {
	const details = await checkAsync(fc.integer(), () => new Promise((r) => setTimeout(r, 300)), {
		numRuns: 10,
		interruptAfterTimeLimit: 50,
		markInterruptAsFailure: false,
	});
	expect(details.numRuns).toBe(0);
	const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
	try {
		expect(() => report('check.test.ts', details as fc.RunDetails<unknown>, 1)).toThrow(
			/No run finished within the time budget .*checked nothing/,
		);
	} finally {
		write.mockRestore();
	}
});
