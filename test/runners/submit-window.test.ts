/**
 * The submit window finds the gateway's pace (issue 46), over real HTTP against the simulator, through Image Submit in
 * n8n-core: it widens past 16 with a fast gateway and many items and never above Max Concurrent Submissions; it
 * narrows after 429s and when the gateway's answers slow down (its queue); one accepted POST per item whatever the
 * gateway's limit, pace and latency (a property). Everything is counted (in-flight at the gateway, POSTs, charges),
 * nothing is timed.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { DEFAULT_MAX_CONCURRENCY } from '../../nodes/shared/runners/options';
import { useSimulator } from '../harness/simulator';
import { model } from '../harness/inputs';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import type { Simulator } from '../../simulator';

const sim = useSimulator({ quiet: true, taskLatencyMs: 100 }, { reset: true });
afterAll(() => cleanupBinaryData());

/** Puts the gateway's latency knobs for one test (the simulator is shared by the file's tests). */
function gateway(o: { latencyMs: number; limit?: number; perSecond?: number }): void {
	const opts = sim.state.opts;
	opts.submitLatencyMs = o.latencyMs;
	opts.maxConcurrentSubmits = o.limit ?? Infinity;
	opts.submitsPerSecond = o.perSecond ?? Infinity;
	opts.submitRetryAfterSec = 1;
	sim.state.submitsInFlightPeak = 0;
}

const submit = (options: IDataObject = {}): TestNode => ({
	name: 'Submit',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'generate',
		mode: 'async',
		model: model('alpha-image-2.5'),
		prompt: '={{ $json.p }}',
		size: '1024x1024',
		options,
	},
	onError: 'continueRegularOutput',
});
const items = (n: number) => Array.from({ length: n }, (_, k) => ({ json: { p: `prompt ${k}` } }));
const run = (n: number, options: IDataObject = {}) =>
	runWorkflow({
		nodes: [submit(options)],
		input: items(n),
		credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
	});

const posts = (s: Simulator) => s.log.filter((l) => l.method === 'POST');
const accepted = (s: Simulator) => posts(s).filter((l) => l.status >= 200 && l.status < 300);

/** Every output item submitted, each by exactly one accepted POST, each charged once. */
function onePostPerItem(out: IDataObject[], n: number): void {
	expect(out).toHaveLength(n);
	const ids = out.map((j) => j.task_id);
	expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
	expect(new Set(ids).size).toBe(n);
	expect(
		accepted(sim)
			.map((l) => l.taskId)
			.sort(),
	).toEqual([...ids].sort());
	expect(sim.ledger.filter((l) => l.kind === 'charge')).toHaveLength(n);
}

/** Samples the gateway's submissions in flight while `p` runs; `every` sees each sample. */
async function watching<T>(p: () => Promise<T>, every: (inFlight: number) => void): Promise<T> {
	const t = setInterval(() => every(sim.state.submitsInFlight), 2);
	try {
		return await p();
	} finally {
		clearInterval(t);
	}
}

describe('the submit window finds the gateway pace', () => {
	it('widens past 16 with a fast gateway and many items, never above the default bound', async () => {
		gateway({ latencyMs: 150 });
		const r = await run(240);
		expect(r.error).toBeUndefined();
		onePostPerItem(
			r.output('Submit').map((o) => o.json),
			240,
		);
		expect(sim.state.submitsInFlightPeak).toBeGreaterThan(16);
		expect(sim.state.submitsInFlightPeak).toBeLessThanOrEqual(DEFAULT_MAX_CONCURRENCY);
		expect(posts(sim)).toHaveLength(240);
	});

	it('never exceeds the bound the user set (Max Concurrent Submissions 24)', async () => {
		gateway({ latencyMs: 150 });
		const r = await run(160, { maxConcurrency: 24 });
		onePostPerItem(
			r.output('Submit').map((o) => o.json),
			160,
		);
		expect(sim.state.submitsInFlightPeak).toBeGreaterThan(16);
		expect(sim.state.submitsInFlightPeak).toBeLessThanOrEqual(24);
	});

	it('narrows after 429s: a gateway that takes 4 at a time once the window is wide refuses a few, not the window', async () => {
		gateway({ latencyMs: 100 });
		let switched = false;
		let before = 0;
		// what the gateway had in flight when it got busy (on a loaded machine the sampler sees 16 late, the window wider)
		let atSwitch = 0;
		// the gateway gets busy once the window is wide (16: on a loaded machine the client's own delays can read as slow
		// answers and narrow the window before it reaches 32): from then on it takes 4 submissions at a time
		const r = await watching(
			() => run(300),
			(inFlight) => {
				before = Math.max(before, inFlight);
				if (!switched && inFlight >= 16) {
					switched = true;
					atSwitch = inFlight;
					sim.state.opts.maxConcurrentSubmits = 4;
				}
			},
		);
		expect(switched).toBe(true);
		expect(before).toBeGreaterThanOrEqual(16);
		// every item accepted once: no item refused as often as the rule allows (5 sends) …
		onePostPerItem(
			r.output('Submit').map((o) => o.json),
			300,
		);
		// … and the refusals are those in flight when the gateway got busy plus a few per round, not one per place of a
		// window that stayed wide (the window less 4, every round, for the 75 rounds of 4 that 300 items take: 300 or
		// more for a window stuck at 8). Quiet, about 42 (32 at the switch); on a loaded machine, where the client's own
		// delays read as slow answers and the window swings, up to 132 was seen (CI, 2026-11-29): under the half of the
		// items the bound allows past the switch
		const refused = posts(sim).filter((l) => l.status === 429).length;
		process.stdout.write(
			`submit window: ${atSwitch} in flight at the switch, ${refused} refused\n`,
		);
		expect(refused).toBeGreaterThan(0);
		expect(refused).toBeLessThan(atSwitch + 150);
	});

	it('narrows when the answers slow down: a gateway queueing beyond its pace gets fewer in flight than the bound', async () => {
		// 40 submissions a second, 100 ms each: 4 in flight keep its pace; more only wait in its queue
		gateway({ latencyMs: 100, perSecond: 40 });
		let seen = 0;
		let later = 0;
		const r = await watching(
			() => run(200, { maxConcurrency: 64 }),
			(inFlight) => {
				seen++;
				if (posts(sim).length > 100) later = Math.max(later, inFlight);
			},
		);
		onePostPerItem(
			r.output('Submit').map((o) => o.json),
			200,
		);
		expect(seen).toBeGreaterThan(0);
		// in the second half of the batch: a window that never narrowed holds 64 in the gateway's queue
		expect(later).toBeGreaterThan(0);
		expect(later).toBeLessThanOrEqual(32);
	});

	it('one accepted POST per item, never above the bound, whatever the gateway limit, pace and latency (property)', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.record({
					n: fc.integer({ min: 1, max: 24 }),
					bound: fc.integer({ min: 1, max: 64 }),
					latencyMs: fc.integer({ min: 0, max: 60 }),
					limit: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
					perSecond: fc.option(fc.integer({ min: 50, max: 400 }), { nil: undefined }),
				}),
				async (c) => {
					sim.reset();
					gateway(c);
					const r = await run(c.n, { maxConcurrency: c.bound });
					const out = r.output('Submit').map((o) => o.json);
					expect(out).toHaveLength(c.n);
					const sent = out.filter((j) => typeof j.task_id === 'string');
					// an item is either submitted (one accepted POST, its task charged once) or refused (nothing created)
					for (const j of out)
						if (typeof j.task_id !== 'string')
							expect(j).toMatchObject({ failed_at: 'submit', submitted: false });
					expect(
						accepted(sim)
							.map((l) => l.taskId)
							.sort(),
					).toEqual(sent.map((j) => j.task_id).sort());
					expect(sim.ledger.filter((l) => l.kind === 'charge')).toHaveLength(sent.length);
					expect(sim.state.submitsInFlightPeak).toBeLessThanOrEqual(c.bound);
				},
			),
			{ numRuns: 30, seed: Number(process.env.FUZZ_SEED ?? 46) },
		);
	}, 60_000);
});
