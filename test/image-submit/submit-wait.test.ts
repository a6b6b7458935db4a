import { imageSize } from 'image-size';
import { startSimulator } from '../../simulator';
import { useSimulator } from '../harness/simulator';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import { makeImageBytes, model } from '../harness/inputs';
import { waitFor } from '../harness/wait';
import { json, scriptedServer } from '../harness/scripted-server';
import * as clock from '../../nodes/shared/transport/clock';
import { MAX_SENDS } from '../../nodes/shared/runners/send';
import { TEST_TIME_SCALE } from '../time-scale';

const sim = useSimulator(
	{ quiet: true, taskLatencyMs: 150, pollAfterMs: 40, seed: 2 },
	{ reset: true },
);
afterAll(async () => {
	cleanupBinaryData();
});

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const submit = (parameters: Record<string, unknown>, extra: Partial<TestNode> = {}): TestNode => ({
	name: 'Submit',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'generate',
		mode: 'async',
		model: model('alpha-image-2.5'),
		prompt: 'a red fox',
		size: '1536x1024',
		...parameters,
	},
	...extra,
});
const wait = (options: Record<string, unknown> = {}): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: { taskId: '={{ $json.task_id }}', taskKind: 'auto', options },
});
const posts = () => sim.log.filter((l) => l.method === 'POST');
const keyOutsideGateway = () => sim.log.filter((l) => l.server === 'result' && l.auth);

describe('Image Submit → Task Wait', () => {
	it('text-to-image task: submit once, wait, real image binary with real dimensions', async () => {
		const r = await runWorkflow({ nodes: [submit({}), wait()], credentials: creds() });
		expect(r.error).toBeUndefined();
		const sub = r.output('Submit')[0].json;
		expect(sub).toMatchObject({
			kind: 'image',
			status: 'submitted',
			gateway: { status: 'processing', state: 'queued' },
			submission_uncertain: false,
			origin: 'base',
			poll_after_ms: 40,
		});
		expect(sub.task_id).toMatch(/^[A-Za-z0-9_-]+$/);
		const done = r.output('Wait', 0);
		expect(done).toHaveLength(1);
		const file = (done[0].json.files as Array<Record<string, unknown>>)[0];
		expect(file).toMatchObject({ mimeType: 'image/png', width: 1536, height: 1024 });
		const bytes = await r.binaryBuffer(done[0]);
		expect(imageSize(bytes)).toMatchObject({ width: 1536, height: 1024, type: 'png' });
		expect(posts()).toHaveLength(1);
		expect(keyOutsideGateway()).toHaveLength(0);
	});

	it('many items at once: every input yields exactly one output, paired, with its task_id', async () => {
		const input = Array.from({ length: 12 }, (_, k) => ({
			json: { p: `item ${k}${k === 3 ? ' [fail]' : k === 5 ? ' [empty]' : ''}` },
		}));
		const r = await runWorkflow({
			nodes: [submit({ prompt: '={{ $json.p }}' }), wait()],
			input,
			credentials: creds(),
		});
		const [ok, failed, running] = r.outputs('Wait');
		expect(ok.length + failed.length + running.length).toBe(12);
		expect(failed.map((f) => f.pairedItem)).toEqual([{ item: 3 }, { item: 5 }]);
		expect(String(failed[1].json.error)).toMatch(/no image/);
		expect(failed[0].json.task_id).toBe(r.output('Submit')[3].json.task_id);
		expect(posts()).toHaveLength(12);
	});

	it('a deadline gives Still Running with the task_id kept and the first wait time carried', async () => {
		const r = await runWorkflow({
			nodes: [submit({}), wait({ maxWaitSeconds: 0.05 })],
			credentials: creds(),
		});
		const running = r.output('Wait', 2);
		expect(running).toHaveLength(1);
		expect(running[0].json).toMatchObject({
			status: 'running',
			task_id: r.output('Submit')[0].json.task_id,
		});
		expect(typeof running[0].json.wait_started_at).toBe('number');
	});

	it('429 and 5xx on polls are backed off and the task still completes; the POST is never repeated', async () => {
		sim.fault({ route: 're:^GET /v1/images/tasks/', kind: 'rate-limit', times: 2, retryAfter: 0 });
		sim.fault({ route: 're:^GET /v1/images/tasks/', kind: 'status', status: 503, times: 2 });
		sim.fault({
			route: 're:^GET /v1/images/tasks/',
			kind: 'rate-limit',
			times: 1,
			emptyBody: true,
		});
		const r = await runWorkflow({ nodes: [submit({}), wait()], credentials: creds() });
		expect(r.output('Wait', 0)).toHaveLength(1);
		expect(posts()).toHaveLength(1);
		expect(sim.log.filter((l) => l.status === 429).length).toBe(3);
	}, 40_000);

	it("the one 429 rule on an action node's paid POST: Retry-After 0 to every call is sent MAX_SENDS times, never sooner than 1 s apart, then the item fails 'submit' with nothing created", async () => {
		sim.fault({
			route: 'POST /v1/images/generations/async',
			kind: 'rate-limit',
			times: -1,
			retryAfter: 0,
		});
		const waits: number[] = [];
		const scaledSpy = jest.spyOn(clock, 'scaled').mockImplementation((ms: number) => {
			waits.push(ms);
			return ms * TEST_TIME_SCALE;
		});
		try {
			const r = await runWorkflow({
				nodes: [submit({}, { onError: 'continueRegularOutput' })],
				credentials: creds(),
			});
			expect(posts().map((p) => p.status)).toEqual(Array(MAX_SENDS).fill(429));
			expect(waits.filter((w) => w >= 1000)).toHaveLength(MAX_SENDS - 1);
			expect(r.output('Submit')[0].json).toMatchObject({ status: 'failed', failed_at: 'submit' });
		} finally {
			scaledSpy.mockRestore();
		}
	});

	it('expired task (404) goes to Failed; a failed task (HTTP 200 failed) stops polling', async () => {
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'expire' });
		const r = await runWorkflow({ nodes: [submit({}), wait()], credentials: creds() });
		expect(String(r.output('Wait', 1)[0].json.error)).toMatch(/not found \(404\)/);
		sim.reset();
		const r2 = await runWorkflow({
			nodes: [submit({ prompt: 'no [fail]' }), wait()],
			credentials: creds(),
		});
		const f = r2.output('Wait', 1)[0].json;
		expect(f).toMatchObject({ status: 'failed', billing_status: 'refunded_if_reserved' });
		const polls = sim.log.filter(
			(l) => l.method === 'GET' && l.path.startsWith('/v1/images/tasks/'),
		);
		expect(polls.at(-1)!.status).toBe(200);
	});

	it('a foreign poll_url is never called with the key', async () => {
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'foreign-poll-url' });
		const r = await runWorkflow({ nodes: [submit({}), wait()], credentials: creds() });
		expect(r.output('Wait', 0)).toHaveLength(1);
		expect(sim.log.filter((l) => l.path.startsWith('/steal'))).toHaveLength(0);
		expect(keyOutsideGateway()).toHaveLength(0);
	});

	it('an HTML page served as the image is a failure, not a success', async () => {
		sim.fault({ route: 're:^GET /r/', kind: 'html-result' });
		const r = await runWorkflow({ nodes: [submit({}), wait()], credentials: creds() });
		expect(String(r.output('Wait', 1)[0].json.error)).toMatch(/not a decodable image|HTML/);
	});

	it('a reset after the task was created is marked uncertain, never thrown, never resent', async () => {
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'reset-after' });
		const r = await runWorkflow({ nodes: [submit({})], credentials: creds() });
		expect(r.error).toBeUndefined();
		expect(r.output('Submit')[0].json).toMatchObject({
			status: 'uncertain',
			submission_uncertain: true,
		});
		expect(posts()).toHaveLength(1);
		expect(sim.ledger.filter((l) => l.kind === 'charge')).toHaveLength(1);
	});

	it('Wait for Result inside Image Submit emits the image', async () => {
		const r = await runWorkflow({
			nodes: [submit({ options: { waitForResult: true } })],
			credentials: creds(),
		});
		const item = r.output('Submit')[0];
		expect(item.json).toMatchObject({ status: 'completed' });
		expect(item.binary?.data.mimeType).toBe('image/png');
	});
});

describe('Image Submit modes, sizes and edits', () => {
	it.each([
		['alpha-image-2.5', '1000x1000', /alpha-image-2.5 takes one of/],
		['alpha-image-2', '2048x2048', /allows at most 1024x1024 = 1,048,576 pixels/],
		['alpha-image-2-4k', '3072x3072', /allows at most 2880x2880 = 8,294,400 pixels/],
		['beta-3-pro-image-preview', '16:9', /is a ratio, not a size/],
		['beta-3-pro-image-preview', '', /./],
	])('%s size "%s" is refused before sending', async (m, size, rule) => {
		const r = await runWorkflow({
			nodes: [submit({ model: model(m), size }, { onError: 'continueRegularOutput' })],
			credentials: creds(),
		});
		const j = r.output('Submit')[0].json;
		if (size === '') {
			expect(j.error).toBeUndefined();
			return;
		}
		expect(String(j.error)).toMatch(/^size: /);
		expect(String(j.error)).toMatch(rule);
		expect(posts()).toHaveLength(0);
	});

	it('alpha-image-2 takes sizes the spec normalises: the item says what the gateway will deliver, and it does', async () => {
		const r = await runWorkflow({
			nodes: [submit({ model: model('alpha-image-2'), size: '1000x1000' }), wait()],
			credentials: creds(),
		});
		expect(r.output('Submit')[0].json).toMatchObject({
			requested_size: '1000x1000',
			expected_size: '1008x1008',
		});
		const hints = (r.run.data.resultData.runData.Submit[0].hints ?? []).map((h) => h.message);
		expect(hints.join(' ')).toMatch(/1008x1008/);
		// the spec does not say which way a side rounds: the gateway delivered a multiple of 16 next to the estimate
		const file = (r.output('Wait', 0)[0].json.files as Array<{ width: number; height: number }>)[0];
		expect(file.width % 16).toBe(0);
		expect(Math.abs(file.width - 1008)).toBeLessThanOrEqual(16);
		expect(file.width * file.height).toBeLessThanOrEqual(1024 * 1024);
	});

	it('an empty prompt, a bad n and a quality the family refuses are all reported at once', async () => {
		const r = await runWorkflow({
			nodes: [
				submit(
					{ model: model('beta-3-pro-image-preview'), prompt: '  ', n: 0, quality: 'high' },
					{ onError: 'continueRegularOutput' },
				),
			],
			credentials: creds(),
		});
		const err = String(r.output('Submit')[0].json.error);
		expect(err).toMatch(/3 problems/);
		expect(err).toMatch(/prompt: must not be empty/);
		expect(err).toMatch(/n: must be at least 1/);
		expect(err).toMatch(/quality: the beta family/);
		expect(posts()).toHaveLength(0);
	});

	it('alpha-image-2-az is sent synchronously without response_format even when async is chosen', async () => {
		const r = await runWorkflow({
			nodes: [submit({ model: model('alpha-image-2-az'), size: '1024x1024' })],
			credentials: creds(),
		});
		expect(r.error).toBeUndefined();
		expect(r.output('Submit')[0].json).toMatchObject({ status: 'completed', mode: 'sync' });
		expect(posts()[0].path).toBe('/v1/images/generations');
	});

	it('synchronous mode emits binary images directly', async () => {
		const r = await runWorkflow({
			nodes: [
				submit({ mode: 'sync', model: model('beta-3.1-flash-image-preview'), size: '1536x864' }),
			],
			credentials: creds(),
		});
		const item = r.output('Submit')[0];
		const f = (item.json.files as Array<Record<string, number>>)[0];
		expect(f.width / f.height).toBeCloseTo(16 / 9, 1);
		expect(item.binary?.data).toBeDefined();
	});

	it('native mode: model in the path, imageSize from the suffix, image from inlineData or inline_data', async () => {
		for (let k = 0; k < 2; k++) {
			const r = await runWorkflow({
				nodes: [
					submit({
						mode: 'native',
						model: model('beta-3-pro-image-preview-2k'),
						aspectRatio: '16:9',
					}),
				],
				credentials: creds(),
			});
			expect(r.error).toBeUndefined();
			const f = (r.output('Submit')[0].json.files as Array<Record<string, number>>)[0];
			expect(f.width).toBe(2048);
		}
		expect(posts().map((p) => p.path)).toEqual([
			'/v1beta/models/beta-3-pro-image-preview-2k:generateContent',
			'/v1beta/models/beta-3-pro-image-preview-2k:generateContent',
		]);
	});

	it('native mode without an image explains why (promptFeedback, finishReason, text)', async () => {
		const r = await runWorkflow({
			nodes: [
				submit(
					{ mode: 'native', model: model('beta-3.1-flash-image-preview'), prompt: 'bad [block]' },
					{ onError: 'continueRegularOutput' },
				),
			],
			credentials: creds(),
		});
		expect(r.output('Submit')[0].json).toMatchObject({
			status: 'failed',
			submitted: true,
			failed_at: 'answer',
		});
		expect(String(r.output('Submit')[0].json.error_message)).toMatch(/prompt blocked: SAFETY/);
		const r2 = await runWorkflow({
			nodes: [
				submit(
					{ mode: 'native', model: model('beta-3.1-flash-image-preview'), prompt: 'bad [noimage]' },
					{ onError: 'continueRegularOutput' },
				),
			],
			credentials: creds(),
		});
		expect(String(r2.output('Submit')[0].json.error_message)).toMatch(
			/finishReason IMAGE_SAFETY; model said: "I cannot draw that."/,
		);
	});

	// a raw TypeError ("Cannot read properties of null (reading 'content')") reached the item before: noticed by the
	// paid-nodes property with described options, whose invariants do not read the words
	it('a native answer of odd shapes (null candidates, content, parts; text entries) says in words that it held no image', async () => {
		const server = await scriptedServer((req, res) =>
			req.method === 'POST'
				? json(res, 200, {
						candidates: [
							null,
							{ content: null },
							'x',
							{ content: { parts: [null, 7, { text: 'no picture today' }] } },
						],
					})
				: json(res, 404, { error: { message: 'not here' } }),
		);
		try {
			const r = await runWorkflow({
				nodes: [
					submit(
						{ mode: 'native', model: model('beta-3.1-flash-image-preview'), prompt: 'a fox' },
						{ onError: 'continueRegularOutput' },
					),
				],
				credentials: { apiKey: 'sk-test-native-odd-0001', baseUrl: server.url },
			});
			const j = r.output('Submit')[0].json;
			expect(j).toMatchObject({ status: 'failed', submitted: true, failed_at: 'answer' });
			expect(String(j.error_message)).toMatch(
				/The answer held no image \(model said: "no picture today"\)/,
			);
			expect(String(j.error_message)).not.toMatch(/Cannot read|TypeError/);
		} finally {
			await server.close();
		}
	});

	it('edit with a binary input (MIME from the bytes, not the file name), multipart and JSON data URL', async () => {
		const jpeg = await makeImageBytes('jpeg');
		const input = [
			{
				json: {},
				binary: {
					data: { data: jpeg.toString('base64'), mimeType: 'image/png', fileName: 'lies.png' },
				},
			},
		];
		const r = await runWorkflow({
			nodes: [submit({ operation: 'edit', editEncoding: 'multipart' }), wait()],
			input,
			credentials: creds(),
		});
		expect(r.output('Wait', 0)).toHaveLength(1);
		const r2 = await runWorkflow({
			nodes: [submit({ operation: 'edit', editEncoding: 'json' }), wait()],
			input,
			credentials: creds(),
		});
		expect(r2.output('Wait', 0)).toHaveLength(1);
		expect(posts().map((p) => p.path)).toEqual([
			'/v1/images/edits/async',
			'/v1/images/edits/async',
		]);
	});

	it('several references for beta; a missing or non-image reference stops the item and never becomes text-to-image', async () => {
		const png = await makeImageBytes('png');
		const webp = await makeImageBytes('webp');
		const input = [
			{
				json: {},
				binary: {
					a: { data: png.toString('base64'), mimeType: 'image/png' },
					b: { data: webp.toString('base64'), mimeType: 'image/webp' },
					t: { data: Buffer.from('hello').toString('base64'), mimeType: 'image/png' },
				},
			},
		];
		const ok = await runWorkflow({
			nodes: [
				submit({
					operation: 'edit',
					model: model('beta-3-pro-image-preview'),
					referenceBinaries: 'a,b',
					size: '1024x1024',
				}),
			],
			input,
			credentials: creds(),
		});
		expect(ok.output('Submit')[0].json.task_id).toBeDefined();
		const bad = await runWorkflow({
			nodes: [
				submit(
					{ operation: 'edit', referenceBinaries: 'nope' },
					{ onError: 'continueRegularOutput' },
				),
				submit(
					{ operation: 'edit', referenceBinaries: 't' },
					{ name: 'Submit2', onError: 'continueRegularOutput' },
				),
			],
			input,
			credentials: creds(),
		});
		expect(String(bad.output('Submit')[0].json.error)).toMatch(/has no binary property "nope"/);
		expect(posts()).toHaveLength(1);
	});

	it('alpha models take one reference; URLs are for beta only; JSON edits only where confirmed', async () => {
		const png = await makeImageBytes('png');
		const input = [
			{
				json: {},
				binary: {
					a: { data: png.toString('base64'), mimeType: 'image/png' },
					b: { data: png.toString('base64'), mimeType: 'image/png' },
				},
			},
		];
		const r = await runWorkflow({
			nodes: [
				submit(
					{
						operation: 'edit',
						model: model('alpha-image-2'),
						referenceBinaries: 'a,b',
						referenceUrls: 'https://x.example/a.png',
						editEncoding: 'json',
						size: '1024x1024',
					},
					{ onError: 'continueRegularOutput' },
				),
			],
			input,
			credentials: creds(),
		});
		const err = String(r.output('Submit')[0].json.error);
		expect(err).toMatch(/single reference image/);
		expect(err).toMatch(/beta family only/);
		expect(err).toMatch(/JSON data URLs are confirmed only/);
		expect(posts()).toHaveLength(0);
	});

	it('beta edit from a public HTTPS reference URL', async () => {
		const r = await runWorkflow({
			nodes: [
				submit({
					operation: 'edit',
					model: model('beta-3.1-flash-image-preview'),
					referenceBinaries: '',
					referenceUrls: 'https://media.example/cat.png',
					editEncoding: 'json',
					size: '1024x1024',
				}),
				wait(),
			],
			credentials: creds(),
		});
		expect(r.output('Wait', 0)).toHaveLength(1);
	});
});

describe('Task Wait input handling', () => {
	it('an uncertain submission without a task ID goes to Failed, the others are still waited for', async () => {
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'reset-after' });
		const r = await runWorkflow({
			nodes: [submit({ prompt: '={{ $json.p }}' }), wait()],
			input: [{ json: { p: 'a' } }, { json: { p: 'b' } }],
			credentials: creds(),
		});
		const [ok, failed] = r.outputs('Wait');
		expect(ok).toHaveLength(1);
		expect(failed[0].json).toMatchObject({ status: 'uncertain', submission_uncertain: true });
		expect(failed[0].pairedItem).toEqual({ item: 0 });
		expect(posts()).toHaveLength(2);
	});

	it('a missing task ID on an ordinary item is an input error naming the field', async () => {
		const r = await runWorkflow({
			nodes: [{ ...wait(), onError: 'continueRegularOutput' }],
			input: [{ json: {} }, { json: { task_id: 'bad id!' } }],
			credentials: creds(),
		});
		const failed = r.output('Wait', 1);
		expect(String(failed[0].json.error)).toMatch(/^Task ID: is empty/);
		expect(String(failed[1].json.error)).toMatch(/^Task ID: must be 1 to 200 characters/);
		expect(sim.log).toHaveLength(0);
	});
});

describe('limits and cancellation', () => {
	it('a reference image over 25 MiB is refused with a clear error before sending', async () => {
		const big = Buffer.alloc(26 * 1024 * 1024, 0);
		(await makeImageBytes('png')).copy(big);
		const input = [
			{
				json: {},
				binary: {
					data: { data: big.toString('base64'), mimeType: 'image/png', fileName: 'huge.png' },
				},
			},
		];
		const r = await runWorkflow({
			nodes: [submit({ operation: 'edit' }, { onError: 'continueRegularOutput' })],
			input,
			credentials: creds(),
		});
		expect(String(r.output('Submit')[0].json.error)).toMatch(
			/Reference Binary Properties: binary "data" is 26\.0 MiB; the limit is 25 MiB per image/,
		);
		expect(posts()).toHaveLength(0);
	});

	it('cancelling the execution stops Task Wait polling at once', async () => {
		const slow = await startSimulator({ quiet: true, taskLatencyMs: 60_000, pollAfterMs: 100 });
		try {
			const c = { apiKey: slow.keys.demo, baseUrl: slow.baseUrl };
			const sub = await runWorkflow({ nodes: [submit({})], credentials: c });
			const polls = () => slow.log.filter((l) => l.method === 'GET').length;
			let cancel = () => {};
			const running = runWorkflow({
				nodes: [wait()],
				input: sub.output('Submit'),
				credentials: c,
				onStart: (p) => (cancel = p.cancel),
			});
			// cancelled while it polls: once the gateway has seen two of its queries
			await waitFor(() => polls() >= 2, 'Task Wait polling');
			cancel();
			const r = await running;
			// n8n marks the run cancelled, or records the node's 'Execution cancelled' error: either way it stops
			if (r.run.status !== 'canceled') expect(r.error).toMatch(/cancel/i);
			// a query already on the wire at the cancel may land a moment later (seen on a loaded machine); after that,
			// nothing: a poller still running would query again within its 1 s floor
			await new Promise((res) => setTimeout(res, 300));
			const atCancel = polls();
			expect(atCancel).toBeGreaterThan(1);
			await new Promise((res) => setTimeout(res, 1500));
			expect(polls()).toBe(atCancel);
		} finally {
			await slow.stop();
		}
	});
});
