/**
 * Issue 35, bullet 1: Download Result takes any item the package's nodes put out, with its defaults (Source "Item From a
 * GenGateway Node", {{ $json }}): Task Wait's Completed items (images and videos), Image Submit's submitted and
 * synchronous items, Video Create's submitted items, Task Wait's Failed items that say to download later; and a task
 * ID of either kind. Files keep the names the first download gave them. In n8n (in-process) against the simulator.
 */
import { imageSize } from 'image-size';
import { startSimulator } from '../../simulator';
import { useSimulator } from '../harness/simulator';
import { waitFor } from '../harness/wait';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';
import { model } from '../harness/inputs';

const sim = useSimulator(
	{
		quiet: true,
		taskLatencyMs: 60,
		pollAfterMs: 30,
		videoLatencyMs: 60,
	},
	{ reset: true },
);
afterAll(async () => {
	cleanupBinaryData();
});
const creds = (s = sim) => ({ apiKey: s.keys.demo, baseUrl: s.baseUrl });

const submit = (p: Record<string, unknown> = {}): TestNode => ({
	name: 'Submit',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'generate',
		mode: 'async',
		model: model('alpha-image-2.5'),
		prompt: 'a lighthouse',
		size: '1024x1024',
		...p,
	},
});
const wait = (options: Record<string, unknown> = {}): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: {
		taskId: '={{ $json.task_id }}',
		taskKind: 'auto',
		options: { videoIntervalMs: 1000, ...options },
	},
});
/** Download Result as the node panel drops it: no parameter set */
const download = (
	parameters: Record<string, unknown> = {},
	extra: Partial<TestNode> = {},
): TestNode => ({ name: 'Download', type: new GenGatewayDownloadResult(), parameters, ...extra });
const delta = (): TestNode => ({
	name: 'Create',
	type: new GenGatewayVideoCreate(),
	parameters: {
		family: 'delta',
		prompt: 'a paper boat',
		seconds: 5,
		resolution: '480p',
		ratio: '16:9',
		generateAudio: false,
		watermark: false,
	},
});
const gamma = (): TestNode => ({
	name: 'Create',
	type: new GenGatewayVideoCreate(),
	parameters: { family: 'gamma', prompt: 'waves at sunset', gammaSeconds: 8, aspectRatio: '16:9' },
});

type File = { fileName: string; mimeType: string; bytes: number; width?: number; height?: number };
const files = (r: RunResult, node: string, output = 0) =>
	r.output(node, output)[0].json.files as File[];
const queries = () =>
	sim.log.filter((l) => l.method === 'GET' && /^\/v1\/(images\/tasks|videos)\//.test(l.path));

describe('Download Result with its defaults', () => {
	it("after Task Wait (the design card's chain Submit → Wait → Download): the image again, under the name Task Wait gave it, without a task query", async () => {
		const r = await runWorkflow({ nodes: [submit(), wait(), download()], credentials: creds() });
		expect(r.error).toBeUndefined();
		const first = files(r, 'Wait')[0];
		const item = r.output('Download')[0];
		expect(item.json).toMatchObject({
			status: 'completed',
			kind: 'image',
			task_id: r.output('Wait')[0].json.task_id,
		});
		expect(files(r, 'Download')[0]).toMatchObject({
			fileName: first.fileName,
			mimeType: first.mimeType,
			bytes: first.bytes,
			width: first.width,
			height: first.height,
		});
		expect(item.binary?.data).toMatchObject({ fileName: first.fileName, mimeType: 'image/png' });
		expect(imageSize(await r.binaryBuffer(item))).toMatchObject({
			width: first.width,
			height: first.height,
		});
		// Task Wait's queries only: Download Result read the addresses on the item; result hosts never see the key
		expect(queries().filter((l) => l.time > 0)).toHaveLength(
			r.output('Wait')[0].json.polls as number,
		);
		expect(sim.log.filter((l) => l.server === 'result' && l.auth)).toHaveLength(0);
	});

	it("right after Image Submit: the submitted task is looked up, waited for briefly, and its image downloaded under the task's name", async () => {
		const r = await runWorkflow({ nodes: [submit(), download()], credentials: creds() });
		expect(r.error).toBeUndefined();
		const id = r.output('Submit')[0].json.task_id as string;
		expect(r.output('Download')[0].json).toMatchObject({
			status: 'completed',
			task_id: id,
			kind: 'image',
		});
		expect(files(r, 'Download')[0]).toMatchObject({ fileName: `${id}.png`, mimeType: 'image/png' });
		expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(1);
	});

	it('after a synchronous Image Submit: the images again under their first names', async () => {
		const r = await runWorkflow({
			nodes: [submit({ mode: 'sync' }), download()],
			credentials: creds(),
		});
		expect(r.error).toBeUndefined();
		const first = files(r, 'Submit')[0];
		expect(first.fileName).toBe('image_0.png');
		expect(files(r, 'Download')[0]).toMatchObject({ fileName: 'image_0.png', bytes: first.bytes });
	});

	it('after Task Wait, delta and gamma videos: the MP4 again under the name Task Wait gave it (delta from its content path, gamma from its address)', async () => {
		for (const create of [delta(), gamma()]) {
			sim.reset();
			const r = await runWorkflow({ nodes: [create, wait(), download()], credentials: creds() });
			expect(r.error).toBeUndefined();
			const first = files(r, 'Wait')[0];
			expect(first.fileName).toBe(`${r.output('Wait')[0].json.task_id}.mp4`);
			expect(r.output('Download')[0].json).toMatchObject({ status: 'completed', kind: 'video' });
			expect(files(r, 'Download')[0]).toMatchObject({
				fileName: first.fileName,
				mimeType: 'video/mp4',
				bytes: first.bytes,
			});
			expect(r.output('Download')[0].binary?.data).toMatchObject({
				fileName: first.fileName,
				mimeType: 'video/mp4',
			});
		}
	});

	it('right after Video Create: the task is looked up and its video downloaded once it is done', async () => {
		const r = await runWorkflow({ nodes: [delta(), download()], credentials: creds() });
		expect(r.error).toBeUndefined();
		const id = r.output('Create')[0].json.task_id as string;
		expect(files(r, 'Download')[0]).toMatchObject({ fileName: `${id}.mp4`, mimeType: 'video/mp4' });
	});

	it("Task Wait's Failed item that says to download later: its result_urls are downloaded once the host answers again", async () => {
		sim.fault({ route: 're:^GET /r/', kind: 'truncate', times: -1 });
		const r = await runWorkflow({
			nodes: [submit(), { ...wait({ deadlineMinutes: 0.05 }), onError: 'continueRegularOutput' }],
			credentials: creds(),
		});
		const failed = r.output('Wait', 1)[0];
		expect(failed.json).toMatchObject({
			status: 'failed',
			failed_at: 'download',
			download_later: true,
		});
		sim.clearFaults();
		const later = await runWorkflow({ nodes: [download()], input: [failed], credentials: creds() });
		expect(later.error).toBeUndefined();
		expect(files(later, 'Download')[0]).toMatchObject({
			fileName: `${failed.json.task_id}.png`,
			mimeType: 'image/png',
		});
	});

	it('an item with nothing to download is refused before any request, saying what would work', async () => {
		const r = await runWorkflow({
			nodes: [download({}, { onError: 'continueRegularOutput' })],
			input: [{ json: { row: 1 } }],
			credentials: creds(),
		});
		expect(String(r.output('Download')[0].json.error)).toMatch(
			/^Item or Task Object: holds no result to download .* and no task_id: connect Download Result after Task Wait, Image Submit or Video Create/,
		);
		expect(sim.log).toHaveLength(0);
	});
});

describe('Source "Task ID"', () => {
	it('an image task ID with nothing else on the item: asked as an image task, downloaded under its name', async () => {
		const sub = await runWorkflow({ nodes: [submit()], credentials: creds() });
		const id = sub.output('Submit')[0].json.task_id as string;
		await waitFor(() => Date.now() >= sim.state.tasks.get(id)!.readyAt, 'the task ended');
		const r = await runWorkflow({
			nodes: [download({ source: 'videoTask', taskId: id })],
			credentials: creds(),
		});
		expect(r.error).toBeUndefined();
		expect(files(r, 'Download')[0]).toMatchObject({ fileName: `${id}.png`, mimeType: 'image/png' });
		const asImage = await runWorkflow({
			nodes: [
				download({
					source: 'videoTask',
					taskId: id,
					taskKind: 'image',
					options: { splitImages: true, binaryPropertyName: 'img' },
				}),
			],
			credentials: creds(),
		});
		expect(Object.keys(asImage.output('Download')[0].binary ?? {})).toEqual(['img']);
		expect(asImage.output('Download')[0].json).toMatchObject({
			task_id: id,
			fileName: `${id}.png`,
		});
	});

	it('a task that has not finished: waited for at most Wait for an Unfinished Task, then the item fails saying so', async () => {
		const slow = await startSimulator({ quiet: true, taskLatencyMs: 60_000, pollAfterMs: 1000 });
		try {
			const sub = await runWorkflow({ nodes: [submit()], credentials: creds(slow) });
			const before = slow.log.length;
			const r = await runWorkflow({
				nodes: [download({ options: { waitSeconds: 1 } }, { onError: 'continueRegularOutput' })],
				input: sub.output('Submit'),
				credentials: creds(slow),
			});
			// bounded by its count, not a stopwatch: within 1 s at one query a second (poll_after 1 s), at most two
			// queries of the task (the first at once, one more at most), never the 60 s the task takes
			const queries = slow.log.slice(before).filter((l) => l.method === 'GET');
			expect(queries.length).toBeGreaterThanOrEqual(1);
			expect(queries.length).toBeLessThanOrEqual(2);
			expect(r.output('Download')[0].json).toMatchObject({
				status: 'failed',
				task_id: sub.output('Submit')[0].json.task_id,
			});
			expect(String(r.output('Download')[0].json.error)).toMatch(
				/has not finished \(the gateway says processing\) after 1 s: wait for it with GenGateway Task Wait, or raise Options → Wait for an Unfinished Task/,
			);
		} finally {
			await slow.stop();
		}
	});
});

describe('Source "Result URL"', () => {
	it('the file is named after the address, not "image"', async () => {
		const r = await runWorkflow({
			nodes: [
				submit(),
				wait(),
				download({ source: 'url', url: '={{ $json.files[0].sourceUrl }}' }),
			],
			credentials: creds(),
		});
		const url = String(
			(r.output('Wait')[0].json.files as Array<{ sourceUrl: string }>)[0].sourceUrl,
		);
		const stem = new URL(url).pathname
			.split('/')
			.pop()!
			.replace(/\.[a-z]+$/, '');
		expect(files(r, 'Download')[0].fileName).toBe(`${stem}.png`);
	});
});
