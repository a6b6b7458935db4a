/**
 * As AI-agent tools (n8n's context says isToolExecution), Image Submit and Video Create wait for their results,
 * bounded, and return what an agent can use: the images' addresses, types and real pixel sizes (no binary), the
 * video's address. A task ID alone is of no use to an agent.
 */
import { useSimulator } from '../harness/simulator';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { asTool, cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { model } from '../harness/inputs';

const sim = useSimulator(
	{
		quiet: true,
		taskLatencyMs: 300,
		pollAfterMs: 40,
		videoLatencyMs: 300,
	},
	{ reset: true },
);
afterAll(async () => {
	cleanupBinaryData();
});
const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });

describe('as an AI-agent tool', () => {
	it('Image Submit (async) waits and returns the image: address, type and real size, no binary', async () => {
		const r = await runWorkflow({
			nodes: [
				{
					name: 'Tool',
					type: asTool(new GenGatewayImageSubmit()),
					parameters: {
						operation: 'generate',
						mode: 'async',
						model: model('alpha-image-2.5'),
						prompt: 'a fox',
						size: '1536x1024',
					},
				},
			],
			credentials: creds(),
		});
		const [item] = r.output('Tool');
		expect(item.binary).toBeUndefined();
		expect(item.json).toMatchObject({
			status: 'completed',
			prompt: 'a fox',
			task_id: expect.any(String),
			submitted_at_iso: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
		});
		// the submit-time state ("queued") would contradict the completed wait
		expect(item.json).not.toHaveProperty('state');
		const files = item.json.files as Array<Record<string, unknown>>;
		expect(files).toHaveLength(1);
		expect(files[0]).toMatchObject({
			mimeType: expect.stringMatching(/^image\//),
			width: expect.any(Number),
			height: expect.any(Number),
			binaryProperty: null,
		});
		expect((files[0].width as number) > 0 && (files[0].height as number) > 0).toBe(true);
		// what the call cost, so an agent can say it: one call of alpha-image-2.5 at the lowest public group
		expect(item.json.cost).toMatchObject({
			status: 'range',
			basis: 'per call',
			quota: expect.any(Number),
		});
		expect(item.json.cost).toMatchObject({
			group_multiplier_source: null,
			text: expect.any(String),
		});
	});

	it('Image Submit outside an agent still hands back the task at once (no wait unless asked)', async () => {
		const r = await runWorkflow({
			nodes: [
				{
					name: 'Plain',
					type: new GenGatewayImageSubmit(),
					parameters: {
						operation: 'generate',
						mode: 'async',
						model: model('alpha-image-2.5'),
						prompt: 'a fox',
						size: '1536x1024',
					},
				},
			],
			credentials: creds(),
		});
		expect(r.output('Plain')[0].json).not.toHaveProperty('files');
	});

	it('Video Create waits and returns where the video is', async () => {
		const params = {
			family: 'delta',
			model: model('delta-video-2-0-mini-260615'),
			prompt: 'a fox runs',
			seconds: 5,
			resolution: '480p',
			ratio: '16:9',
			generateAudio: false,
			watermark: false,
		};
		const r = await runWorkflow({
			nodes: [{ name: 'Tool', type: asTool(new GenGatewayVideoCreate()), parameters: params }],
			credentials: creds(),
		});
		const [item] = r.output('Tool');
		expect(item.json).toMatchObject({ status: 'completed', task_id: expect.any(String) });
		expect(item.json).not.toHaveProperty('task');
		const files = item.json.files as Array<Record<string, unknown>>;
		expect(files[0].content_path ?? files[0].url).toEqual(expect.any(String));
		// a delta video is priced per video token: the tool says so rather than inventing a figure
		expect(item.json.cost).toMatchObject({ basis: 'per video token' });
		expect(['settled', 'range', 'estimate', 'unknown']).toContain(
			(item.json.cost as { status: string }).status,
		);
	}, 60_000);
});
