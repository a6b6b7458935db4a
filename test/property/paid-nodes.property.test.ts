/**
 * Property: for every paid node and mode (Image Submit async/sync/native/edit with and without Wait for Result,
 * Video Create delta/gamma, Chat and Responses plain/streamed), 1–8 items, every error setting, Retry On Fail with
 * 1–5 tries and prompts that change between tries, against a gateway whose every answer is generated: the
 * invariants of invariants.ts hold. Replay a failure with the command it prints.
 */
import fc from 'fast-check';
import { odd, type Behaviour } from './behaviours';
import { checkProperty, useFixture } from './property';
import { paidNode, runCase, type RunCase } from './runs';

const BUDGET = { runs: 100, timeMs: 60_000 };
const fixture = useFixture();

it('paid nodes keep their invariants against a generated hostile gateway', async () => {
	await checkProperty('paid-nodes.property.test.ts', fixture(), runCase(paidNode), BUDGET);
}, 3_600_000);

const PLAIN: Behaviour = { status: 'normal', body: { kind: 'plausible', variant: 0 }, delivery: { kind: 'whole', chunked: false }, delayMs: 0 };

/** Every plausible 2xx answer of the paid route has the first entry of its list (data, choices, candidates, output) replaced. */
const oddEntries: fc.Arbitrary<RunCase> = fc.tuple(runCase(paidNode), fc.oneof(fc.constant(null), odd)).map(([c, value]) => ({
	...c,
	script: {
		...c.script,
		paid: c.script.paid.map((list) =>
			(list.length ? list : [PLAIN]).map((b): Behaviour =>
				b.body.kind === 'plausible'
					? { ...b, status: 'normal', contentType: undefined, delivery: PLAIN.delivery, leak: b.leak?.place === 'error-message' || b.leak?.place === 'error-code' ? undefined : b.leak, body: { ...b.body, mutation: { pick: 0, nested: false, op: 'element', value } } }
					: b,
			),
		),
	},
}));

it('paid nodes keep their invariants when a 2xx answer holds an entry of any type where an object belongs', async () => {
	await checkProperty('paid-nodes.property.test.ts', fixture(), oddEntries, { runs: 40, timeMs: 30_000 });
}, 3_600_000);
