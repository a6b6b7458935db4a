/**
 * Gamma-video create body: "`aspect_ratio` (string; 1.0 commonly 16:9, 9:16, 1:1; for 1.5 prefer 16:9 or 9:16)" and
 * "Seconds 6, 8, 10, 12 and 15 are preferred; 4 passes validation but is not confirmed upstream." The form offers the
 * preferred values; one rule for both video families (issue 35): a value outside what the form offers (from an
 * expression) is refused before sending, unless Options → Send Values Outside the Form is on, which sends it with an
 * execution hint. The limits the spec does state (7 references, 1.0 with several references at most 10 s) are refused
 * either way. Video Create in n8n against the simulator.
 */
import { useSimulator } from '../harness/simulator';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { cleanupBinaryData, runWorkflow, type RunResult, type TestNode } from '../harness/workflow';

const sim = useSimulator({ quiet: true, seed: 4 }, { reset: true });
afterAll(async () => {
	cleanupBinaryData();
});

const creds = () => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
const gamma = (p: Record<string, unknown>): TestNode => ({
	name: 'Create',
	type: new GenGatewayVideoCreate(),
	parameters: {
		family: 'gamma',
		gammaModel: { __rl: true, mode: 'id', value: 'gamma-video-1.0' },
		prompt: 'a cat',
		gammaSeconds: 8,
		aspectRatio: '16:9',
		...p,
	},
	onError: 'continueRegularOutput',
});
const hints = (r: RunResult) =>
	(r.run.data.resultData.runData.Create?.[0].hints ?? []).map((h) => h.message).join('\n');
const posts = () => sim.log.filter((l) => l.method === 'POST');

describe('gamma values outside what the form offers: refused before sending, or sent with Send Values Outside the Form', () => {
	it('7 seconds at 4:3 on gamma-video-1.0: refused, naming both fields and the option; nothing sent', async () => {
		const r = await runWorkflow({
			nodes: [gamma({ gammaSeconds: '={{ 7 }}', aspectRatio: '={{ "4:3" }}' })],
			credentials: creds(),
		});
		const error = String(r.output('Create')[0].json.error);
		expect(error).toMatch(
			/seconds: 7 is not one the form offers \(6, 8, 10, 12, 15; Options → Send Values Outside the Form sends it anyway\)/,
		);
		expect(error).toMatch(/aspect_ratio: 4:3 is not one the form offers \(16:9, 9:16, 1:1;/);
		expect(posts()).toHaveLength(0);
	});

	it('the same with Send Values Outside the Form: accepted here and at the gateway, both hinted', async () => {
		const r = await runWorkflow({
			nodes: [
				gamma({
					gammaSeconds: '={{ 7 }}',
					aspectRatio: '={{ "4:3" }}',
					options: { sendOutsideForm: true },
				}),
			],
			credentials: creds(),
		});
		const json = r.output('Create')[0].json;
		expect(json).toMatchObject({ kind: 'video', family: 'gamma', submission_uncertain: false });
		expect(sim.state.tasks.get(String(json.task_id))).toMatchObject({
			family: 'gamma',
			seconds: 7,
		});
		expect(hints(r)).toMatch(
			/7 seconds is not offered by the form \(6, 8, 10, 12, 15\): sent as asked \(Send Values Outside the Form is on\)/,
		);
		expect(hints(r)).toMatch(/aspect ratio 4:3 is not offered by the form/);
		expect(posts()).toHaveLength(1);
	});

	it('gamma-video-1.5 at 1:1 (offered, not preferred) and 20 seconds: refused; with the option sent, hinted', async () => {
		const node = (options: Record<string, unknown>) =>
			gamma({
				gammaModel: { __rl: true, mode: 'id', value: 'gamma-video-1.5' },
				gammaSeconds: '={{ 20 }}',
				aspectRatio: '1:1',
				options,
			});
		const refused = await runWorkflow({ nodes: [node({})], credentials: creds() });
		expect(String(refused.output('Create')[0].json.error)).toMatch(
			/^seconds: 20 is not one the form offers/,
		);
		expect(posts()).toHaveLength(0);
		const r = await runWorkflow({ nodes: [node({ sendOutsideForm: true })], credentials: creds() });
		expect(r.output('Create')[0].json.task_id).toEqual(expect.any(String));
		expect(hints(r)).toMatch(/gamma-video-1\.5: 16:9 or 9:16 are preferred over 1:1/);
		expect(hints(r)).toMatch(/20 seconds is not offered by the form/);
	});

	it('a limit the spec states is still refused before sending: gamma-video-1.0 with several references over 10 s', async () => {
		const r = await runWorkflow({
			nodes: [
				gamma({
					gammaSeconds: '={{ 11 }}',
					imageUrls: 'https://media.example/a.png\nhttps://media.example/b.png',
					options: { sendOutsideForm: true },
				}),
			],
			credentials: creds(),
		});
		expect(String(r.output('Create')[0].json.error)).toMatch(
			/seconds: 11: gamma-video-1\.0 with several reference images allows at most 10 seconds/,
		);
		expect(posts()).toHaveLength(0);
	});
});
