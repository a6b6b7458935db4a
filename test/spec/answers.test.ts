/**
 * What the gateway answers, read as the spec says, through the nodes:
 * - "A 200 from a plain path may be a task object: detect task_id."
 * - "HTTP 200 does not guarantee a usable image" / "200 / completed with no image: treat as business failure".
 * - "Validate downloads: HTTP status, an image/ Content-Type, non-empty, decodable."
 * - delta-video `/content` "returns an MP4": a download without an MP4 `ftyp` box is not a result.
 */
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import {
	credsFor,
	imageItem,
	imageTask,
	mp4,
	png,
	startGateway,
	type FakeGateway,
} from './support/gateway';

let gw: FakeGateway;
beforeAll(async () => {
	gw = await startGateway();
});
afterAll(async () => {
	await gw.stop();
	cleanupBinaryData();
});
beforeEach(() => gw.reset());

const submit = (parameters: Record<string, unknown> = {}): TestNode => ({
	name: 'Submit',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'generate',
		mode: 'sync',
		model: { __rl: true, mode: 'id', value: 'alpha-image-2.5' },
		prompt: 'a harbour',
		size: '1024x1024',
		...parameters,
	},
	onError: 'continueRegularOutput',
});
const wait = (options: Record<string, unknown> = {}): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options },
});
const posts = () => gw.log.filter((h) => h.method === 'POST');

/**
 * Response bodies destroyed with no error listener: undici then emits RequestAbortedError with nobody listening, an
 * uncaught exception. Recorded (and given a listener) here, so it is asserted in one test instead of failing whichever
 * test runs when it surfaces.
 */
const strayAborts: string[] = [];
const { Readable: BodyReadable } = require('undici/lib/api/readable') as {
	Readable: { prototype: NodeJS.ReadableStream & { destroy(err?: Error): unknown } };
};
const destroy = BodyReadable.prototype.destroy;
BodyReadable.prototype.destroy = function (this: NodeJS.ReadableStream, err?: Error) {
	if (!err && this.listenerCount('error') === 0) {
		strayAborts.push(new Error('destroyed without an error listener').stack ?? '');
		this.on('error', () => undefined);
	}
	return destroy.call(this, err);
};

describe('a 200 from a plain Images path', () => {
	it('carrying a task object is a task: its task_id is kept and waited for, nothing is sent twice', async () => {
		const b64 = (await png(40, 30)).toString('base64');
		gw.on('POST', /^\/v1\/images\/generations$/, () => ({
			json: imageTask('plain_task_1', 'processing'),
		}));
		gw.on('GET', /^\/v1\/images\/tasks\/plain_task_1$/, () => ({
			json: imageTask('plain_task_1', 'completed', { data: [{ b64_json: b64 }] }),
		}));
		const r = await runWorkflow({ nodes: [submit(), wait()], credentials: credsFor(gw) });
		expect(r.output('Submit')[0].json).toMatchObject({ task_id: 'plain_task_1', kind: 'image' });
		const done = r.output('Wait', 0);
		expect(done).toHaveLength(1);
		expect(done[0].json).toMatchObject({ task_id: 'plain_task_1', status: 'completed' });
		expect(done[0].binary?.data).toBeDefined();
		expect(posts()).toHaveLength(1);
	});

	it.each([
		['empty data', { created: 1, data: [] }],
		['no data at all', { created: 1 }],
		[
			'an error beside empty data',
			{ created: 1, data: [], error: { message: 'upstream returned nothing' } },
		],
	])('without an image (%s) is a failure, never a success', async (_label, body) => {
		gw.on('POST', /^\/v1\/images\/generations$/, () => ({ json: body }));
		const r = await runWorkflow({ nodes: [submit()], credentials: credsFor(gw) });
		const item = r.output('Submit')[0];
		expect(item.binary).toBeUndefined();
		expect(item.json.status).not.toBe('completed');
		expect(JSON.stringify(item.json)).toMatch(/no image|empty/i);
		expect(posts()).toHaveLength(1);
	});

	it('with an image is a success (the same gateway, as a control)', async () => {
		const b64 = (await png(40, 30)).toString('base64');
		gw.on('POST', /^\/v1\/images\/generations$/, () => ({
			json: { created: 1, data: [{ b64_json: b64 }] },
		}));
		const r = await runWorkflow({ nodes: [submit()], credentials: credsFor(gw) });
		expect(r.output('Submit')[0].json).toMatchObject({ status: 'completed' });
		expect(r.output('Submit')[0].binary?.data).toBeDefined();
	});
});

describe('downloads are validated', () => {
	const completedWithUrl = (id: string, url: string) =>
		gw.on('GET', new RegExp(`^/v1/images/tasks/${id}$`), () => ({
			json: imageTask(id, 'completed', { data: [{ url }] }),
		}));

	const runImage = async (type: string) => {
		const bytes = await png();
		gw.on(
			'GET',
			/^\/r\/a\.png$/,
			() => ({ body: bytes, headers: { 'content-type': type } }),
			'result',
		);
		completedWithUrl('img_ct', `${gw.resultUrl}/r/a.png`);
		strayAborts.length = 0;
		return runWorkflow({
			nodes: [wait()],
			input: [imageItem('img_ct')],
			credentials: credsFor(gw),
		});
	};

	it.each([
		['application/octet-stream', 1],
		['text/plain', 1],
		['image/png', 0],
	])(
		'an image served as %s goes to output %i (0 Completed, 1 Failed), fetched without the key',
		async (type, output) => {
			const r = await runImage(type);
			expect(r.output('Wait', output)).toHaveLength(1);
			expect(r.output('Wait', 1 - output)).toHaveLength(0);
			if (output === 1)
				expect(String(r.output('Wait', 1)[0].json.error)).toMatch(
					new RegExp(`Content-Type "${type}"`),
				);
			else expect(r.output('Wait', 0)[0].binary?.data.mimeType).toBe('image/png');
			expect(gw.log.filter((h) => h.server === 'result' && h.auth)).toHaveLength(0);
		},
	);

	const videoItem = {
		json: {
			task_id: 'vid_ftyp',
			kind: 'video',
			family: 'delta',
			model: 'delta-video-2-0-mini-260615',
			origin: 'base',
		},
	};
	const completedVideo = () =>
		gw.on('GET', /^\/v1\/videos\/vid_ftyp$/, () => ({
			json: {
				id: 'vid_ftyp',
				object: 'video',
				model: 'delta-video-2-0-mini-260615',
				status: 'completed',
				progress: 100,
				usage: { completion_tokens: 1000, total_tokens: 1000 },
			},
		}));

	it('a delta video whose bytes do not start with an MP4 ftyp box goes to Failed', async () => {
		completedVideo();
		gw.on('GET', /^\/v1\/videos\/vid_ftyp\/content$/, () => ({
			body: Buffer.alloc(4096, 7),
			headers: { 'content-type': 'video/mp4' },
		}));
		const r = await runWorkflow({ nodes: [wait()], input: [videoItem], credentials: credsFor(gw) });
		expect(r.output('Wait', 0)).toHaveLength(0);
		expect(String(r.output('Wait', 1)[0].json.error)).toMatch(/MP4|ftyp/);
	});

	// KNOWN BUG, outside this folder: results.ts destroys the undici body of a refused download (wrong Content-Type)
	// without an error listener, so undici's RequestAbortedError is an uncaught exception in the n8n process.
	it('a download refused for its Content-Type leaves no uncaught stream error behind', async () => {
		await runImage('text/plain');
		expect(strayAborts).toEqual([]);
	});

	it('the same task with an MP4 ftyp box is Completed (control)', async () => {
		completedVideo();
		gw.on('GET', /^\/v1\/videos\/vid_ftyp\/content$/, () => ({
			body: mp4(),
			headers: { 'content-type': 'video/mp4' },
		}));
		const r = await runWorkflow({ nodes: [wait()], input: [videoItem], credentials: credsFor(gw) });
		expect(r.output('Wait', 0)).toHaveLength(1);
		expect(r.output('Wait', 0)[0].binary?.data.mimeType).toBe('video/mp4');
	});
});
