/**
 * Reference image addresses and video origins as the spec reads them:
 * - "Beta family also accepts a public HTTP/HTTPS image address read by the service. Private addresses … are rejected",
 *   "A failed reference upload or read must stop the flow and must not silently become text-to-image";
 * - "submit, query and download must all use the same origin": a video task stored without (or with a wrong) origin is
 *   asked on the other configured origin before it is declared failed.
 */
import { useSimulator } from '../harness/simulator';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import { makeImageBytes, model } from '../harness/inputs';

const sim = useSimulator(
	{
		quiet: true,
		taskLatencyMs: 100,
		pollAfterMs: 40,
		videoLatencyMs: 200,
		videoBytes: 50_000,
	},
	{ reset: true },
);
afterAll(async () => {
	cleanupBinaryData();
});

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl, videoBaseUrl: sim.altBaseUrl });
const posts = () => sim.log.filter((l) => l.method === 'POST');
const edit = (p: Record<string, unknown>): TestNode => ({
	name: 'Edit',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'edit',
		mode: 'async',
		model: model('beta-3.1-flash-image-preview'),
		prompt: 'make it blue',
		size: '1024x1024',
		referenceBinaries: '',
		editEncoding: 'json',
		...p,
	},
	onError: 'continueRegularOutput',
});

describe('image reference addresses', () => {
	it.each([
		[
			'credentials in the address',
			'https://user:secret@media.example/a.png',
			/must not contain credentials/,
		],
		['a private address', 'https://10.1.2.3/a.png', /private|internal|loopback/i],
		[
			'a link-local (metadata) address',
			'http://169.254.169.254/latest/meta-data',
			/link-local|private|internal/i,
		],
		['loopback', 'https://127.0.0.1/a.png', /loopback|private|internal|local/i],
		['a token parameter', 'https://media.example/a.png?access_token=abc123', /token/],
		['not an address', 'file:///etc/passwd', /must be an http\(s\):\/\/ address/],
	])('%s is refused before anything is sent, naming the field', async (_what, url, rule) => {
		const r = await runWorkflow({
			nodes: [edit({ referenceUrls: `https://media.example/fine.png\n${url}` })],
			credentials: creds(),
		});
		const j = r.output('Edit')[0].json;
		expect(String(j.error)).toMatch(/^Reference Image URLs\[1\]: /);
		expect(String(j.error)).toMatch(rule);
		expect(j.submitted).toBe(false);
		expect(posts()).toHaveLength(0);
	});

	it("an address carrying the credential's own key is refused and the key is never echoed", async () => {
		const r = await runWorkflow({
			nodes: [edit({ referenceUrls: `https://media.example/a.png?v=${sim.keys.demo}` })],
			credentials: creds(),
		});
		const text = JSON.stringify(r.output('Edit')[0].json);
		expect(text).toMatch(/must not carry an API key/);
		expect(text).not.toContain(sim.keys.demo);
		expect(posts()).toHaveLength(0);
	});

	it('a public http:// address is allowed for the beta family (the spec: public HTTP/HTTPS), and beta pro can use addresses too', async () => {
		await runWorkflow({
			nodes: [edit({ referenceUrls: 'http://media.example/a.png' })],
			credentials: creds(),
		});
		await runWorkflow({
			nodes: [
				edit({
					model: model('beta-3-pro-image-preview'),
					referenceUrls: 'https://media.example/a.png',
				}),
			],
			credentials: creds(),
		});
		const sent = posts();
		expect(sent.map((p) => p.path)).toEqual(['/v1/images/edits/async', '/v1/images/edits/async']);
	});

	it('native mode refuses addresses instead of silently dropping them (which would bill an edit as text-to-image)', async () => {
		const png = await makeImageBytes('png');
		const input = [
			{ json: {}, binary: { data: { data: png.toString('base64'), mimeType: 'image/png' } } },
		];
		const r = await runWorkflow({
			nodes: [
				edit({
					mode: 'native',
					referenceBinaries: 'data',
					referenceUrls: 'https://media.example/a.png',
				}),
			],
			input,
			credentials: creds(),
		});
		expect(String(r.output('Edit')[0].json.error)).toMatch(
			/^Reference Image URLs: native mode sends reference images inline/,
		);
		expect(posts()).toHaveLength(0);
	});
});

describe('video origins', () => {
	const create: TestNode = {
		name: 'Create',
		type: new GenGatewayVideoCreate(),
		parameters: {
			family: 'delta',
			model: model('delta-video-2-0-mini-260615'),
			prompt: 'a boat',
			seconds: 5,
			resolution: '480p',
			ratio: '16:9',
			generateAudio: false,
			watermark: false,
		},
	};
	const stored = async (origin?: string) => {
		const r = await runWorkflow({ nodes: [create], credentials: creds() });
		const json = r.output('Create')[0].json;
		expect(json.origin).toBe('video');
		// what a database row keeps: the task ID, perhaps a (wrong) origin
		return [{ json: { task_id: json.task_id, kind: 'video', ...(origin ? { origin } : {}) } }];
	};
	const wait = (videoOrigin: string): TestNode => ({
		name: 'Wait',
		type: new GenGatewayTaskWait(),
		parameters: {
			taskId: '={{ $json.task_id }}',
			taskKind: 'auto',
			videoOrigin,
			options: { videoIntervalMs: 1000 },
		},
	});

	it('auto: a task stored with the wrong origin is asked on the other origin and completes; nothing is created again', async () => {
		const input = await stored('base');
		const r = await runWorkflow({ nodes: [wait('auto')], input, credentials: creds() });
		const done = r.output('Wait', 0);
		expect(done).toHaveLength(1);
		expect(done[0].json).toMatchObject({ status: 'completed', origin: 'video' });
		const queries = sim.log.filter(
			(l) => l.method === 'GET' && l.path === `/v1/videos/${input[0].json.task_id}`,
		);
		expect(queries[0]).toMatchObject({ server: 'gateway', status: 404 });
		expect(queries.slice(1).every((q) => q.server === 'alt')).toBe(true);
		expect(posts()).toHaveLength(1);
	});

	it('auto without an origin on the item starts on the Video Base URL', async () => {
		const input = await stored();
		const r = await runWorkflow({ nodes: [wait('auto')], input, credentials: creds() });
		expect(r.output('Wait', 0)).toHaveLength(1);
		expect(
			sim.log.filter(
				(l) => l.method === 'GET' && l.server === 'gateway' && l.path.startsWith('/v1/videos/'),
			),
		).toHaveLength(0);
	});

	it('a forced origin is not second-guessed: the task is not found there', async () => {
		const input = await stored();
		const r = await runWorkflow({ nodes: [wait('base')], input, credentials: creds() });
		expect(String(r.output('Wait', 1)[0].json.error)).toMatch(/task_not_exist/);
		expect(sim.log.filter((l) => l.method === 'GET' && l.server === 'alt')).toHaveLength(0);
	});

	it('Download Result, auto: the wrong origin on the item is corrected the same way', async () => {
		const input = await stored('base');
		await runWorkflow({ nodes: [wait('auto')], input, credentials: creds() });
		const dl: TestNode = {
			name: 'DL',
			type: new GenGatewayDownloadResult(),
			parameters: { source: 'videoTask', taskId: '={{ $json.task_id }}', origin: 'auto' },
		};
		const r = await runWorkflow({ nodes: [dl], input, credentials: creds() });
		expect(r.output('DL')[0].binary?.data.mimeType).toBe('video/mp4');
	});
});
