/**
 * The package's waits and timeouts run on n8n's own sleep (n8n-workflow, the host's copy) with an abort signal, as
 * n8n asks of community nodes instead of setTimeout/clearTimeout: `sleep` (back-offs, Retry-After, poll intervals)
 * and `alarm` (download and stream deadlines, idle timeouts). Both n8n-workflow shapes are served: 1.x (n8n 1.123:
 * `sleepWithAbort(ms, signal)`, and a `sleep(ms)` that takes no signal) and 2.x (n8n 2.41: `sleep(ms, signal)`).
 */
import { getEventListeners } from 'node:events';
import * as workflow from 'n8n-workflow';
import { GatewayNetworkError } from '../../nodes/shared/errors';
import { alarm, hostSleep, sleep, type HostSleep } from '../../nodes/shared/transport/clock';

/** n8n-workflow 1.120's sleepWithAbort as n8n 1.123 ships it: its abort listener stays on the signal when the sleep ends. */
const sleepWithAbort1x: HostSleep = async (ms, abortSignal) =>
	await new Promise((resolve, reject) => {
		if (abortSignal?.aborted) return reject(new Error('cancelled'));
		const timeout = setTimeout(resolve, ms);
		abortSignal?.addEventListener(
			'abort',
			() => (clearTimeout(timeout), reject(new Error('cancelled'))),
			{ once: true },
		);
	});
/** n8n-workflow 1.x's sleep: no signal. */
const sleep1x: HostSleep = async (ms) => await new Promise((resolve) => setTimeout(resolve, ms));

const expectCancelled = (err: unknown) => {
	expect(err).toBeInstanceOf(GatewayNetworkError);
	expect((err as GatewayNetworkError).code).toBe('CANCELLED');
};

describe("n8n's sleep of the host", () => {
	it('is sleepWithAbort on n8n-workflow 1.x and sleep on 2.x', () => {
		expect(hostSleep({ sleep: sleep1x, sleepWithAbort: sleepWithAbort1x })).toBe(sleepWithAbort1x);
		const sleep2x: HostSleep = async () => undefined;
		expect(hostSleep({ sleep: sleep2x })).toBe(sleep2x);
		// the n8n-workflow the tests run on (2.41, n8n 2.41.1's) has no sleepWithAbort, and its sleep takes the signal
		expect((workflow as Record<string, unknown>).sleepWithAbort).toBeUndefined();
		expect(hostSleep(workflow as unknown as { sleep: HostSleep })).toBe(workflow.sleep);
	});

	it('is what the package sleeps on, with a signal of its own that a cancel aborts', async () => {
		const seen: AbortSignal[] = [];
		const recording: HostSleep = (ms, signal) => (seen.push(signal!), workflow.sleep(ms, signal));
		await sleep(5, undefined, recording);
		const ac = new AbortController();
		const p = sleep(60_000, ac.signal, recording);
		ac.abort();
		expectCancelled(await p.catch((e: unknown) => e));
		expect(seen).toHaveLength(2);
		expect(seen[1]).not.toBe(ac.signal);
		expect(seen[1].aborted).toBe(true);
	});

	it("on n8n-workflow 1.x: a cancel stops the wait, and a long wait's many sleeps leave no listener on the execution's signal", async () => {
		const host = hostSleep({ sleep: sleep1x, sleepWithAbort: sleepWithAbort1x });
		const execution = new AbortController();
		for (let i = 0; i < 30; i++) await sleep(1, execution.signal, host);
		expect(getEventListeners(execution.signal, 'abort')).toHaveLength(0);
		const p = sleep(60_000, execution.signal, host);
		execution.abort();
		expectCancelled(await p.catch((e: unknown) => e));
	});

	it('a sleep on an already cancelled execution does not start', async () => {
		const ac = new AbortController();
		ac.abort();
		const host = jest.fn<Promise<void>, [number, AbortSignal?]>(async () => undefined);
		expectCancelled(await sleep(10, ac.signal, host).catch((e: unknown) => e));
		expect(host).not.toHaveBeenCalled();
	});
});

describe('alarm: deadlines and idle timeouts on the same sleep', () => {
	/** A clock and a host sleep the test moves by hand: each sleep waits until the test ends it. */
	function manual() {
		let t = 0;
		const sleeps: Array<{ ms: number; signal?: AbortSignal; end: () => void }> = [];
		const host: HostSleep = (ms, signal) =>
			new Promise((resolve, reject) => {
				sleeps.push({ ms, signal, end: resolve });
				signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
			});
		const flush = () => new Promise((r) => setImmediate(r));
		return { host, sleeps, flush, now: () => t, at: (ms: number) => (t = ms) };
	}

	it('rings once, when its time has passed since the last reset (a reset moves it, no timer per reset)', async () => {
		const c = manual();
		const ring = jest.fn();
		const a = alarm(100, ring, c.host, c.now);
		expect(c.sleeps.map((s) => s.ms)).toEqual([100]);
		c.at(60);
		a.reset();
		a.reset();
		c.at(100);
		c.sleeps[0].end();
		await c.flush();
		// the first sleep ended 40 ms short of the bound counted from the reset at 60: it sleeps the rest
		expect(ring).not.toHaveBeenCalled();
		expect(c.sleeps.map((s) => s.ms)).toEqual([100, 60]);
		c.at(160);
		c.sleeps[1].end();
		await c.flush();
		expect(ring).toHaveBeenCalledTimes(1);
		a.stop();
		a.reset();
		await c.flush();
		expect(ring).toHaveBeenCalledTimes(1);
		expect(c.sleeps).toHaveLength(2);
	});

	it('stopped, it never rings and its sleep is aborted', async () => {
		const c = manual();
		const ring = jest.fn();
		const a = alarm(100, ring, c.host, c.now);
		a.stop();
		await c.flush();
		expect(c.sleeps[0].signal?.aborted).toBe(true);
		c.at(500);
		c.sleeps[0].end();
		await c.flush();
		expect(ring).not.toHaveBeenCalled();
	});

	it("rings on n8n's real sleep", async () => {
		const rung = await new Promise<boolean>((resolve) => alarm(5, () => resolve(true)));
		expect(rung).toBe(true);
	});
});
