/**
 * Issue 32, bullet 9: the money guarantees proven by properties. fast-check generates workflows of 1–4 paid nodes
 * (Image Submit async, gamma Video Create, Chat, and an agent holding the GenGateway Chat Model through n8n's
 * `ai_languageModel` connection, 1–6 model calls per item), node names of any length and alphabet sharing prefixes,
 * 1–3 runs of every node, 1–8 items with per-item Max Expected Spend (¤ and display currency) and Group Name / Group
 * Multiplier, every error setting, Retry On Fail with 1–3 tries, prompts that change between tries, keys in any
 * group, and gateway faults that fail items after they were paid; each run is judged by ./money-invariants.ts against
 * an oracle written from the spec's billing rules (./money-oracle.ts) and the simulator's ledger.
 * FUZZ_RUNS, FUZZ_SEED, FUZZ_PATH and FUZZ_TIME_MS steer it; a failure prints the seed and a replay line.
 */
import fc from 'fast-check';
import { cleanupBinaryData } from '../harness/workflow';
import { captureLogs } from './property';
import { fuzzParameters, report, type Budget } from './check';
import { newCoverage, runMoneyCase, startMoneyFixture, stopMoneyFixture, type MoneyFixture } from './money-run';
import { describeMoneyCase, moneyCase, type MoneyCase } from './money-workflow';

const FILE = 'money.property.test.ts';

let f: MoneyFixture | undefined;
beforeAll(async () => {
	captureLogs();
	f = await startMoneyFixture();
});
afterAll(async () => {
	await stopMoneyFixture(f);
	cleanupBinaryData();
});

async function checkMoney(arb: fc.Arbitrary<MoneyCase>, budget: Budget): Promise<void> {
	const testName = expect.getState().currentTestName;
	let ran = 0;
	const cov = newCoverage();
	const details = await fc.check(
		fc.asyncProperty(arb, async (c) => {
			ran++;
			const { problems, ms } = await runMoneyCase(f!, c, cov);
			if (process.env.FUZZ_VERBOSE) process.stdout.write(`${describeMoneyCase(c)}: ${ms} ms${problems.length ? ` ✗ ${problems.length}` : ''}\n`);
			if (problems.length) throw new Error(`${describeMoneyCase(c)}\n  - ${problems.join('\n  - ')}`);
		}),
		fuzzParameters<[MoneyCase]>(budget),
	);
	process.stdout.write(`${FILE} (${testName}) exercised: ${cov.calls} paid calls (${cov.turns} Chat Model turns, ${cov.lost} answers lost after the charge), ${cov.laterRuns} later node runs, ${cov.reRuns} re-runs by Retry On Fail (${cov.reRunsAfterSpend} nodes re-run after they paid), ${cov.refusedBatches} refused batches/turns, ${cov.capChecks} cap checks (${cov.capsNear} past half the cap), records: ${cov.exactRecord} exact, ${cov.boundedRecord} bounds (${cov.noFigure} with calls of no figure)\n`);
	report(FILE, details as fc.RunDetails<unknown>, ran, testName);
}

it('every generated workflow keeps the money guarantees: caps, the record, one POST per place, one item per input', async () => {
	await checkMoney(moneyCase(), { runs: 200, timeMs: 50_000 });
}, 3_600_000);
