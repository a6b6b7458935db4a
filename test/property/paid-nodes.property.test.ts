/**
 * Property: for every paid node and mode (Image Submit async/sync/native/edit with and without Wait for Result,
 * Video Create delta/gamma, Chat and Responses plain/streamed), 1–8 items, every error setting, Retry On Fail with
 * 1–5 tries and prompts that change between tries, against a gateway whose every answer is generated: the
 * invariants of invariants.ts hold. Replay a failure with the command it prints.
 */
import { checkProperty, useFixture } from './property';
import { paidNode, runCase } from './runs';

const BUDGET = { runs: 100, timeMs: 60_000 };
const fixture = useFixture();

it('paid nodes keep their invariants against a generated hostile gateway', async () => {
	await checkProperty('paid-nodes.property.test.ts', fixture(), runCase(paidNode), BUDGET);
}, 3_600_000);
