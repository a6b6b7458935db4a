/**
 * What users copy follows the spec: the shipped examples poll videos every 3 to 5 s ("poll every 3 to 5 seconds with
 * a deadline"), and the demo takes its language models from the key's list ("GET /v1/models is the authority for a
 * key"; the spec names no language model).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { INodeProperties } from 'n8n-workflow';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { keyModelIds, textModelsOfKey } from '../../scripts/demo/models';
import {
	loadExample,
	pickTextModel,
	toN8n,
	useKeyTextModels,
	WORKFLOWS,
} from '../../scripts/demo/workflows';
import { PIPELINE } from '../../scripts/pipeline/workflows';
import { startGateway, type FakeGateway } from './support/gateway';

const ROOT = join(__dirname, '../..');
type Wf = { nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }> };
const example = (folder: string) =>
	JSON.parse(readFileSync(join(ROOT, 'examples', `${folder}.json`), 'utf8')) as Wf;

describe('the shipped examples', () => {
	it('are the generated demo workflows', () => {
		for (const w of WORKFLOWS)
			expect(example(w.folder)).toEqual(JSON.parse(JSON.stringify(toN8n(w))));
	});

	it('are all generated: each workflow file of examples/ is a demo or pipeline workflow', () => {
		const files = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.json'));
		expect(files.sort()).toEqual([...WORKFLOWS, ...PIPELINE].map((w) => `${w.folder}.json`).sort());
	});

	it("poll videos every 3 to 5 s (an unset option is Task Wait's default)", () => {
		const options = new GenGatewayTaskWait().description.properties.find(
			(p) => p.name === 'options',
		)!.options as INodeProperties[];
		const fallback = options.find((o) => o.name === 'videoIntervalMs')!.default as number;
		const waits = WORKFLOWS.flatMap((w) =>
			example(w.folder)
				.nodes.filter((n) => n.type.endsWith('.genGatewayTaskWait'))
				.map((n) => ({ folder: w.folder, n })),
		);
		expect(waits.map((x) => x.folder)).toEqual(
			expect.arrayContaining(['delta-video', 'gamma-video']),
		);
		for (const { folder, n } of waits) {
			const ms = (n.parameters.options as { videoIntervalMs?: number }).videoIntervalMs ?? fallback;
			expect([folder, ms >= 3000 && ms <= 5000]).toEqual([folder, true]);
		}
	});
});

describe("the demo's language models come from the key's list", () => {
	it("pickTextModel: the example's model if listed, else a language model of the key (same vendor stem first)", () => {
		expect(pickTextModel('alpha-chat-4o', ['alpha-chat-4o', 'zeta-1'])).toBe('alpha-chat-4o');
		expect(
			pickTextModel('alpha-chat-4o', [
				'text-embedding-3',
				'zeta-llm',
				'alpha-image-2',
				'alpha-text-x',
				'delta-video-2-0-mini-260615',
			]),
		).toBe('alpha-text-x');
		expect(
			pickTextModel('alpha-chat-4o', ['whisper-1', 'zeta-llm', 'beta-3-pro-image-preview']),
		).toBe('zeta-llm');
		expect(pickTextModel('alpha-chat-4o', ['alpha-image-2', 'tts-1'])).toBeUndefined();
	});

	it('useKeyTextModels replaces only the missing models of Chat, Responses and the Chat Model, and says which it picked', () => {
		const subst = { outDir: '/tmp/o', inputDir: '/tmp/i' };
		const chat = loadExample('chat', subst) as unknown as Wf;
		expect(useKeyTextModels(chat, ['alpha-chat-4o'])).toEqual([]);
		expect(useKeyTextModels(chat, ['omega-large', 'omega-small'])).toEqual([
			"Chat: alpha-chat-4o is not among the key's models, using omega-large",
		]);
		expect(chat.nodes.find((n) => n.name === 'Chat')!.parameters.model).toEqual({
			__rl: true,
			mode: 'id',
			value: 'omega-large',
		});
		const agent = loadExample('agent', subst) as unknown as Wf;
		expect(useKeyTextModels(agent, ['omega-large'])).toEqual([
			"GenGateway Chat Model: alpha-chat-4o is not among the key's models, using omega-large",
		]);
		const images = loadExample('text-to-image', subst) as unknown as Wf;
		const before = JSON.stringify(images);
		expect(useKeyTextModels(images, ['omega-large'])).toEqual([]);
		expect(JSON.stringify(images)).toBe(before);
	});

	describe('against a gateway whose language models are named differently', () => {
		let gw: FakeGateway;
		beforeAll(async () => {
			gw = await startGateway();
		});
		afterAll(() => gw.stop());
		beforeEach(() => gw.reset());

		it('asks GET /v1/models with the key and points Chat and Responses at a model it lists', async () => {
			gw.on('GET', /^\/v1\/models$/, () => ({
				json: {
					object: 'list',
					data: ['vendor-llm-large', 'vendor-embedding-1', 'alpha-image-2.5'].map((id) => ({ id })),
				},
			}));
			expect(await keyModelIds(`${gw.baseUrl}/v1/`, 'sk-spec-test')).toEqual([
				'vendor-llm-large',
				'vendor-embedding-1',
				'alpha-image-2.5',
			]);
			const lines: string[] = [];
			const use = await textModelsOfKey(gw.baseUrl, 'sk-spec-test', (l) => lines.push(l));
			const subst = { outDir: '/tmp/o', inputDir: '/tmp/i' };
			const chat = use(loadExample('chat', subst), 'chat') as unknown as Wf;
			const responses = use(loadExample('responses', subst), 'responses') as unknown as Wf;
			expect(
				(chat.nodes.find((n) => n.name === 'Chat')!.parameters.model as { value: string }).value,
			).toBe('vendor-llm-large');
			expect(
				(responses.nodes.find((n) => n.name === 'Responses')!.parameters.model as { value: string })
					.value,
			).toBe('vendor-llm-large');
			expect(lines).toEqual([
				"[demo] chat: Chat: alpha-chat-4o is not among the key's models, using vendor-llm-large",
				"[demo] responses: Responses: alpha-chat-4o-mini is not among the key's models, using vendor-llm-large",
			]);
			expect(gw.hits('GET', /^\/v1\/models$/).every((h) => h.auth)).toBe(true);
		});

		it("keeps the examples' models, and says so, when the list cannot be read", async () => {
			gw.on('GET', /^\/v1\/models$/, () => ({
				status: 401,
				json: { error: { message: 'bad key' } },
			}));
			const lines: string[] = [];
			const use = await textModelsOfKey(gw.baseUrl, 'sk-wrong', (l) => lines.push(l));
			const chat = use(
				loadExample('chat', { outDir: '/tmp/o', inputDir: '/tmp/i' }),
				'chat',
			) as unknown as Wf;
			expect(
				(chat.nodes.find((n) => n.name === 'Chat')!.parameters.model as { value: string }).value,
			).toBe('alpha-chat-4o');
			expect(lines).toEqual([
				"[demo] GET /v1/models failed (HTTP 401): the examples' language models are kept",
			]);
		});
	});
});
