/**
 * The expected-price hint is looked up beside the first paid request, never before it: with the public price list
 * hanging, the paid POST of Image Submit and of Video Create still leaves at once, and the hint still arrives (the
 * one price look-up of the package, once per execution, within its budget).
 */
import { useSimulator } from '../harness/simulator';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';
import { model } from '../harness/inputs';

/** how long the price list hangs: well under the hint's budget (8 s), so the hint still comes */
const HANG_MS = 2500;

const sim = useSimulator({ quiet: true, seed: 5 }, { reset: true });
afterAll(async () => {
	cleanupBinaryData();
});

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const hintsOf = (r: RunResult, node: string) =>
	(r.run.data.resultData.runData[node]?.[0].hints ?? []).map((h) => h.message);

/** Runs `node` while the price list hangs, and checks its paid POST arrived before the price list answered. */
async function runWhilePricingHangs(node: TestNode): Promise<RunResult> {
	sim.fault({ route: 'GET /api/pricing', kind: 'delay', delayMs: HANG_MS, times: -1 });
	const r = await runWorkflow({ nodes: [node], credentials: creds() });
	expect(r.error).toBeUndefined();
	const post = sim.log.find((l) => l.method === 'POST');
	const pricing = sim.log.find((l) => l.path === '/api/pricing');
	expect(post).toBeDefined();
	// the price list was asked for, and was still hanging when the POST arrived
	expect(pricing).toBeDefined();
	expect(post!.time).toBeLessThan(pricing!.time + HANG_MS);
	return r;
}

it('Image Submit: the paid POST leaves at once while the price list hangs; the hint still arrives', async () => {
	const r = await runWhilePricingHangs({
		name: 'Submit',
		type: new GenGatewayImageSubmit(),
		parameters: {
			operation: 'generate',
			mode: 'async',
			model: model('alpha-image-2.5'),
			prompt: 'a red fox',
			size: '1024x1024',
		},
	});
	expect(hintsOf(r, 'Submit').join(' ')).toMatch(
		/This node: \$0\.03–\$[\d.]+ \(¤16000–¤\d+\) at most .* for 1 call\(s\)/,
	);
});

it('Video Create: the paid POST leaves at once while the price list hangs; the hint still arrives', async () => {
	const r = await runWhilePricingHangs({
		name: 'Create',
		type: new GenGatewayVideoCreate(),
		parameters: {
			family: 'gamma',
			model: model('gamma-video-1.0'),
			prompt: 'a cat',
			gammaSeconds: 8,
			aspectRatio: '16:9',
		},
	});
	expect(hintsOf(r, 'Create').join(' ')).toMatch(/This node: \$0\.24–\$[\d.]+ .* for 1 call\(s\)/);
});

describe('a price list that never ends its answer never holds a paid result', () => {
	it.each([
		['trickles forever', { kind: 'trickle' as const }],
		['never answers', { kind: 'delay' as const, delayMs: 60_000 }],
	])(
		'Chat (streamed, Stream Max Duration 3 s) while /api/pricing %s: the answer comes out with its cost unknown, the price list given up within its own bound',
		async (_, fault) => {
			sim.fault({ route: 'GET /api/pricing', times: -1, ...fault });
			const r = await runWorkflow({
				nodes: [
					{
						name: 'Chat',
						type: new GenGatewayChat(),
						parameters: {
							model: model('alpha-chat-4o'),
							messagesFrom: 'ui',
							messages: { values: [{ role: 'user', content: 'hello' }] },
							stream: true,
							options: { maxDurationMs: 3000 },
						},
					},
				],
				credentials: creds(),
			});
			expect(r.error).toBeUndefined();
			const json = r.output('Chat')[0].json;
			expect(json).toMatchObject({ status: 'completed', text: expect.any(String) });
			// the answer is here and paid; its cost is not known (the price list gave no answer in time) — never 0
			expect(json.cost).toMatchObject({
				status: 'unknown',
				quota: null,
				note: expect.stringMatching(/price list could not be read/),
			});
			expect(sim.log.filter((l) => l.path === '/api/pricing').length).toBeLessThanOrEqual(1);
		},
	);
});
