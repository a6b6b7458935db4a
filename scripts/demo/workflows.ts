/**
 * The demo workflows. `npm run demo` runs them in real n8n; `examples/*.json` are generated from here
 * (`npx tsx scripts/demo/workflows.ts`) for import in the n8n editor.
 * Placeholders: credential id REPLACE_CREDENTIAL_ID, output folder /tmp/gen-gateway-demo, inputs /tmp/gen-gateway-demo-input.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const CRED = 'REPLACE_CREDENTIAL_ID';
export const OUT = '/tmp/gen-gateway-demo';
export const INPUT = '/tmp/gen-gateway-demo-input';
const PKG = 'n8n-nodes-gen-gateway';
const creds = { genGatewayApi: { id: CRED, name: 'GenGateway account' } };
const model = (value: string) => ({ __rl: true, mode: 'id', value });

type N = { name: string; type: string; typeVersion: number; parameters: Record<string, unknown>; credentials?: unknown };
type Conn = Array<[string, number, string]>;

export interface DemoWorkflow {
	id: string;
	name: string;
	description: string;
	/** nodes whose output the demo checks: [node, output index, minimum items] */
	expect: Array<[string, number, number]>;
	/** subfolder of OUT the workflow writes into */
	folder: string;
	nodes: N[];
	conn: Conn;
}

const trigger: N = { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} };
const write = (name: string, folder: string, fileExpr: string): N => ({
	name,
	type: 'n8n-nodes-base.readWriteFile',
	typeVersion: 1,
	parameters: { operation: 'write', fileName: `=${OUT}/${folder}/${fileExpr}`, dataPropertyName: 'data', options: {} },
});
const ours = (name: string, type: string, parameters: Record<string, unknown>): N => ({ name, type: `${PKG}.${type}`, typeVersion: 1, parameters, credentials: creds });
const toText = (name: string, prop: string, fileName: string): N => ({ name, type: 'n8n-nodes-base.convertToFile', typeVersion: 1.1, parameters: { operation: 'toText', sourceProperty: prop, options: { fileName } } });

export const WORKFLOWS: DemoWorkflow[] = [
	{
		id: 'ggdemo01',
		name: 'GenGateway: text to image → wait → files',
		description: 'Submits a text-to-image task, waits for it with Task Wait and writes the images to disk.',
		folder: 'text-to-image',
		expect: [['Image Submit', 0, 2], ['Task Wait', 0, 2]],
		nodes: [
			trigger,
			{ name: 'Prompts', type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode: "return [{json:{prompt:'a lighthouse at dawn, watercolor'}},{json:{prompt:'a red fox in fresh snow, photo'}}];" } },
			ours('Image Submit', 'genGatewayImageSubmit', { operation: 'generate', mode: 'async', model: model('alpha-image-2.5'), prompt: '={{ $json.prompt }}', size: '1536x1024' }),
			ours('Task Wait', 'genGatewayTaskWait', { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} }),
			write('Write Image', 'text-to-image', '{{ $json.task_id }}.{{ $binary.data.fileExtension }}'),
		],
		conn: [['Start', 0, 'Prompts'], ['Prompts', 0, 'Image Submit'], ['Image Submit', 0, 'Task Wait'], ['Task Wait', 0, 'Write Image']],
	},
	{
		id: 'ggdemo02',
		name: 'GenGateway: image edit from a file on disk',
		description: 'Reads a PNG from disk, sends it as a multipart edit, waits, writes the result.',
		folder: 'image-edit',
		expect: [['Image Submit', 0, 1], ['Task Wait', 0, 1]],
		nodes: [
			trigger,
			{ name: 'Read Input', type: 'n8n-nodes-base.readWriteFile', typeVersion: 1, parameters: { fileSelector: `${INPUT}/input.png`, options: {} } },
			ours('Image Submit', 'genGatewayImageSubmit', { operation: 'edit', mode: 'async', model: model('alpha-image-2.5'), prompt: 'make it look like an oil painting, keep the composition', size: '1024x1024', referenceBinaries: 'data', editEncoding: 'multipart' }),
			ours('Task Wait', 'genGatewayTaskWait', { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: {} }),
			write('Write Image', 'image-edit', 'edited-{{ $json.task_id }}.{{ $binary.data.fileExtension }}'),
		],
		conn: [['Start', 0, 'Read Input'], ['Read Input', 0, 'Image Submit'], ['Image Submit', 0, 'Task Wait'], ['Task Wait', 0, 'Write Image']],
	},
	{
		id: 'ggdemo03',
		name: 'GenGateway: native image (beta, generateContent)',
		description: 'Native content-parts call: the image comes back in the same response, no task.',
		folder: 'native-image',
		expect: [['Image Submit', 0, 1]],
		nodes: [
			trigger,
			ours('Image Submit', 'genGatewayImageSubmit', { operation: 'generate', mode: 'native', model: model('beta-3.1-flash-image-preview-1k'), prompt: 'a tiny robot watering a bonsai', aspectRatio: '16:9' }),
			write('Write Image', 'native-image', 'native.{{ $binary.data.fileExtension }}'),
		],
		conn: [['Start', 0, 'Image Submit'], ['Image Submit', 0, 'Write Image']],
	},
	{
		id: 'ggdemo04',
		name: 'GenGateway: delta video with reference images → wait → file',
		description: 'A delta-video task with two reference images (named @图片1, @图片2 in the prompt), waited and saved as MP4.',
		folder: 'delta-video',
		expect: [['Video Create', 0, 1], ['Task Wait', 0, 1]],
		nodes: [
			trigger,
			ours('Video Create', 'genGatewayVideoCreate', {
				family: 'delta',
				model: model('delta-video-2-0-mini-260615'),
				prompt: 'the cat from @图片1 walks into the garden of @图片2',
				seconds: 5,
				resolution: '480p',
				ratio: 'adaptive',
				generateAudio: false,
				watermark: false,
				referenceImages: 'https://media.example/cat.png\nhttps://media.example/garden.jpg',
			}),
			ours('Task Wait', 'genGatewayTaskWait', { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: { videoIntervalMs: 1000 } }),
			write('Write Video', 'delta-video', '{{ $json.task_id }}.mp4'),
		],
		conn: [['Start', 0, 'Video Create'], ['Video Create', 0, 'Task Wait'], ['Task Wait', 0, 'Write Video']],
	},
	{
		id: 'ggdemo05',
		name: 'GenGateway: gamma video → wait → file',
		description: 'A gamma-video task; Task Wait understands every gamma response shape.',
		folder: 'gamma-video',
		expect: [['Video Create', 0, 1], ['Task Wait', 0, 1]],
		nodes: [
			trigger,
			ours('Video Create', 'genGatewayVideoCreate', { family: 'gamma', model: model('gamma-video-1.5'), prompt: 'waves rolling onto a beach at sunset', gammaSeconds: 8, aspectRatio: '16:9' }),
			ours('Task Wait', 'genGatewayTaskWait', { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: { videoIntervalMs: 1000 } }),
			write('Write Video', 'gamma-video', '{{ $json.task_id }}.mp4'),
		],
		conn: [['Start', 0, 'Video Create'], ['Video Create', 0, 'Task Wait'], ['Task Wait', 0, 'Write Video']],
	},
	{
		id: 'ggdemo06',
		name: 'GenGateway: chat (streamed) → text file',
		description: 'A streamed chat completion joined into one answer and saved as text.',
		folder: 'chat',
		expect: [['Chat', 0, 1]],
		nodes: [
			trigger,
			ours('Chat', 'genGatewayChat', { model: model('alpha-chat-4o'), messagesFrom: 'ui', messages: { values: [{ role: 'system', content: 'You answer in one short paragraph.' }, { role: 'user', content: 'Why do paid APIs need idempotency?' }] }, stream: true, options: {} }),
			toText('To Text', 'text', 'chat.txt'),
			write('Write Text', 'chat', 'chat.txt'),
		],
		conn: [['Start', 0, 'Chat'], ['Chat', 0, 'To Text'], ['To Text', 0, 'Write Text']],
	},
	{
		id: 'ggdemo07',
		name: 'GenGateway: responses → text file',
		description: 'The Responses API; text read from output[].content[].',
		folder: 'responses',
		expect: [['Responses', 0, 1]],
		nodes: [
			trigger,
			ours('Responses', 'genGatewayResponses', { model: model('alpha-chat-4o-mini'), input: 'Write a haiku about polling.', stream: false, options: {} }),
			toText('To Text', 'text', 'responses.txt'),
			write('Write Text', 'responses', 'responses.txt'),
		],
		conn: [['Start', 0, 'Responses'], ['Responses', 0, 'To Text'], ['To Text', 0, 'Write Text']],
	},
	{
		id: 'ggdemo08',
		name: 'GenGateway: pricing report → CSV',
		description: 'Public prices in the display currency, lowest public group per model, as a CSV table.',
		folder: 'pricing',
		expect: [['Pricing', 0, 5]],
		nodes: [
			trigger,
			ours('Pricing', 'genGatewayPricing', { operation: 'getPrices' }),
			{ name: 'To CSV', type: 'n8n-nodes-base.convertToFile', typeVersion: 1.1, parameters: { operation: 'csv', options: { fileName: 'prices.csv' } } },
			write('Write CSV', 'pricing', 'prices.csv'),
		],
		conn: [['Start', 0, 'Pricing'], ['Pricing', 0, 'To CSV'], ['To CSV', 0, 'Write CSV']],
	},
	{
		id: 'ggdemo09',
		name: 'GenGateway: long job loop (Wait node, no worker held)',
		description: 'Submit, keep the task ID, let Task Wait hand back Still Running quickly, loop through n8n\'s Wait node until done.',
		folder: 'wait-loop',
		expect: [['Image Submit', 0, 1], ['Task Wait', 0, 1]],
		nodes: [
			trigger,
			ours('Image Submit', 'genGatewayImageSubmit', { operation: 'generate', mode: 'async', model: model('alpha-image-2'), prompt: 'an isometric city block at night', size: '1024x1024' }),
			ours('Task Wait', 'genGatewayTaskWait', { taskId: '={{ $json.task_id }}', taskKind: 'auto', options: { maxWaitSeconds: 1 } }),
			{ name: 'Wait', type: 'n8n-nodes-base.wait', typeVersion: 1.1, parameters: { resume: 'timeInterval', amount: 2, unit: 'seconds' } },
			write('Write Image', 'wait-loop', '{{ $json.task_id }}.{{ $binary.data.fileExtension }}'),
		],
		conn: [['Start', 0, 'Image Submit'], ['Image Submit', 0, 'Task Wait'], ['Task Wait', 0, 'Write Image'], ['Task Wait', 2, 'Wait'], ['Wait', 0, 'Task Wait']],
	},
];

/** n8n workflow JSON for a demo workflow. */
export function toN8n(w: DemoWorkflow): Record<string, unknown> {
	const nodes = w.nodes.map((n, k) => ({ id: `${w.id}-n${k}`, position: [k * 240, (k % 2) * 40], ...n }));
	const connections: Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }> = {};
	for (const [from, out, to] of w.conn) {
		connections[from] ??= { main: [] };
		while (connections[from].main.length <= out) connections[from].main.push([]);
		connections[from].main[out].push({ node: to, type: 'main', index: 0 });
	}
	return { id: w.id, name: w.name, active: false, nodes, connections, settings: { executionOrder: 'v1' }, meta: { description: w.description }, pinData: {} };
}

if (require.main === module) {
	for (const w of WORKFLOWS) writeFileSync(join(__dirname, '../../examples', `${w.folder}.json`), JSON.stringify(toN8n(w), null, 2) + '\n');
	console.log(`wrote ${WORKFLOWS.length} workflows to examples/`);
}
