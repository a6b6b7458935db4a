import { startSimulator, type Simulator } from '../../simulator';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';

let sim: Simulator;
beforeAll(async () => {
	sim = await startSimulator({ quiet: true, videoLatencyMs: 200, seed: 3 });
});
afterAll(async () => {
	await sim.stop();
	cleanupBinaryData();
});
beforeEach(() => sim.reset());

const model = (value: string) => ({ __rl: true, mode: 'id', value });
const creds = (video = false) => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl, ...(video ? { videoBaseUrl: sim.altBaseUrl } : {}) });
const delta = (p: Record<string, unknown> = {}, extra: Partial<TestNode> = {}): TestNode => ({
	name: 'Create',
	type: new GenGatewayVideoCreate(),
	parameters: { family: 'delta', model: model('delta-video-2-0-mini-260615'), prompt: 'a paper boat on a river', seconds: 5, resolution: '480p', ratio: '16:9', generateAudio: false, watermark: false, ...p },
	...extra,
});
const gamma = (p: Record<string, unknown> = {}, extra: Partial<TestNode> = {}): TestNode => ({
	name: 'Create',
	type: new GenGatewayVideoCreate(),
	parameters: { family: 'gamma', model: model('gamma-video-1.0'), prompt: 'a cat', gammaSeconds: 8, aspectRatio: '16:9', ...p },
	...extra,
});
const wait = (): TestNode => ({ name: 'Wait', type: new GenGatewayTaskWait(), parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: { videoIntervalMs: 60 } } });
const posts = () => sim.log.filter((l) => l.method === 'POST');
const errorOf = async (node: TestNode) => {
	const r = await runWorkflow({ nodes: [{ ...node, onError: 'continueRegularOutput' }], credentials: creds() });
	return String(r.output('Create')[0].json.error);
};

describe('delta rules: each refused before sending, all violations at once', () => {
	it.each([
		['seconds 3', { seconds: 3 }, /seconds: 3 is outside 4 to 15/],
		['seconds 16', { seconds: 16 }, /outside 4 to 15/],
		['duration -1 outside edit mode', { seconds: -1 }, /only allowed in edit mode/],
		['1080p', { resolution: '1080p' }, /resolution: "1080p" is not supported/],
		['6001-character prompt', { prompt: 'x'.repeat(6001) }, /prompt: is 6001 characters; at most 6000/],
		['prompt expression resolving to nothing', { prompt: '={{ $json.nothing }}' }, /prompt: must not be empty/],
		['adaptive without image or video', { ratio: 'adaptive', referenceAudios: 'https://media.example/a.mp3' }, /'adaptive' needs at least one image or video/],
		['only a first frame', { firstFrame: 'https://media.example/f.png' }, /give both, one each/],
		['frames with references', { firstFrame: 'https://media.example/f.png', lastFrame: 'https://media.example/l.png', referenceImages: 'https://media.example/r.png' }, /cannot be mixed with reference/],
		['10 reference images', { referenceImages: Array.from({ length: 10 }, (_, k) => `https://media.example/${k}.png`) }, /10 reference images: at most 9/],
		['4 reference videos', { referenceVideos: Array.from({ length: 4 }, (_, k) => `https://media.example/${k}.mp4`) }, /4 reference videos: at most 3/],
		['13 references', { referenceImages: Array.from({ length: 9 }, (_, k) => `https://media.example/${k}.png`), referenceVideos: 'https://media.example/v.mp4', referenceAudios: ['https://media.example/1.mp3', 'https://media.example/2.mp3', 'https://media.example/3.mp3'] }, /13 references: at most 12/],
		['http media', { referenceImages: 'http://media.example/a.png' }, /must use https/],
		['loopback media', { referenceImages: 'https://127.0.0.1/a.png' }, /private or loopback/],
		['private media', { referenceImages: 'https://192.168.1.4/a.png' }, /private or loopback/],
		['key in media URL', { referenceImages: 'https://media.example/a.png?api_key=abc' }, /must not carry an API key/],
		['credentials in media URL', { referenceImages: 'https://u:p@media.example/a.png' }, /user:password/],
		['edit mode without exactly one video', { options: { editMode: true }, referenceImages: 'https://media.example/a.png' }, /exactly one reference video/],
		['seed out of range', { options: { seed: 4294967296 } }, /seed: must be an integer from -1/],
		['aspect_ratio instead of ratio', { options: { extraBody: '{"aspect_ratio":"16:9"}' } }, /use 'ratio', never 'aspect_ratio'/],
		['alias pair both given', { options: { extraBody: '{"duration":6}' } }, /duration: conflicts with seconds/],
		['alias pair resolution/size', { options: { extraBody: '{"size":"720p"}' } }, /size: conflicts with resolution/],
		['shorthand mixed with content', { referenceImages: 'https://media.example/a.png', options: { extraBody: '{"images":["https://media.example/b.png"]}' } }, /shorthand cannot be mixed/],
		['text item with prompt', { options: { extraBody: '{"metadata":{"content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}}' } }, /at most one text item[\s\S]*cannot be sent together with a text item/],
	])('%s', async (_name, params, rule) => {
		expect(await errorOf(delta(params as Record<string, unknown>))).toMatch(rule);
		expect(posts()).toHaveLength(0);
	});

	it('reports every violation at once', async () => {
		const err = await errorOf(delta({ seconds: 20, resolution: '4K', prompt: 'y'.repeat(6001), referenceImages: 'http://a.example/x.png' }));
		expect(err).toMatch(/^4 problems/);
	});

	it('passing cases are sent: materials become metadata.content with their @ tokens; edit mode with one video and -1', async () => {
		const r = await runWorkflow({
			nodes: [delta({ prompt: 'make @图片1 dance to @音频1 like @视频1', ratio: 'adaptive', referenceImages: 'https://media.example/a.png, https://media.example/b.png', referenceVideos: 'https://media.example/v.mp4', referenceAudios: 'https://media.example/s.mp3' })],
			credentials: creds(),
		});
		expect(r.error).toBeUndefined();
		const j = r.output('Create')[0].json;
		expect((j.materials as Array<{ token: string }>).map((m) => m.token)).toEqual(['@图片1', '@图片2', '@视频1', '@音频1']);
		expect(j).toMatchObject({ kind: 'video', family: 'delta', status: 'queued', submission_uncertain: false, with_reference_video: true });
		const edit = await runWorkflow({ nodes: [delta({ seconds: -1, referenceVideos: 'https://media.example/v.mp4', options: { editMode: true } })], credentials: creds() });
		expect(edit.error).toBeUndefined();
		const frames = await runWorkflow({ nodes: [delta({ firstFrame: 'https://media.example/f.png', lastFrame: 'https://media.example/l.png' })], credentials: creds() });
		expect(frames.error).toBeUndefined();
		expect(posts()).toHaveLength(3);
	});
});

describe('gamma rules', () => {
	it.each([
		['8 reference images', { imageUrls: Array.from({ length: 8 }, (_, k) => `https://media.example/${k}.png`) }, /8 reference images: at most 7/],
		['1.0 with several references over 10 s', { imageUrls: 'https://media.example/a.png,https://media.example/b.png', gammaSeconds: 12 }, /at most 10 seconds/],
		['empty prompt', { prompt: ' ' }, /prompt: must not be empty/],
	])('%s', async (_n, params, rule) => {
		expect(await errorOf(gamma(params as Record<string, unknown>))).toMatch(rule);
		expect(posts()).toHaveLength(0);
	});

	it('an input_reference file is sent as multipart', async () => {
		const input = [{ json: {}, binary: { ref: { data: Buffer.from('\x89PNG\r\n\x1a\nxxxx').toString('base64'), mimeType: 'image/png', fileName: 'r.png' } } }];
		const r = await runWorkflow({ nodes: [gamma({ inputReference: 'ref', gammaSeconds: 4 })], input, credentials: creds() });
		expect(r.error).toBeUndefined();
		expect(r.output('Create')[0].json.task_id).toBeTruthy();
	});
});

describe('video tasks end to end', () => {
	it('delta on the alternative origin: create, wait, MP4 streamed into the binary store, usage and settled fee', async () => {
		const r = await runWorkflow({ nodes: [delta(), wait()], credentials: creds(true) });
		expect(r.error).toBeUndefined();
		expect(r.output('Create')[0].json).toMatchObject({ origin: 'video', origin_url: sim.altBaseUrl });
		const done = r.output('Wait', 0)[0];
		expect(done.json).toMatchObject({ status: 'completed', kind: 'video', family: 'delta' });
		expect((done.json.fee as Record<string, unknown>).status).toBe('settled');
		const mp4 = await r.binaryBuffer(done);
		expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
		expect(sim.log.filter((l) => l.server === 'alt').length).toBeGreaterThan(2);
		expect(sim.log.filter((l) => l.server === 'gateway' && l.path.startsWith('/v1/videos'))).toHaveLength(0);
		expect(sim.log.filter((l) => l.server === 'result' && l.auth)).toHaveLength(0);
	});

	it('gamma: every response variant (ID, status, URL and failure placements) is understood', async () => {
		const input = Array.from({ length: 10 }, (_, k) => ({ json: { p: k % 5 === 4 ? 'doomed [fail]' : `cat ${k}` } }));
		const r = await runWorkflow({ nodes: [gamma({ prompt: '={{ $json.p }}' }), wait()], input, credentials: creds() });
		const [ok, failed, running] = r.outputs('Wait');
		expect(running).toHaveLength(0);
		expect(ok).toHaveLength(8);
		expect(failed).toHaveLength(2);
		for (const f of failed) expect(String(f.json.error)).toMatch(/moderation/);
		for (const o of ok) expect(o.binary?.data.mimeType).toBe('video/mp4');
		expect(sim.log.filter((l) => l.server === 'result').every((l) => !l.auth)).toBe(true);
	});

	it('an `unknown` status before pickup keeps polling; a silent failure is reported', async () => {
		sim.fault({ route: 'POST /v1/videos', kind: 'video-unknown', polls: 3 });
		const r = await runWorkflow({ nodes: [delta(), wait()], credentials: creds() });
		expect(r.output('Wait', 0)).toHaveLength(1);
		const s = await runWorkflow({ nodes: [delta({ prompt: 'x [fail-silent]' }), wait()], credentials: creds() });
		expect(String(s.output('Wait', 1)[0].json.error)).toMatch(/without an error message/);
	});

	it('an unknown task ID (400 task_not_exist) is a terminal failure', async () => {
		const r = await runWorkflow({ nodes: [wait()], input: [{ json: { task_id: 'vid_nope', kind: 'video', family: 'delta' } }], credentials: creds() });
		expect(String(r.output('Wait', 1)[0].json.error)).toMatch(/task_not_exist/);
	});

	it.each(['reset-after', 'reset-before'] as const)('no duplicate POST under %s: the item is marked, never thrown', async (kind) => {
		sim.fault({ route: 'POST /v1/videos', kind });
		const r = await runWorkflow({ nodes: [delta()], credentials: creds() });
		expect(r.error).toBeUndefined();
		expect(r.output('Create')[0].json).toMatchObject({ status: 'uncertain', submission_uncertain: true });
		expect(posts()).toHaveLength(1);
	});

	it('5xx without a task ID is uncertain; a timeout is uncertain; neither is resent', async () => {
		sim.fault({ route: 'POST /v1/videos', kind: 'status', status: 502 });
		const r = await runWorkflow({ nodes: [delta()], credentials: creds() });
		expect(r.output('Create')[0].json.submission_uncertain).toBe(true);
		sim.fault({ route: 'POST /v1/videos', kind: 'delay', delayMs: 2000 });
		const t = await runWorkflow({ nodes: [delta({ options: { submitTimeoutMs: 200 } })], credentials: creds() });
		expect(t.output('Create')[0].json.submission_uncertain).toBe(true);
		expect(posts()).toHaveLength(2);
	});

	it('Download Result re-downloads a finished delta video by task ID; a truncated download is an error', async () => {
		const r = await runWorkflow({ nodes: [delta(), wait()], credentials: creds() });
		const id = r.output('Wait', 0)[0].json.task_id;
		const dl = (extra: Partial<TestNode> = {}): TestNode => ({ name: 'DL', type: new GenGatewayDownloadResult(), parameters: { source: 'videoTask', taskId: id, origin: 'base' }, ...extra });
		const ok = await runWorkflow({ nodes: [dl()], credentials: creds() });
		expect(ok.output('DL')[0].binary?.data.mimeType).toBe('video/mp4');
		sim.fault({ route: 're:/content$', kind: 'truncate' });
		const bad = await runWorkflow({ nodes: [dl({ onError: 'continueRegularOutput' })], credentials: creds() });
		expect(String(bad.output('DL')[0].json.error)).toMatch(/cut off|truncated|other side closed/);
	});
});

describe('large video download', () => {
	let big: Simulator;
	beforeAll(async () => {
		big = await startSimulator({ quiet: true, videoLatencyMs: 50, videoBytes: 300 * 1024 * 1024 });
	});
	afterAll(() => big.stop());

	it('a 300 MB video goes to disk with the process memory staying flat', async () => {
		const c = { apiKey: big.keys.demo, baseUrl: big.baseUrl };
		const created = await runWorkflow({ nodes: [delta()], credentials: c });
		global.gc?.();
		const before = process.memoryUsage().rss;
		let peak = before;
		const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
		const r = await runWorkflow({ nodes: [wait()], input: created.output('Create'), credentials: c });
		clearInterval(timer);
		const done = r.output('Wait', 0)[0];
		expect((done.json.files as Array<{ bytes: number }>)[0].bytes).toBe(300 * 1024 * 1024);
		expect(peak - before).toBeLessThan(120 * 1024 * 1024);
	}, 120_000);
});
