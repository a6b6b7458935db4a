/**
 * Batches at the gateway's speed, in n8n-core against the simulator's latency and concurrency knobs: submissions in
 * an adaptive window (bounded, widening, halving on 429, 1 = in order), a 429 refusal sent again after its
 * Retry-After and never anything else, exact order and pairing, results downloaded as their tasks complete, a
 * Retry-After delaying only its own task, Download Result working on several items at once.
 */
import type { IDataObject } from 'n8n-workflow';
import { startSimulator, type Simulator } from '../../simulator';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import { waitFor } from '../harness/wait';
import { model } from '../harness/inputs';
import { atRealTime } from '../time-scale';

type SimOptions = NonNullable<Parameters<typeof startSimulator>[0]> & Record<string, unknown>;
const sims: Simulator[] = [];
async function sim(opts: SimOptions): Promise<Simulator> {
	const s = await startSimulator({ quiet: true, pollAfterMs: 1000, ...opts } as Parameters<
		typeof startSimulator
	>[0]);
	sims.push(s);
	return s;
}
afterAll(async () => {
	await Promise.all(sims.map((s) => s.stop()));
	cleanupBinaryData();
});

// non-square sizes: the spec lets a 1024 square come back as 1254
const SIZES = [
	'1536x1024',
	'1024x1536',
	'1536x864',
	'864x1536',
	'1536x1152',
	'1152x1536',
	'1680x720',
];
const submit = (options: IDataObject = {}): TestNode => ({
	name: 'Submit',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'generate',
		mode: 'async',
		model: model('alpha-image-2.5'),
		prompt: '={{ $json.p }}',
		size: '={{ $json.size }}',
		options,
	},
});
const wait = (): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} },
});
const items = (n: number) =>
	Array.from({ length: n }, (_, k) => ({
		json: { p: `prompt ${k}`, size: SIZES[k % SIZES.length] },
	}));
const creds = (s: Simulator) => ({ apiKey: s.keys.demo, baseUrl: s.baseUrl });
const posts = (s: Simulator) => s.log.filter((l) => l.method === 'POST');

/** Most POSTs in flight at once, from the log's start times and the known answer delay. */
function peakInFlight(s: Simulator, latencyMs: number): number {
	const starts = posts(s)
		.filter((l) => l.status !== 429)
		.map((l) => l.time);
	return Math.max(...starts.map((t) => starts.filter((u) => u <= t && u > t - latencyMs).length));
}

describe('the submit window', () => {
	it('sends a batch concurrently, bounded by Max Concurrent Submissions, and pairs every output with its input', async () => {
		const s = await sim({ submitLatencyMs: 400, taskLatencyMs: 100 });
		const r = await runWorkflow({
			nodes: [submit({ maxConcurrency: 6 }), wait()],
			input: items(24),
			credentials: creds(s),
		});
		expect(r.error).toBeUndefined();
		// concurrency proven from the gateway's log (no timing assertion: the speed is the benchmark's job)
		const peak = peakInFlight(s, 400);
		expect(peak).toBeGreaterThan(3);
		expect(peak).toBeLessThanOrEqual(6);
		const done = r.output('Wait', 0);
		expect(done).toHaveLength(24);
		for (const d of done) {
			const i = (d.pairedItem as { item: number }).item;
			const [w, h] = SIZES[i % SIZES.length].split('x').map(Number);
			expect((d.json.files as Array<{ width: number; height: number }>)[0]).toMatchObject({
				width: w,
				height: h,
			});
		}
		expect(r.output('Submit').map((o) => (o.pairedItem as { item: number }).item)).toEqual(
			items(24).map((_, k) => k),
		);
		expect(posts(s)).toHaveLength(24);
	});

	it('Max Concurrent Submissions 1 sends one item after another, in item order', async () => {
		const s = await sim({ submitLatencyMs: 200, taskLatencyMs: 100 });
		const r = await runWorkflow({
			nodes: [submit({ maxConcurrency: 1 })],
			input: items(5),
			credentials: creds(s),
		});
		expect(r.error).toBeUndefined();
		const starts = posts(s).map((l) => l.time);
		for (let k = 1; k < starts.length; k++)
			expect(starts[k] - starts[k - 1]).toBeGreaterThanOrEqual(190);
		// in order: the k-th task created is item k's
		const ids = r.output('Submit').map((o) => o.json.task_id);
		expect(posts(s).map((l) => l.taskId)).toEqual(ids);
	});

	it('against a gateway that takes 3 submissions at a time: refused POSTs go again after Retry-After, every item is accepted once', async () => {
		const s = await sim({
			submitLatencyMs: 300,
			taskLatencyMs: 100,
			maxConcurrentSubmits: 3,
			submitRetryAfterSec: 1,
		});
		const r = await runWorkflow({
			nodes: [submit({ maxConcurrency: 16 }), wait()],
			input: items(15),
			credentials: creds(s),
		});
		expect(r.error).toBeUndefined();
		expect(r.output('Wait', 0)).toHaveLength(15);
		const accepted = posts(s).filter((l) => l.status >= 200 && l.status < 300);
		const refused = posts(s).filter((l) => l.status === 429);
		expect(accepted).toHaveLength(15);
		expect(new Set(accepted.map((l) => l.taskId)).size).toBe(15);
		expect(refused.length).toBeGreaterThan(0);
		expect(s.ledger.filter((l) => l.kind === 'charge')).toHaveLength(15);
		// the window narrowed: refusals are a fraction of the attempts, not one per attempt
		expect(refused.length).toBeLessThan(accepted.length * 2);
	});

	it('a batch longer than the submit timeout: an item refused on its first send still has its own window (counted from that send)', async () => {
		// one submission at a time, 800 ms each: the 12th item is first sent about 9 s after the batch starts, past the
		// submit timeout (8 s); a refused item waits at least 1 s of the rule's time per refusal (the one 429 rule)
		const s = await sim({
			submitLatencyMs: 800,
			taskLatencyMs: 100,
			maxConcurrentSubmits: 1,
			submitRetryAfterSec: 0,
		});
		const r = await runWorkflow({
			nodes: [
				{
					...submit({ maxConcurrency: 4, submitTimeoutMs: 8000 }),
					onError: 'continueRegularOutput',
				},
			],
			input: items(12),
			credentials: creds(s),
		});
		const out = r.output('Submit').map((o) => o.json);
		expect(out.filter((j) => !j.task_id)).toEqual([]);
		const accepted = posts(s).filter((l) => l.status >= 200 && l.status < 300);
		expect(accepted).toHaveLength(12);
		expect(posts(s).filter((l) => l.status === 429).length).toBeGreaterThan(0);
		expect(s.ledger.filter((l) => l.kind === 'charge')).toHaveLength(12);
	});

	// the one real-time test of "a Retry-After that outlasts the refusal window is not waited" (nothing is waited here)
	it(
		'a 429 whose Retry-After outlasts the submit timeout leaves the item failed, refused, and nothing created',
		atRealTime(async () => {
			const s = await sim({ submitLatencyMs: 50, taskLatencyMs: 100 });
			s.fault({
				route: 'POST /v1/images/generations/async',
				kind: 'rate-limit',
				retryAfter: 30,
				times: 1,
			});
			const r = await runWorkflow({
				nodes: [
					{
						...submit({ maxConcurrency: 1, submitTimeoutMs: 2000 }),
						onError: 'continueRegularOutput',
					},
				],
				input: items(2),
				credentials: creds(s),
			});
			const out = r.output('Submit').map((o) => o.json);
			expect(out[0]).toMatchObject({
				status: 'failed',
				submitted: false,
				failed_at: 'submit',
				http_code: '429',
			});
			expect(out[1].task_id).toMatch(/^[A-Za-z0-9_-]+$/);
			expect(posts(s).map((l) => l.status)).toEqual([429, 202]);
		}),
	);
});

describe('waiting and downloading', () => {
	it('a result is downloaded as soon as its task completes, not after the last task', async () => {
		const s = await sim({ taskLatencyMs: 1500, resultTtfbMs: 100 });
		const early = await runWorkflow({ nodes: [submit()], input: items(1), credentials: creds(s) });
		// the early task has ended at the gateway before the late one is submitted (1.5 s from its end)
		const earlyId = String(early.output('Submit')[0].json.task_id);
		await waitFor(() => Date.now() >= s.state.tasks.get(earlyId)!.readyAt, 'the early task ended');
		const late = await runWorkflow({ nodes: [submit()], input: items(1), credentials: creds(s) });
		const input = [...early.output('Submit'), ...late.output('Submit')];
		const r = await runWorkflow({ nodes: [wait()], input, credentials: creds(s) });
		expect(r.output('Wait', 0)).toHaveLength(2);
		const lateId = String(late.output('Submit')[0].json.task_id);
		const firstDownload = s.log.find((l) => l.server === 'result')!;
		const lateDone = s.log
			.filter((l) => l.method === 'GET' && l.path.endsWith(`/${lateId}`))
			.at(-1)!;
		expect(firstDownload.time).toBeLessThan(lateDone.time);
	});

	// the one real-time test of "a Retry-After on a task query holds back that task only"
	it(
		"a Retry-After on one task's query delays that task only",
		atRealTime(async () => {
			const s = await sim({ taskLatencyMs: 200 });
			const sub = await runWorkflow({ nodes: [submit()], input: items(3), credentials: creds(s) });
			const [limited, ...others] = sub.output('Submit').map((o) => String(o.json.task_id));
			s.fault({
				route: `re:^GET /v1/images/tasks/${limited}$`,
				kind: 'rate-limit',
				retryAfter: 4,
				times: 1,
			});
			const r = await runWorkflow({
				nodes: [wait()],
				input: sub.output('Submit'),
				credentials: creds(s),
			});
			expect(r.output('Wait', 0)).toHaveLength(3);
			const queries = (id: string) =>
				s.log.filter((l) => l.method === 'GET' && l.path.endsWith(`/${id}`)).map((l) => l.time);
			const [refused, retried] = queries(limited);
			// the Retry-After holds back the limited task (a lower bound: load only makes it later) and no other task:
			// each of the others was finished before the limited task was asked again
			expect(retried - refused).toBeGreaterThanOrEqual(3950);
			for (const id of others) expect(queries(id).at(-1)!).toBeLessThan(retried);
		}),
	);

	it('Download Result works on several items at once, in order', async () => {
		const s = await sim({ taskLatencyMs: 100, resultTtfbMs: 600 });
		const w = await runWorkflow({
			nodes: [
				submit(),
				{ ...wait(), parameters: { ...wait().parameters, options: { download: false } } },
			],
			input: items(6),
			credentials: creds(s),
		});
		const tasks = w.output('Wait', 0).map((o) => ({
			json: {
				task_id: o.json.task_id,
				data: [{ url: (o.json.files as Array<{ url: string }>)[0].url }],
			},
		}));
		const dl: TestNode = {
			name: 'DL',
			type: new GenGatewayDownloadResult(),
			parameters: { source: 'imageTask', task: '={{ $json }}' },
		};
		const before = s.log.length;
		const r = await runWorkflow({ nodes: [dl], input: tasks, credentials: creds(s) });
		expect(r.output('DL').map((o) => o.json.task_id)).toEqual(tasks.map((t) => t.json.task_id));
		// proven from the result host's log, not a stopwatch: a download that arrives before the one before it could
		// have been answered (the host holds each 600 ms) ran at the same time; one after another they arrive ≥ 600 ms apart
		const arrivals = s.log
			.slice(before)
			.filter((l) => l.server === 'result')
			.map((l) => l.time);
		expect(arrivals).toHaveLength(6);
		const overlapping = arrivals.slice(1).filter((t, k) => t - arrivals[k] < 600).length;
		expect(overlapping).toBeGreaterThanOrEqual(1);
	});
});
