/**
 * Property: for every paid node and mode (Image Submit async/sync/native/edit with and without Wait for Result,
 * Video Create delta/gamma, Chat and Responses plain/streamed), 1–8 items, every error setting, Retry On Fail with
 * 1–5 tries and prompts that change between tries, against a gateway whose every answer is generated: the
 * invariants of invariants.ts hold. Replay a failure with the command it prints.
 */
import { cleanupBinaryData } from '../harness/workflow';
import { captureLogs, checkProperty, startFixture, type Fixture } from './property';
import { paidNode, runCase } from './runs';

const BUDGET = { runs: 100, timeMs: 60_000 };
let f: Fixture;
beforeAll(async () => {
	captureLogs();
	f = await startFixture();
});
afterAll(async () => {
	await f?.gw.stop();
	cleanupBinaryData();
});

it('paid nodes keep their invariants against a generated hostile gateway', async () => {
	await checkProperty('paid-nodes.property.test.ts', f, runCase(paidNode), BUDGET);
}, 3_600_000);
