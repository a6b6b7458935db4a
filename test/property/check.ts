/**
 * The one way a property is checked and a failure reported: fast-check's settings from FUZZ_RUNS, FUZZ_SEED,
 * FUZZ_PATH and FUZZ_TIME_MS (scripts/fuzz.sh sets them for `npm run fuzz -- --runs N`), and on failure the seed, the
 * path, the shrunk case and a one-line command that replays it. property.ts runs workflows with it; pure properties
 * (test/property/redaction.property.test.ts) call `checkSync`.
 */
import fc from 'fast-check';

export interface Budget {
	/** runs when FUZZ_RUNS is not set (the CI budget) */
	runs: number;
	/** stop generating (and shrinking) after this long, ms */
	timeMs: number;
}

/** fast-check's parameters for this budget, FUZZ_* overriding it. */
export function fuzzParameters<T>(budget: Budget): fc.Parameters<T> {
	const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
	const path = process.env.FUZZ_PATH || undefined;
	const numRuns = Number(process.env.FUZZ_RUNS ?? budget.runs);
	const timeMs = Number(
		process.env.FUZZ_TIME_MS ?? (process.env.FUZZ_RUNS ? 24 * 3600_000 : budget.timeMs),
	);
	return {
		numRuns,
		seed,
		path,
		interruptAfterTimeLimit: timeMs,
		markInterruptAsFailure: false,
		endOnFailure: process.env.FUZZ_SHRINK === '0',
	};
}

/**
 * Prints the summary line of a finished check and, when it failed, throws (and prints) the seed, the path, the replay
 * command (`-t` narrows it to `testName` when a file holds several properties), the error and the shrunk case.
 */
export function report(
	file: string,
	details: fc.RunDetails<unknown>,
	ran: number,
	testName?: string,
	/** more to say of the runs, after the counts (e.g. how many drew their options from the descriptions) */
	more?: string,
): void {
	process.stdout.write(
		`${file}${testName ? ` (${testName})` : ''}: ${details.numRuns} generated runs (${ran} with shrinking)${more ? `, ${more}` : ''}, seed ${details.seed}${details.interrupted ? ', stopped by the time budget' : ''}\n`,
	);
	if (!details.failed) return;
	// fast-check calls a check its time budget stopped before any run finished a failure, with no case: it proved nothing
	if (details.interrupted && details.numRuns === 0 && !details.counterexample) {
		const message = `No run finished within the time budget (seed ${details.seed}): the property checked nothing. Give it more time (FUZZ_TIME_MS) or fewer runs.`;
		process.stdout.write(`\n${message}\n`);
		throw new Error(message);
	}
	const counterexample = (details.counterexample as unknown[] | null)?.[0];
	const only = testName
		? ` -t '${testName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/'/g, "'\\''")}'`
		: '';
	const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} npx jest test/property/${file}${only}`;
	// an error the oracle did not word (a RangeError, a TypeError from the code under test) keeps its stack: a failure
	// seen once under load (issue 40's "Maximum call stack size exceeded") must say where it happened
	const e = details.errorInstance;
	const error =
		e instanceof Error
			? e.name === 'Error' || !e.stack
				? e.message
				: `${e.message}\n${e.stack.split('\n').slice(0, 40).join('\n')}`
			: String(e);
	const message = [
		`Property failed after ${details.numRuns} run(s), ${details.numShrinks} shrink(s).`,
		`seed: ${details.seed}  path: ${details.counterexamplePath}`,
		`replay: ${replay}`,
		`what broke: ${error}`,
		`case: ${JSON.stringify(abbreviate(counterexample)).slice(0, 6000)}`,
	].join('\n');
	process.stdout.write(`\n${message}\n`);
	throw new Error(message);
}

/**
 * fc.check of an async property, the one way every workflow property runs. fast-check's time budget abandons the run
 * in flight (it races the run with the budget's end) while that run's workflow goes on sending to the shared gateway:
 * the abandoned run is awaited before this returns, so the next test of the file never counts its requests as its own
 * (CI, 2026-11-29: two readable cases counted a POST of the property's last, abandoned run).
 */
export async function checkAsync<T>(
	arb: fc.Arbitrary<T>,
	run: (c: T) => Promise<unknown>,
	params: fc.Parameters<[T]>,
): Promise<fc.RunDetails<[T]>> {
	let inFlight: Promise<unknown> = Promise.resolve();
	const details = await fc.check(
		fc.asyncProperty(arb, async (c) => {
			const running = run(c);
			inFlight = running.catch(() => undefined);
			await running;
		}),
		params,
	);
	await inFlight;
	return details;
}

/** fc.check of a synchronous property (it throws to fail), reported as above (the replay narrowed to the running test). */
export function checkSync<T>(
	file: string,
	arb: fc.Arbitrary<T>,
	property: (c: T) => void,
	budget: Budget,
): void {
	const testName = expect.getState().currentTestName;
	let ran = 0;
	const details = fc.check(
		fc.property(arb, (c) => {
			ran++;
			property(c);
		}),
		fuzzParameters<[T]>(budget),
	);
	report(file, details as fc.RunDetails<unknown>, ran, testName);
}

/** Long generated strings, wide arrays and deep nesting, abbreviated in the printed case. */
export function abbreviate(v: unknown, depth = 0): unknown {
	if (typeof v === 'string') return v.length > 200 ? `${v.slice(0, 60)}…(${v.length} chars)` : v;
	if (!v || typeof v !== 'object') return v;
	if (depth > 12) return '…(deeper)';
	if (Array.isArray(v))
		return v.length > 50 ? `[${v.length} items]` : v.map((x) => abbreviate(x, depth + 1));
	return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, abbreviate(x, depth + 1)]));
}
