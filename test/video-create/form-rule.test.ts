/**
 * Issue 35, bullet 3: one rule for both video families. A Seconds (or gamma Aspect Ratio) value outside what the form
 * offers is refused before any paid request unless Options → Send Values Outside the Form is on; the range is under the
 * field (its hint); the delta Seconds field keeps what is typed (no minimum or maximum for the editor to clamp to); and
 * since version 1.1 each family has its own Model field, so switching Family shows that family's first model. The
 * editor's own parameter resolution (n8n-workflow's NodeHelpers.getNodeParameters, which the NDV runs on every change)
 * is asked what a family switch leaves; the browser test (test/e2e/editor.test.ts) shows the same in n8n's editor.
 */
import { NodeHelpers, type INode, type INodeParameters, type INodeProperties } from 'n8n-workflow';
import { useSimulator } from '../harness/simulator';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { DELTA_MODELS, GAMMA_MODELS } from '../../nodes/GenGatewayVideoCreate/actions/schemas';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';

const node = new GenGatewayVideoCreate();
const props = node.description.properties;
const model = (value: string) => ({ __rl: true, mode: 'list', value });

/** What n8n keeps of a node's parameters at a version (defaults added, fields not shown dropped), as the editor does. */
function resolved(parameters: INodeParameters, typeVersion: number): INodeParameters {
	const n = {
		id: 'v',
		name: 'Video',
		type: 'n8n-nodes-gen-gateway.genGatewayVideoCreate',
		typeVersion,
		position: [0, 0],
		parameters,
	} as INode;
	return NodeHelpers.getNodeParameters(props, parameters, true, false, n, node.description) ?? {};
}

describe('the form', () => {
	it("new nodes are version 1.2 (1.1 with the gateway's words in one object); workflows made before keep theirs", () => {
		expect(node.description.version).toEqual([1, 1.1, 1.2]);
		expect(node.description.defaultVersion).toBe(1.2);
	});

	it('delta Seconds keeps what is typed (no minimum or maximum) and says the offered range under the field', () => {
		const seconds = props.find((p) => p.name === 'seconds') as INodeProperties;
		expect(seconds.typeOptions?.maxValue).toBeUndefined();
		expect(seconds.typeOptions?.minValue).toBeUndefined();
		expect(seconds.hint).toMatch(
			/^Offered: 4 to 15 whole seconds \(-1 in Edit Mode\)\. .*Send Values Outside the Form/,
		);
	});

	it('gamma Seconds offers 6, 8, 10, 12 and 15 (no "4 (Unconfirmed Upstream)"), the range under the field', () => {
		const seconds = props.find((p) => p.name === 'gammaSeconds') as INodeProperties;
		expect(
			(seconds.options as Array<{ name: string; value: number }>).map((o) => [o.name, o.value]),
		).toEqual([6, 8, 10, 12, 15].map((s) => [String(s), s]));
		expect(seconds.hint).toMatch(
			/^Offered: 6, 8, 10, 12, 15 seconds\. .*Send Values Outside the Form/,
		);
		expect(
			(
				props.find(
					(p) => p.name === 'aspectRatio' && p.displayOptions?.show?.family?.includes('gamma'),
				) as INodeProperties
			).hint,
		).toMatch(/^Offered: 16:9, 9:16, 1:1\./);
	});

	it("version 1.1: switching Family drops the other family's model, and the family's own field starts at its first model", () => {
		const gamma = resolved({ family: 'gamma', model: model('delta-video-2-0-fast-260128') }, 1.1);
		expect(gamma.model).toBeUndefined();
		expect(gamma.gammaModel).toMatchObject({ value: GAMMA_MODELS[0] });
		const back = resolved({ family: 'delta', gammaModel: model('gamma-video-1.5') }, 1.1);
		expect(back.gammaModel).toBeUndefined();
		expect(back.model).toMatchObject({ value: DELTA_MODELS[0] });
		// version 1 keeps its one Model field for both families
		expect(resolved({ family: 'gamma', model: model('gamma-video-1.5') }, 1)).toMatchObject({
			model: model('gamma-video-1.5'),
		});
		expect(resolved({ family: 'gamma' }, 1).gammaModel).toBeUndefined();
	});

	it('the prompt placeholder has no CJK characters (boxes without a CJK font); the description says what the tokens are', () => {
		const prompt = props.find((p) => p.name === 'prompt') as INodeProperties;
		expect(prompt.placeholder).not.toMatch(/[\u3400-\u9fff]/);
		expect(prompt.description).toMatch(
			/@ \+ 图片 \(image\), 视频 \(video\) or 音频 \(audio\) \+ its number/,
		);
		expect(prompt.description).toMatch(
			/shown as boxes where no CJK font is installed: copy them from the output's materials\[\]\.token/,
		);
	});
});

describe('at run', () => {
	const sim = useSimulator({ quiet: true }, { reset: true });
	afterAll(async () => {
		cleanupBinaryData();
	});
	const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
	const posts = () => sim.log.filter((l) => l.method === 'POST');
	const hints = (r: RunResult) =>
		(r.run.data.resultData.runData.Create?.[0].hints ?? []).map((h) => h.message).join('\n');
	const delta = (p: Record<string, unknown>, typeVersion?: number): TestNode => ({
		name: 'Create',
		type: new GenGatewayVideoCreate(),
		typeVersion,
		parameters: {
			family: 'delta',
			model: model(DELTA_MODELS[0]),
			prompt: 'a paper boat',
			seconds: 5,
			resolution: '480p',
			ratio: '16:9',
			generateAudio: false,
			watermark: false,
			...p,
		},
		onError: 'continueRegularOutput',
	});

	it('delta 20 seconds: refused before any request, the message naming 20 and the option', async () => {
		const r = await runWorkflow({ nodes: [delta({ seconds: 20 })], credentials: creds() });
		expect(r.output('Create')[0].json).toMatchObject({
			status: 'failed',
			failed_at: 'validation',
			submitted: false,
		});
		expect(String(r.output('Create')[0].json.error)).toMatch(
			/^seconds: 20 is outside 4 to 15 seconds \(Options → Send Values Outside the Form sends it anyway\)/,
		);
		expect(posts()).toHaveLength(0);
	});

	it('delta 20 seconds with Send Values Outside the Form: sent as asked, with a hint; the gateway decides', async () => {
		const r = await runWorkflow({
			nodes: [delta({ seconds: 20, options: { sendOutsideForm: true } })],
			credentials: creds(),
		});
		expect(hints(r)).toMatch(
			/delta-video: 20 seconds is not offered by the form \(4 to 15\): sent as asked \(Send Values Outside the Form is on\)/,
		);
		expect(posts()).toHaveLength(1);
		// the simulator keeps the spec's range: a definite refusal (nothing created), which the item says
		expect(r.output('Create')[0].json).toMatchObject({
			status: 'failed',
			failed_at: 'submit',
			http_code: '400',
		});
	});

	it('delta and gamma alike: a value the form offers is sent without a word', async () => {
		const d = await runWorkflow({ nodes: [delta({ seconds: 15 })], credentials: creds() });
		expect(d.output('Create')[0].json.status).toBe('submitted');
		expect(hints(d)).not.toMatch(/not offered/);
		const g = await runWorkflow({
			nodes: [
				{
					...delta({
						family: 'gamma',
						gammaModel: model('gamma-video-1.5'),
						gammaSeconds: 15,
						aspectRatio: '9:16',
					}),
				},
			],
			credentials: creds(),
		});
		expect(g.output('Create')[0].json).toMatchObject({
			status: 'submitted',
			model: 'gamma-video-1.5',
		});
	});

	it('a version 1 workflow keeps its gamma model in model; version 1.1 reads gammaModel', async () => {
		const v1 = await runWorkflow({
			nodes: [
				delta(
					{
						family: 'gamma',
						model: model('gamma-video-1.5'),
						gammaSeconds: 8,
						aspectRatio: '16:9',
					},
					1,
				),
			],
			credentials: creds(),
		});
		expect(v1.output('Create')[0].json).toMatchObject({
			status: 'submitted',
			model: 'gamma-video-1.5',
		});
		const v11 = await runWorkflow({
			nodes: [
				delta({
					family: 'gamma',
					model: model('gamma-video-1.5'),
					gammaSeconds: 8,
					aspectRatio: '16:9',
				}),
			],
			credentials: creds(),
		});
		// the delta field's value is not the gamma node's model: its own field starts at the first gamma model
		expect(v11.output('Create')[0].json).toMatchObject({
			status: 'submitted',
			model: GAMMA_MODELS[0],
		});
	});
});
