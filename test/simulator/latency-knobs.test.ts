/** Realistic-latency knobs: submit latency, result time to first byte, per-connection bandwidth, the submit concurrency limit, the acceptance pace. */
import { useSimulator } from '../harness/simulator';
import { client } from './client';
import { waitFor } from '../harness/wait';
import { readWire } from './wire';

describe('submitLatencyMs', () => {
	const sim = useSimulator({
		quiet: true,
		taskLatencyMs: 10,
		videoLatencyMs: 10,
		syncLatencyMs: 0,
		submitLatencyMs: 400,
	});
	const { call, gen, delta } = client(() => sim);

	it('every task-creating or generating request answers only after the delay; queries and lists do not wait', async () => {
		const png = (await gen({}, '/v1/images/generations')).json;
		expect(png.data).toHaveLength(1);
		const timed = await Promise.all([
			gen({}),
			gen({}, '/v1/images/generations'),
			gen({}, '/v1/image-tasks/generations'),
			call('POST', '/v1beta/models/beta-3.1-flash-image-preview:generateContent', {
				json: { contents: [{ parts: [{ text: 'x' }] }] },
			}),
			delta(),
			delta({}, { base: sim.altBaseUrl }),
		]);
		for (const r of timed) {
			expect(r.status).toBeLessThan(300);
			expect(r.ms).toBeGreaterThanOrEqual(380);
		}
		const task = timed[0].json.task_id;
		// sent together with a delayed POST: each answered before it (a busy machine slows both alike; the POST waits 400 ms more)
		const [reference, ...quick] = await Promise.all([
			gen({}),
			call('GET', `/v1/images/tasks/${task}`),
			call('GET', '/v1/models'),
			call('GET', '/api/pricing', { key: null }),
			call('POST', '/v1/chat/completions', {
				json: { model: 'alpha-chat-4o', messages: [{ role: 'user', content: 'x' }] },
			}),
		]);
		expect(reference.ms).toBeGreaterThanOrEqual(380);
		for (const r of quick) expect(r.ms).toBeLessThan(reference.ms);
	});
});

describe('resultTtfbMs and resultBandwidth', () => {
	const sim = useSimulator({
		quiet: true,
		taskLatencyMs: 10,
		videoLatencyMs: 10,
		syncLatencyMs: 0,
		resultTtfbMs: 300,
		resultBandwidth: 400_000,
		imageBytes: 400_000,
		videoBytes: 400_000,
		imageFormat: 'png',
	});
	const { gen, delta, videoDone } = client(() => sim);

	it('the result host waits before the first byte, then paces the download to the bandwidth', async () => {
		const url = (await gen({}, '/v1/images/generations')).json.data[0].url;
		const w = await readWire(url);
		expect(w.headersAt).toBeGreaterThanOrEqual(290);
		expect(Number(w.headers['content-length'])).toBe(w.body.length);
		expect(w.body.length).toBeGreaterThanOrEqual(400_000);
		const transfer = w.chunks.at(-1)!.at - w.firstByteAt!;
		// 400 kB at 400 kB/s: about a second, not a burst (that it is not slower than the knob is a time: `npm run bench
		// -- p4` measures it, a test on a busy machine could not)
		expect(transfer).toBeGreaterThanOrEqual(850);
	});

	it('video /content waits and is paced the same way, per connection', async () => {
		const id = (await delta()).json.id;
		await videoDone(id);
		const get = () =>
			readWire(`${sim.baseUrl}/v1/videos/${id}/content`, {
				headers: { authorization: `Bearer ${sim.keys.demo}` },
			});
		const transfer = (w: Awaited<ReturnType<typeof get>>) => w.chunks.at(-1)!.at - w.firstByteAt!;
		const alone = await get();
		const [a, b] = await Promise.all([get(), get()]);
		for (const w of [alone, a, b]) {
			expect(w.status).toBe(200);
			expect(w.headersAt).toBeGreaterThanOrEqual(290);
			expect(w.body.length).toBe(400_000);
			expect(transfer(w)).toBeGreaterThanOrEqual(850);
		}
		// two connections at once: the transfers overlap, and each takes about what one alone took (a shared rate: twice)
		expect(a.firstByteAt!).toBeLessThan(b.chunks.at(-1)!.at);
		expect(b.firstByteAt!).toBeLessThan(a.chunks.at(-1)!.at);
		for (const w of [a, b]) expect(transfer(w)).toBeLessThan(1.6 * transfer(alone));
	});
});

describe('maxConcurrentSubmits', () => {
	const sim = useSimulator(
		{
			quiet: true,
			taskLatencyMs: 10,
			videoLatencyMs: 10,
			syncLatencyMs: 0,
			submitLatencyMs: 500,
			maxConcurrentSubmits: 4,
			submitRetryAfterSec: 7,
		},
		{ reset: true },
	);
	const { call, gen, delta } = client(() => sim);

	it('beyond the limit, POSTs are refused at once with 429 and Retry-After, creating and charging nothing', async () => {
		const all = await Promise.all(
			Array.from({ length: 30 }, (_, i) => (i % 3 === 2 ? delta() : gen({}))),
		);
		const ok = all.filter((r) => r.status === 202 || r.status === 200);
		const refused = all.filter((r) => r.status === 429);
		expect(ok).toHaveLength(4);
		expect(refused).toHaveLength(26);
		for (const r of refused) {
			expect(r.headers['retry-after']).toBe('7');
			expect(r.json.error).toMatchObject({
				type: 'rate_limit_error',
				code: 'concurrency_limit_exceeded',
			});
		}
		// refused at once: every refusal arrived before the first accepted answer (each accepted one waits 500 ms)
		expect(Math.max(...refused.map((r) => r.ms))).toBeLessThan(Math.min(...ok.map((r) => r.ms)));
		expect(sim.ledger.filter((l) => l.kind === 'charge' || l.kind === 'reserve')).toHaveLength(4);
		expect(sim.state.tasks.size).toBe(4);
		const logged = sim.log.filter((l) => l.method === 'POST');
		expect(logged.filter((l) => l.status === 429)).toHaveLength(26);
		expect(logged.filter((l) => l.status === 429).every((l) => l.model && !l.taskId)).toBe(true);
		expect(sim.state.submitsInFlight).toBe(0);
		// slots are free again; queries were never limited
		expect((await gen({})).status).toBe(202);
	});

	it('a slot is released when its answer is dropped (reset-after) or the client goes away', async () => {
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'reset-after', times: 4 });
		await Promise.allSettled(Array.from({ length: 4 }, () => gen({})));
		// released: awaited (a slot never released hangs here and fails the test)
		await waitFor(() => sim.state.submitsInFlight === 0, "the dropped answers' slots released");
		const ac = new AbortController();
		const { request } = await import('undici');
		const pending = request(`${sim.baseUrl}/v1/images/generations/async`, {
			method: 'POST',
			signal: ac.signal,
			headers: { authorization: `Bearer ${sim.keys.demo}`, 'content-type': 'application/json' },
			body: JSON.stringify({ model: 'alpha-image-2.5', prompt: 'x' }),
		}).catch(() => undefined);
		await waitFor(() => sim.state.submitsInFlight === 1, 'the submission in its slot');
		ac.abort();
		await pending;
		await waitFor(() => sim.state.submitsInFlight === 0, "the gone client's slot released");
		expect((await call('GET', '/v1/models')).status).toBe(200);
	});
});

describe('submitsPerSecond', () => {
	const sim = useSimulator(
		{
			quiet: true,
			taskLatencyMs: 10,
			syncLatencyMs: 0,
			submitLatencyMs: 100,
			submitsPerSecond: 10,
		},
		{ reset: true },
	);
	const { call, gen } = client(() => sim);

	it('starts one submission every 1/pace s in arrival order: the more wait, the later the answer; queries never wait', async () => {
		const sent = Array.from({ length: 6 }, () => gen({}));
		const quick = await call('GET', '/v1/models');
		const all = await Promise.all(sent);
		for (const r of all) expect(r.status).toBe(202);
		// the sixth starts 5 × 100 ms after the first, then takes its 100 ms (a lower bound: load only makes it later)
		expect(Math.max(...all.map((r) => r.ms))).toBeGreaterThanOrEqual(580);
		expect(quick.ms).toBeLessThan(Math.max(...all.map((r) => r.ms)));
		// the queued ones hold their place in flight: all six were answered at once, as far as the gateway counts
		expect(sim.state.submitsInFlightPeak).toBe(6);
		expect(sim.state.submitsInFlight).toBe(0);
		sim.reset();
		expect(sim.state.submitsInFlightPeak).toBe(0);
	});
});
