/**
 * The model list and the rules agree: an image model the package has no rules for (the gateway adds models) is sent
 * as given, with an execution hint saying so, instead of being refused; the retired 'special' series and models that
 * are not image models are refused before anything is sent, naming the field.
 */
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { cleanupBinaryData, runWorkflow, type TestNode } from '../harness/workflow';
import { json, scriptedServer, type ScriptedServer } from '../harness/scripted-server';
import { model } from '../harness/inputs';

let server: ScriptedServer;
beforeEach(async () => {
	server = await scriptedServer((req, res) =>
		req.method === 'POST'
			? json(res, 200, { task_id: 'task_new_model', status: 'queued' })
			: json(res, 404, { error: { message: 'not here' } }),
	);
});
afterEach(() => server.close());
afterAll(() => cleanupBinaryData());

const submit = (id: string, size = '1344x768'): TestNode => ({
	name: 'Image',
	type: new GenGatewayImageSubmit(),
	parameters: { operation: 'generate', mode: 'async', model: model(id), prompt: 'a cat', size },
	onError: 'continueRegularOutput',
});
const run = (node: TestNode) =>
	runWorkflow({
		nodes: [node],
		credentials: { apiKey: 'sk-unknown-model-123456', baseUrl: server.url },
	});

describe('image models the package has no rules for', () => {
	it('are sent as given (any size), with a hint that the gateway decides', async () => {
		const r = await run(submit('alpha-image-3-preview'));
		expect(server.posts()).toHaveLength(1);
		expect(JSON.parse(server.posts()[0].body)).toMatchObject({
			model: 'alpha-image-3-preview',
			size: '1344x768',
		});
		expect(r.output('Image')[0].json).toMatchObject({
			task_id: 'task_new_model',
			model: 'alpha-image-3-preview',
			prompt: 'a cat',
		});
		const hints = (r.run.data.resultData.runData.Image[0].hints ?? []).map((h) => h.message);
		expect(hints).toContainEqual(
			expect.stringMatching(
				/^alpha-image-3-preview: this package has no local rules for this model/,
			),
		);
	});

	it.each([
		[
			'beta-2.5-special-image-preview',
			/^model: beta-2\.5-special-image-preview belongs to the retired 'special' beta series/,
		],
		['alpha-chat-4o', /^model: alpha-chat-4o is not an image model/],
	])('%s is refused before anything is sent', async (id, message) => {
		const r = await run(submit(id));
		expect(server.posts()).toHaveLength(0);
		expect(String(r.output('Image')[0].json.error)).toMatch(message);
	});
});
