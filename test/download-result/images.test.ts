import { useSimulator } from '../harness/simulator';
import { waitFor } from '../harness/wait';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { asTool, cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import { model } from '../harness/inputs';

const sim = useSimulator({ quiet: true, taskLatencyMs: 60, pollAfterMs: 30 }, { reset: true });
afterAll(async () => {
	cleanupBinaryData();
});
const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });

async function finishedTask(n = 1): Promise<Record<string, unknown>> {
	const r = await runWorkflow({
		nodes: [
			{
				name: 'Submit',
				type: new GenGatewayImageSubmit(),
				parameters: {
					operation: 'generate',
					mode: 'async',
					model: model('alpha-image-2'),
					prompt: 'x',
					size: '512x512',
					n,
				},
			},
		],
		credentials: creds(),
	});
	const id = r.output('Submit')[0].json.task_id as string;
	await waitFor(() => Date.now() >= sim.state.tasks.get(id)!.readyAt, 'the task ended');
	const { request } = await import('undici');
	const q = await request(`${sim.baseUrl}/v1/images/tasks/${id}`, {
		headers: { authorization: `Bearer ${sim.keys.demo}` },
	});
	return (await q.body.json()) as Record<string, unknown>;
}

const dl = (parameters: Record<string, unknown>): TestNode => ({
	name: 'DL',
	type: new GenGatewayDownloadResult(),
	parameters: { source: 'imageTask', task: '={{ $json }}', ...parameters },
});

describe('Download Result, images', () => {
	it('a task object with several images: all on one item (data, data_1) or one item each; hosted URLs fetched without the key', async () => {
		const task = await finishedTask(2);
		const one = await runWorkflow({
			nodes: [dl({})],
			input: [{ json: task as never }],
			credentials: creds(),
		});
		const item = one.output('DL')[0];
		expect(Object.keys(item.binary ?? {})).toEqual(['data', 'data_1']);
		expect((item.json.files as Array<Record<string, unknown>>)[1]).toMatchObject({
			width: 512,
			height: 512,
			binaryProperty: 'data_1',
		});
		const split = await runWorkflow({
			nodes: [dl({ options: { splitImages: true, binaryPropertyName: 'img' } })],
			input: [{ json: task as never }],
			credentials: creds(),
		});
		expect(split.output('DL').map((i) => Object.keys(i.binary ?? {}))).toEqual([['img'], ['img']]);
		expect(split.output('DL').map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
		expect(sim.log.filter((l) => l.server === 'result').every((l) => !l.auth)).toBe(true);
	});

	it('Base64 results and URL-only mode', async () => {
		const png = (await import('sharp'))
			.default({ create: { width: 20, height: 10, channels: 3, background: '#fff' } })
			.png()
			.toBuffer();
		const b64 = (await png).toString('base64');
		const r = await runWorkflow({
			nodes: [dl({})],
			input: [{ json: { created: 1, data: [{ b64_json: b64 }] } }],
			credentials: creds(),
		});
		expect(r.output('DL')[0].json.files).toEqual([
			expect.objectContaining({ width: 20, height: 10, mimeType: 'image/png' }),
		]);
		const task = await finishedTask();
		const urls = await runWorkflow({
			nodes: [dl({ options: { urlsOnly: true } })],
			input: [{ json: task as never }],
			credentials: creds(),
		});
		expect(urls.output('DL')[0].binary).toBeUndefined();
		expect((urls.output('DL')[0].json.urls as string[])[0]).toMatch(sim.resultBaseUrl);
	});

	it('as an AI-agent tool it returns JSON (URLs) instead of binary', async () => {
		const task = await finishedTask();
		const r = await runWorkflow({
			nodes: [
				{
					name: 'DL',
					type: asTool(new GenGatewayDownloadResult()),
					parameters: { source: 'imageTask', task: '={{ $json }}' },
				},
			],
			input: [{ json: task as never }],
			credentials: creds(),
		});
		expect(r.output('DL')[0].binary).toBeUndefined();
		expect(r.output('DL')[0].json.urls).toHaveLength(1);
		const sub = await runWorkflow({
			nodes: [
				{
					name: 'S',
					type: asTool(new GenGatewayImageSubmit()),
					parameters: {
						operation: 'generate',
						mode: 'sync',
						model: model('alpha-image-2.5'),
						prompt: 'x',
						size: '1024x1024',
					},
				},
			],
			credentials: creds(),
		});
		expect(sub.output('S')[0].binary).toBeUndefined();
		expect(sub.output('S')[0].json.files).toHaveLength(1);
	});

	it('an empty task or a bad URL is refused before any request', async () => {
		const r = await runWorkflow({
			nodes: [{ ...dl({}), onError: 'continueRegularOutput' }],
			input: [{ json: { status: 'completed', data: [] } }],
			credentials: creds(),
		});
		expect(String(r.output('DL')[0].json.error)).toMatch(
			/^Item or Task Object: holds no result to download/,
		);
		const u = await runWorkflow({
			nodes: [{ ...dl({ source: 'url', url: 'ftp://x/y.png' }), onError: 'continueRegularOutput' }],
			credentials: creds(),
		});
		expect(String(u.output('DL')[0].json.error)).toMatch(/^URL: must be an http\(s\) address/);
		expect(sim.log).toHaveLength(0);
	});

	it('a stored result (filesystem binary with an id) is read back as a stream for an edit, and the expected price is hinted', async () => {
		const r = await runWorkflow({
			nodes: [
				{
					name: 'Submit',
					type: new GenGatewayImageSubmit(),
					parameters: {
						operation: 'generate',
						mode: 'async',
						model: model('alpha-image-2.5'),
						prompt: 'x',
						size: '1024x1024',
					},
				},
				{
					name: 'Wait',
					type: new GenGatewayTaskWait(),
					parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} },
				},
				{
					name: 'Edit',
					type: new GenGatewayImageSubmit(),
					parameters: {
						operation: 'edit',
						mode: 'async',
						model: model('alpha-image-2.5'),
						prompt: 'sharper',
						size: '1024x1024',
						referenceBinaries: 'data',
						editEncoding: 'multipart',
					},
				},
			],
			credentials: creds(),
		});
		expect(r.output('Wait')[0].binary?.data.id).toMatch(/^filesystem/);
		expect(r.output('Edit')[0].json.task_id).toBeDefined();
		const hints = r.run.data.resultData.runData.Submit[0].hints ?? [];
		expect(hints.map((h) => h.message).join(' ')).toMatch(
			/This node: \$0\.03–\$0\.06 \(¤16000–¤30000\) at most .* for 1 call\(s\)/,
		);
	});
});
