/**
 * Issue 44, bullet 5 (second half): the gateway's own words in one place on the item. From Image Submit 1.1, Task Wait
 * 1.1, Download Result 1.1, Video Create 1.2 (and Chat 1.2, Responses 1.1) an item says `status` (ours) and
 * `gateway: { status, state? }` (the gateway's words); workflows saved with an earlier version keep `gateway_status`
 * and `gateway_state` beside `status`, exactly as before. In n8n (in-process) over real HTTP against the simulator.
 */
import type { IDataObject } from 'n8n-workflow';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { settleDeltaFee } from '../../nodes/shared/money/delta';
import { DELTA_VIDEO_UNIT_PRICES } from '../../nodes/shared/money/prices';
import { useSimulator } from '../harness/simulator';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import { creds, deltaVideo, image, taskWait } from '../money/support';

const sim = useSimulator(
	{ quiet: true, taskLatencyMs: 60, pollAfterMs: 30, videoLatencyMs: 60 },
	{ reset: true },
);
afterAll(() => cleanupBinaryData());

const v = (n: TestNode, typeVersion: number): TestNode => ({ ...n, typeVersion });
const download = (typeVersion: number): TestNode => ({
	name: 'Download',
	type: new GenGatewayDownloadResult(),
	parameters: {},
	onError: 'continueRegularOutput',
	typeVersion,
});
/** An item with what differs between two runs masked (a new task each run: its IDs and times), to compare two whole. */
const facts = (x: unknown, key = ''): unknown => {
	if (/(^|_)(id|at|at_iso|polls|waited_ms)$/.test(key)) return '…';
	// a task still queued or already running when the submit's answer left the simulator: timing, not shape
	if (/^(gateway_)?state$/.test(key) && /^(queued|running)$/.test(String(x)))
		return 'queued|running';
	if (typeof x === 'string') return x.replace(/\b(imgtask|task|vid|video|img)_[A-Za-z0-9]+/g, '…');
	if (Array.isArray(x)) return x.map((v) => facts(v));
	if (x && typeof x === 'object')
		return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, facts(v, k)]));
	return x;
};
/** Version 1's item as the new versions show it: the flat words become one object in the first one's place. */
const asObject = (j: IDataObject): IDataObject => {
	const out: IDataObject = {};
	for (const [k, x] of Object.entries(j)) {
		if (k !== 'gateway_status' && k !== 'gateway_state') out[k] = x;
		else if (!('gateway' in out))
			out.gateway = {
				status: j.gateway_status ?? null,
				...(j.gateway_state !== undefined ? { state: j.gateway_state } : {}),
			};
	}
	return out;
};

describe("the gateway's words: one object from the new versions on, the old words on the old ones", () => {
	it('Image Submit → Task Wait: version 1 keeps gateway_status and gateway_state; 1.1 has gateway { status, state } in their place', async () => {
		const old = await runWorkflow({
			nodes: [v(image(), 1), v(taskWait({ keepInputFields: true }), 1)],
			credentials: creds(sim),
		});
		const now = await runWorkflow({
			nodes: [image(), taskWait({ keepInputFields: true })],
			credentials: creds(sim),
		});
		const [oldSub, newSub] = [old.output('Image')[0].json, now.output('Image')[0].json];
		expect(oldSub).toMatchObject({
			status: 'submitted',
			gateway_status: 'processing',
			gateway_state: expect.stringMatching(/^(queued|running)$/),
		});
		expect(oldSub).not.toHaveProperty('gateway');
		expect(newSub).toMatchObject({
			status: 'submitted',
			gateway: { status: 'processing', state: expect.stringMatching(/^(queued|running)$/) },
		});
		expect(newSub).not.toHaveProperty('gateway_status');
		expect(newSub).not.toHaveProperty('gateway_state');
		// nothing else moved: the new item is the old one with the two words in one object, key for key, in order
		expect(Object.keys(newSub)).toEqual(Object.keys(asObject(oldSub)));
		expect(facts(newSub)).toEqual(facts(asObject(oldSub)));

		// Keep Input Fields carries the user's fields, never the submitted item's gateway words
		const [oldDone, newDone] = [old.output('Wait', 0)[0].json, now.output('Wait', 0)[0].json];
		expect(oldDone).toMatchObject({ status: 'completed', gateway_status: 'completed' });
		expect(oldDone).not.toHaveProperty('gateway');
		expect(oldDone).not.toHaveProperty('gateway_state');
		expect(newDone).toMatchObject({ status: 'completed', gateway: { status: 'completed' } });
		expect(newDone.gateway).toEqual({ status: 'completed' });
		expect(newDone).not.toHaveProperty('gateway_status');
		expect(facts(newDone)).toEqual(facts(asObject(oldDone)));
	});

	it('Video Create 1.1 keeps gateway_status; 1.2 says gateway { status } (a video task has no second word)', async () => {
		const old = await runWorkflow({ nodes: [v(deltaVideo(), 1.1)], credentials: creds(sim) });
		const now = await runWorkflow({ nodes: [deltaVideo()], credentials: creds(sim) });
		const [o, n] = [old.output('Video')[0].json, now.output('Video')[0].json];
		expect(o).toMatchObject({ status: 'submitted', gateway_status: 'queued' });
		expect(o).not.toHaveProperty('gateway');
		expect(n).toMatchObject({ status: 'submitted', gateway: { status: 'queued' } });
		expect(n.gateway).toEqual({ status: 'queued' });
		expect(n).not.toHaveProperty('gateway_status');
		expect(facts(n)).toEqual(facts(asObject(o)));
	});

	it("Download Result's failed item: version 1 keeps gateway_status, 1.1 says gateway { status }", async () => {
		const run = (version: number) =>
			runWorkflow({
				nodes: [image({}, { prompt: 'a lighthouse [fail]' }), download(version)],
				credentials: creds(sim),
			});
		const [o, n] = [
			(await run(1)).output('Download')[0].json,
			(await run(1.1)).output('Download')[0].json,
		];
		expect(o).toMatchObject({ status: 'failed', failed_at: 'task', gateway_status: 'failed' });
		expect(o).not.toHaveProperty('gateway');
		expect(n).toMatchObject({ status: 'failed', failed_at: 'task', gateway: { status: 'failed' } });
		expect(n).not.toHaveProperty('gateway_status');
		expect(facts(n)).toEqual(facts(asObject(o)));
	});

	it("Pricing's settlement reads the gateway's word from either shape of Task Wait's item", () => {
		const task = {
			task_id: 'task_x',
			model: 'delta-video-2-0-mini-260615',
			usage: { completion_tokens: 1000 },
		};
		const old = settleDeltaFee(
			{ ...task, status: 'completed', gateway_status: 'failed' },
			DELTA_VIDEO_UNIT_PRICES,
			1,
		);
		const now = settleDeltaFee(
			{ ...task, status: 'completed', gateway: { status: 'failed' } },
			DELTA_VIDEO_UNIT_PRICES,
			1,
		);
		expect(now).toEqual(old);
		expect(now).not.toEqual(
			settleDeltaFee({ ...task, status: 'completed' }, DELTA_VIDEO_UNIT_PRICES, 1),
		);
	});
});
