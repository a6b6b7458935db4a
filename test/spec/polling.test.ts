/**
 * Task Wait's polling as the spec asks, seen only from the gateway's side (request times and overlap), so the tests
 * hold whatever the poller's design:
 * - 429 on queries: "No fixed concurrency is promised; start small and adapt to 429": fewer queries in flight after.
 * - "GET: back off by Retry-After".
 * - "Unknown statuses and query errors need an overall deadline": the deadline counts from the first wait and is
 *   carried across Still Running loops (n8n's Wait node sends the item back).
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import {
	credsFor,
	imageItem,
	imageTask,
	png,
	startGateway,
	type FakeGateway,
	type Hit,
} from './support/gateway';
import { atRealTime } from '../time-scale';

let gw: FakeGateway;
let b64: string;
beforeAll(async () => {
	gw = await startGateway();
	b64 = (await png()).toString('base64');
});
afterAll(async () => {
	await gw.stop();
	cleanupBinaryData();
});
beforeEach(() => gw.reset());

const wait = (options: Record<string, unknown> = {}): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options },
});
const polls = (id = '[^/]+') => gw.hits('GET', new RegExp(`^/v1/images/tasks/${id}$`));
const TASK = /^\/v1\/images\/tasks\/([^/]+)$/;

describe('Task Wait polling', () => {
	it('fewer queries are in flight after the gateway answers 429', async () => {
		const N = 16;
		const seen = new Map<string, number>();
		// every query is held 300 ms, so the queries the client has in flight overlap at the gateway
		gw.on('GET', TASK, (_hit, m) => {
			const n = (seen.get(m[1]) ?? 0) + 1;
			seen.set(m[1], n);
			if (n === 1)
				return { status: 429, json: { error: { message: 'too many requests' } }, delayMs: 300 };
			if (n === 2) return { json: imageTask(m[1], 'processing'), delayMs: 300 };
			return { json: imageTask(m[1], 'completed', { data: [{ b64_json: b64 }] }), delayMs: 300 };
		});
		const input = Array.from({ length: N }, (_, k) => imageItem(`win_${k}`));
		const r = await runWorkflow({
			nodes: [wait({ concurrency: N })],
			input,
			credentials: credsFor(gw),
		});
		expect(r.output('Wait', 0)).toHaveLength(N);
		const all = polls();
		const firstRound = all.slice(0, N);
		const after429 = all.slice(N);
		expect(firstRound.every((h) => h.status === 429)).toBe(true);
		expect(gw.peakConcurrency(firstRound)).toBeGreaterThanOrEqual(N - 2);
		expect(after429.length).toBeGreaterThanOrEqual(2 * N);
		expect(gw.peakConcurrency(after429)).toBeLessThanOrEqual(N / 2);
	}, 30_000);

	// the one real-time test of "a task query answered 429 waits out its Retry-After"
	it(
		'Retry-After on a 429 query is honoured before that task is queried again, and only by that task',
		atRealTime(async () => {
			let n = 0;
			// a second task, still running until ra_1 has been queried again, is the test's clock: queried once a second
			gw.on('GET', TASK, (_hit, m) => {
				if (m[1] === 'ra_1' && ++n === 1)
					return {
						status: 429,
						headers: { 'retry-after': '3' },
						json: { error: { message: 'slow down' } },
					};
				return m[1] === 'ra_1' || n > 1
					? { json: imageTask(m[1], 'completed', { data: [{ b64_json: b64 }] }) }
					: { json: imageTask(m[1], 'processing') };
			});
			const r = await runWorkflow({
				nodes: [wait()],
				input: [imageItem('ra_1'), imageItem('tick_1')],
				credentials: credsFor(gw),
			});
			expect(r.output('Wait', 0)).toHaveLength(2);
			const [first, second] = polls('ra_1');
			expect(first.status).toBe(429);
			// poll_after_ms is 1000: only the Retry-After explains a longer gap
			expect(second.start - first.start).toBeGreaterThanOrEqual(2950);
			// and no longer than it: the other task, queried at most once a second, was queried at most four times
			// meanwhile (about three; a busy machine only spaces its queries further apart, so fewer)
			const ticks = polls('tick_1').filter((h) => h.start > first.start && h.start < second.start);
			expect(ticks.length).toBeGreaterThanOrEqual(1);
			expect(ticks.length).toBeLessThanOrEqual(4);
		}),
		20_000,
	);

	// issue 31.5: "no task is queried more often than once a second", per task, not per item
	it('four items naming one task: that task is queried once per round and its file downloaded once; every item gets its own output', async () => {
		const bytes = await png();
		const seen = new Map<string, number>();
		gw.on('GET', TASK, (_hit, m) => {
			const n = (seen.get(m[1]) ?? 0) + 1;
			seen.set(m[1], n);
			return n < 3
				? { json: imageTask(m[1], 'processing', { poll_after_ms: 0 }) }
				: {
						json: imageTask(m[1], 'completed', {
							data: [{ url: `${gw.baseUrl}/files/${m[1]}.png` }],
						}),
					};
		});
		gw.on('GET', /^\/files\/([^/]+)\.png$/, () => ({
			body: bytes,
			headers: { 'content-type': 'image/png' },
		}));
		const input = [
			imageItem('same_1'),
			imageItem('same_1'),
			imageItem('other_1'),
			imageItem('same_1'),
			imageItem('same_1'),
		];
		const r = await runWorkflow({ nodes: [wait()], input, credentials: credsFor(gw) });
		const out = r.output('Wait', 0);
		expect(out.map((i) => (i.pairedItem as { item: number }).item)).toEqual([0, 1, 2, 3, 4]);
		expect(out.map((i) => i.json.task_id)).toEqual([
			'same_1',
			'same_1',
			'other_1',
			'same_1',
			'same_1',
		]);
		for (const i of out) expect(i.binary?.data?.mimeType).toBe('image/png');
		// three rounds (processing, processing, completed): three queries of each task, whatever the number of items
		expect(polls('same_1')).toHaveLength(3);
		expect(polls('other_1')).toHaveLength(3);
		expect(gw.hits('GET', /^\/files\/same_1\.png$/)).toHaveLength(1);
	}, 30_000);

	it('the deadline counts from the first wait and is carried across Still Running loops', async () => {
		// queried every 100 ms (the floor on the test clock is shorter), so a wait past the deadline shows as queries
		gw.on('GET', TASK, (_hit, m) => ({
			json: imageTask(m[1], 'processing', { poll_after_ms: 100 }),
		}));
		// overall deadline 3 s, each execution hands back Still Running after at most 2 s
		const options = { deadlineMinutes: 3 / 60, maxWaitSeconds: 2 };
		const t0 = Date.now();
		let items: INodeExecutionData[] = [imageItem('loop_1')];
		const runs: Array<{
			ms: number;
			queries: Hit[];
			started: unknown;
			output: number;
			handedBack: unknown;
			note: unknown;
		}> = [];
		for (let k = 0; k < 3; k++) {
			const before = polls().length;
			const t = Date.now();
			const r = await runWorkflow({
				nodes: [wait(options)],
				input: items,
				credentials: credsFor(gw),
			});
			const output = r.outputs('Wait').findIndex((o) => o.length === 1);
			const item = r.outputs('Wait')[output][0];
			expect(item.json.task_id).toBe('loop_1');
			runs.push({
				ms: Date.now() - t,
				queries: polls().slice(before),
				started: item.json.wait_started_at,
				output,
				handedBack: item.json.handed_back,
				note: item.json.note,
			});
			if (output !== 2) break;
			items = [{ json: item.json }];
		}
		// the first execution hands back Still Running after its 2 s, with the time of the first wait
		expect(runs[0]).toMatchObject({
			output: 2,
			handedBack: 'max_wait',
			note: expect.stringMatching(/handed back by Max Wait per Execution/),
		});
		expect(runs[0].ms).toBeGreaterThanOrEqual(1900);
		expect(runs[0].started).toBeGreaterThanOrEqual(t0);
		// the second stops at the overall deadline, 3 s after the first wait, not 2 s after it began: it says so, and
		// the task is queried at most once after the deadline (the query in flight when it passed; a busy machine only
		// sends fewer), where waiting out its own 2 s would have queried it every poll interval for about a second more
		const deadline = (runs[0].started as number) + 3000;
		expect(runs[1]).toMatchObject({
			handedBack: 'deadline',
			note: expect.stringMatching(/^Still running at the deadline/),
		});
		expect(runs[1].queries.length).toBeGreaterThanOrEqual(1);
		expect(runs[1].queries.filter((h) => h.start > deadline).length).toBeLessThanOrEqual(1);
		if (runs[1].output === 2) {
			expect(runs[1].started).toBe(runs[0].started);
			// past the overall deadline an execution holds nothing: at most one query, then the item comes out
			expect(runs[2]).toMatchObject({ handedBack: 'deadline' });
			expect(runs[2].queries.length).toBeLessThanOrEqual(1);
			if (runs[2].output === 2) expect(runs[2].started).toBe(runs[0].started);
		}
	}, 30_000);
});
