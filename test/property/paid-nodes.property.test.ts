/**
 * Property: for every paid node and mode (Image Submit async/sync/native/edit with and without Wait for Result,
 * Video Create delta/gamma, Chat and Responses plain/streamed), 1–8 items, every error setting, Retry On Fail with
 * 1–5 tries and prompts that change between tries, against a gateway whose every answer is generated: the
 * invariants of invariants.ts hold. About half the broad property's runs draw the node's options collection from its
 * description (runs.ts `describedOptions`, description-gen.ts): an option added to a description is generated here
 * without touching the generator; its summary line says how many runs did. Replay a failure with the command it
 * prints. Two focused properties reach what
 * the broad one rarely draws: 2xx answers with an entry of any type where an object belongs, and streamed Chat and
 * Responses answers, while n8n streams, with a form of the key cut across their deltas or in their error event (the
 * broad property draws such a run about once in 300: a chat redactor that let chunks through went unseen in 100 runs).
 */
import fc from 'fast-check';
import { leak, odd, type Behaviour, type LeakPlace } from './behaviours';
import { checkProperty, useFixture } from './property';
import { paidNode, runCase, type NodeCase, type RunCase } from './runs';

const BUDGET = { runs: 100, timeMs: 60_000 };
const fixture = useFixture();

it('paid nodes keep their invariants against a generated hostile gateway', async () => {
	await checkProperty('paid-nodes.property.test.ts', fixture(), runCase(paidNode, true), BUDGET);
}, 3_600_000);

const PLAIN: Behaviour = {
	status: 'normal',
	body: { kind: 'plausible', variant: 0 },
	delivery: { kind: 'whole', chunked: false },
	delayMs: 0,
};

/** Every plausible 2xx answer of the paid route has the first entry of its list (data, choices, candidates, output) replaced. */
const oddEntries: fc.Arbitrary<RunCase> = fc
	.tuple(runCase(paidNode), fc.oneof(fc.constant(null), odd))
	.map(([c, value]) => ({
		...c,
		script: {
			...c.script,
			paid: c.script.paid.map((list) =>
				(list.length ? list : [PLAIN]).map((b): Behaviour =>
					b.body.kind === 'plausible'
						? {
								...b,
								status: 'normal',
								contentType: undefined,
								delivery: PLAIN.delivery,
								leak:
									b.leak?.place === 'error-message' || b.leak?.place === 'error-code'
										? undefined
										: b.leak,
								body: { ...b.body, mutation: { pick: 0, nested: false, op: 'element', value } },
							}
						: b,
				),
			),
		},
	}));

it('paid nodes keep their invariants when a 2xx answer holds an entry of any type where an object belongs', async () => {
	await checkProperty('paid-nodes.property.test.ts', fixture(), oddEntries, {
		runs: 40,
		timeMs: 30_000,
	});
}, 3_600_000);

/**
 * Chat and Responses streamed while n8n streams: every item's first answer is the plausible stream with a generated
 * form of the key cut into its deltas at generated offsets (or in its error event), so only n8n's chat chunks, read
 * joined, show whether the key got through.
 */
const streamedText = fc.record({
	node: fc.constantFrom<'chat' | 'responses'>('chat', 'responses'),
	stream: fc.constant(true),
}) as fc.Arbitrary<NodeCase>;
const keyInDeltas: fc.Arbitrary<RunCase> = fc
	.tuple(
		runCase(streamedText),
		fc.array(
			fc.tuple(leak, fc.constantFrom<LeakPlace>('deltas', 'deltas', 'deltas', 'sse-error')),
			{ minLength: 8, maxLength: 8 },
		),
	)
	.map(([c, leaks]) => ({
		...c,
		n8nStreams: true,
		script: {
			...c.script,
			paid: c.script.paid.map((list, i) => {
				const [first, ...rest] = list.length ? list : [PLAIN];
				const variant = first.body.kind === 'plausible' ? first.body.variant % 15 : 0;
				return [
					{
						...first,
						status: 'normal' as const,
						contentType: undefined,
						delivery: PLAIN.delivery,
						body: { kind: 'plausible' as const, variant },
						leak: { ...leaks[i][0], place: leaks[i][1], charset: undefined },
					},
					...rest,
				];
			}),
		},
	}));

it('streamed Chat and Responses while n8n streams: a form of the key cut across deltas reaches no chunk, alone or joined', async () => {
	await checkProperty('paid-nodes.property.test.ts', fixture(), keyInDeltas, {
		runs: 20,
		timeMs: 10_000,
	});
}, 3_600_000);
