/**
 * The demo workflows. `npm run demo` runs the files of `examples/` (the ones users import in the n8n editor);
 * those files are generated from here (`npx tsx scripts/demo/workflows.ts`), and the e2e test checks they agree.
 * Placeholders in the files: credential id REPLACE_CREDENTIAL_ID, output folder /tmp/gen-gateway-demo, input
 * folder /tmp/gen-gateway-demo-input. Besides the workflows, this file says what each run must produce.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { familyOf, isRetired } from '../../nodes/shared/models';

export const CRED = 'REPLACE_CREDENTIAL_ID';
export const OUT = '/tmp/gen-gateway-demo';
export const INPUT = '/tmp/gen-gateway-demo-input';
/** delta-video reference images of the example; GATEWAY_DEMO_REFERENCE_IMAGES replaces them for a real gateway */
export const REFERENCE_IMAGES = [
	'https://media.example/cat.png',
	'https://media.example/garden.jpg',
];
const PKG = 'n8n-nodes-gen-gateway';
const creds = { genGatewayApi: { id: CRED, name: 'GenGateway account' } };
const model = (value: string) => ({ __rl: true, mode: 'id', value });

export type N = {
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
	credentials?: unknown;
	onError?: string;
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	at?: [number, number];
};
/** AI sub-nodes connect to their root node by these types instead of `main` */
export type ConnType = 'main' | 'ai_languageModel' | 'ai_tool' | 'ai_outputParser';
/** [from, output, to] (main), [from, 0, to, type] for a sub-node, or [from, output, to, 'main', input] for a node
 * with several inputs (Merge) */
export type Conn = Array<
	| [string, number, string]
	| [string, number, string, ConnType]
	| [string, number, string, 'main', number]
>;

/** What the file-writing step must have written: one file per item of `from`, checked against that node's output. */
export interface WriteCheck {
	/** the Read/Write Files node */
	node: string;
	/** the node whose items it writes (its output 0) */
	from: string;
	/** image/video: sizes and pixels as the node reported them; text: the node's `text`; csv: one row per item */
	kind: 'image' | 'video' | 'text' | 'csv';
	files: number;
	/** text: the JSON field of `from` that holds the text (default `text`) */
	field?: string;
}

export interface DemoWorkflow {
	id: string;
	name: string;
	description: string;
	/** subfolder of OUT the workflow writes into, and the workflow's name in out/summary.json */
	folder: string;
	/** our nodes, in order, and how many items each must put on its first output (`atLeast`: or more; none on
	 * another output, none with an error or an uncertain submission); `streamed`: the answer must have come as a stream;
	 * `turns`: an AI sub-node, whose runs (one per model turn) are counted instead of items; `refused`: every item must
	 * come out refused by Max Expected Spend before any request (`budget`: failed_at "budget", submitted false; `cap`: an
	 * AI Agent's item whose error is its Chat Model's refusal of a model turn); `answer`: the
	 * step is judged by what it answered (its write field, e.g. the agent's `output`), whatever turns it took */
	steps: Array<{
		node: string;
		items: number;
		atLeast?: boolean;
		streamed?: boolean;
		turns?: boolean;
		refused?: 'budget' | 'cap';
		answer?: RegExp;
		/** each item's answer (its write field) in item order: item k's must match answers[k] and no other's */
		answers?: RegExp[];
		/** the step's outcome rests on the workflow's `beyondSpec` (the other steps on what the spec promises) */
		beyondSpec?: true;
	}>;
	/**
	 * What the workflow needs of a gateway that the spec does not define (chat request fields beyond model, messages and
	 * stream are "not shown"). Against a gateway not known to give it (any but the embedded simulator), a `beyondSpec`
	 * step and the written file that failed while every other step did what the spec promises are skipped with this
	 * reason and what happened; against the embedded simulator they are judged as every step.
	 */
	beyondSpec?: string;
	write: WriteCheck;
	/** long-job loop: `node` must run more than once and `wait` at least once (checked against the embedded simulator) */
	loop?: { node: string; wait: string };
	/** the execution's custom data (read from n8n's database) must record what this node's items cost */
	spend?: { node: string };
	/** the oldest n8n major version that can run it, and what the demo's summary says elsewhere */
	needs?: { n8nMajor: number; why: string };
	/** runs with no other workflow beside it: its gateway requests are judged by its execution's time window
	 * (test/e2e/demo.test.ts), which another workflow's requests would blur */
	alone?: true;
	/** runs in `n8n start` after the other workflows (scripts/demo/server.ts): `approve` is started by `n8n execute`,
	 * stops at its Wait node's form and is answered over n8n's form endpoint; `report` is the spend report, published
	 * with its Schedule Trigger ticking and reading the executions through n8n's public API */
	server?: 'approve' | 'report';
	/** sticky note shown in the editor */
	note: string;
	nodes: N[];
	conn: Conn;
}

const trigger: N = {
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	parameters: {},
};
const write = (name: string, folder: string, fileExpr: string): N => ({
	name,
	type: 'n8n-nodes-base.readWriteFile',
	typeVersion: 1,
	parameters: {
		operation: 'write',
		fileName: `=${OUT}/${folder}/${fileExpr}`,
		dataPropertyName: 'data',
		options: {},
	},
});
const ours = (name: string, type: string, parameters: Record<string, unknown>): N => ({
	name,
	type: `${PKG}.${type}`,
	typeVersion: 1,
	parameters,
	credentials: creds,
});
/** Video Create as the node panel drops it today (version 1.1: a gamma node's model is its own field, gammaModel) */
const videoCreate = (parameters: Record<string, unknown>): N => ({
	...ours('Video Create', 'genGatewayVideoCreate', parameters),
	typeVersion: 1.1,
});
const toText = (name: string, prop: string, fileName: string): N => ({
	name,
	type: 'n8n-nodes-base.convertToFile',
	typeVersion: 1.1,
	parameters: { operation: 'toText', sourceProperty: prop, options: { fileName } },
});
/** n8n's AI Agent (version 3.1) asked `text`, with its options (the system message) and node settings */
const agent = (
	text: string,
	options: Record<string, unknown>,
	more: { parameters?: Record<string, unknown> } & Partial<Omit<N, 'parameters'>> = {},
): N => {
	const { parameters, ...settings } = more;
	return {
		name: 'AI Agent',
		type: '@n8n/n8n-nodes-langchain.agent',
		typeVersion: 3.1,
		...settings,
		parameters: { promptType: 'define', text, ...parameters, options },
	};
};
const CALCULATOR_SYSTEM = 'You are a careful assistant. Use the calculator for arithmetic.';
/** the agent of the Calculator examples: asked 12 × 7 */
const calculatorAgent = (settings: Partial<N> = {}): N =>
	agent('What is 12 * 7?', { systemMessage: CALCULATOR_SYSTEM }, settings);
/** n8n's Calculator tool, at its place under the agent */
const calculator = (at: [number, number]): N => ({
	name: 'Calculator',
	type: '@n8n/n8n-nodes-langchain.toolCalculator',
	typeVersion: 1,
	parameters: {},
	at,
});
const CHAT_MODEL = 'GenGateway Chat Model';
/** the GenGateway Chat Model running `id`, at its place under its root node */
const chatModel = (id: string, options: Record<string, unknown>, at: [number, number]): N => ({
	...ours(CHAT_MODEL, 'lmChatGenGateway', { model: model(id), options }),
	at,
});
/** Start → `root` (with `sub`, the Chat Model and its tools, hanging under it) → To Text → Write Answer in `folder` */
const answerToFile = (folder: string, root: N, sub: N[], subConn: Conn) => ({
	nodes: [
		trigger,
		root,
		...sub,
		{ ...toText('To Text', 'output', 'answer.txt'), at: [2.5, 0] as [number, number] },
		{ ...write('Write Answer', folder, 'answer.txt'), at: [3.5, 0] as [number, number] },
	],
	conn: [
		['Start', 0, root.name],
		...subConn,
		[root.name, 0, 'To Text'],
		['To Text', 0, 'Write Answer'],
	] as Conn,
});
/** the schema of the structured-output example (the Chat Model's JSON Schema and the Structured Output Parser's) */
export const STRUCTURED_SCHEMA = JSON.stringify(
	{
		type: 'object',
		properties: {
			answer: { type: 'string' },
			confidence: { type: 'number', minimum: 0, maximum: 1 },
		},
		required: ['answer', 'confidence'],
		additionalProperties: false,
	},
	null,
	2,
);
const writesTo = (folder: string) =>
	`Files go to \`${OUT}/${folder}/\`: n8n 2.x writes only inside \`N8N_RESTRICT_FILE_ACCESS_TO\` (default \`~/.n8n-files\`), so change the path in the last node or allow that folder.`;

export const WORKFLOWS: DemoWorkflow[] = [
	{
		id: 'ggdemo01',
		name: 'GenGateway: text to image → wait → files',
		description:
			'Submits a text-to-image task, waits for it with Task Wait and writes the images to disk.',
		folder: 'text-to-image',
		steps: [
			{ node: 'Image Submit', items: 2 },
			{ node: 'Task Wait', items: 2 },
		],
		write: { node: 'Write Image', from: 'Task Wait', kind: 'image', files: 2 },
		note: `## Text to image\nTwo prompts → **Image Submit** (async task, one paid POST per item) → **Task Wait** polls both tasks at once and downloads the images into binary \`data\` (real pixel size in the JSON) → files.\n\n${writesTo('text-to-image')}`,
		nodes: [
			trigger,
			{
				name: 'Prompts',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				parameters: {
					jsCode:
						"return [{json:{prompt:'a lighthouse at dawn, watercolor'}},{json:{prompt:'a red fox in fresh snow, photo'}}];",
				},
			},
			ours('Image Submit', 'genGatewayImageSubmit', {
				operation: 'generate',
				mode: 'async',
				model: model('alpha-image-2.5'),
				prompt: '={{ $json.prompt }}',
				size: '1536x1024',
			}),
			ours('Task Wait', 'genGatewayTaskWait', {
				taskId: '={{ $json.task_id }}',
				taskKind: 'auto',
				options: {},
			}),
			write('Write Image', 'text-to-image', '{{ $json.task_id }}.{{ $binary.data.fileExtension }}'),
		],
		conn: [
			['Start', 0, 'Prompts'],
			['Prompts', 0, 'Image Submit'],
			['Image Submit', 0, 'Task Wait'],
			['Task Wait', 0, 'Write Image'],
		],
	},
	{
		id: 'ggdemo02',
		name: 'GenGateway: image edit from a file on disk',
		description: 'Reads a PNG from disk, sends it as a multipart edit, waits, writes the result.',
		folder: 'image-edit',
		steps: [
			{ node: 'Image Submit', items: 1 },
			{ node: 'Task Wait', items: 1 },
		],
		write: { node: 'Write Image', from: 'Task Wait', kind: 'image', files: 1 },
		note: `## Image edit from a file on disk\n**Read Input** loads \`${INPUT}/input.png\` (put your own picture there, or change the path) → **Image Submit** *Edit* sends it as a multipart upload → **Task Wait** → file.\n\n${writesTo('image-edit')}`,
		nodes: [
			trigger,
			{
				name: 'Read Input',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				parameters: { fileSelector: `${INPUT}/input.png`, options: {} },
			},
			ours('Image Submit', 'genGatewayImageSubmit', {
				operation: 'edit',
				mode: 'async',
				model: model('alpha-image-2.5'),
				prompt: 'make it look like an oil painting, keep the composition',
				size: '1024x1024',
				referenceBinaries: 'data',
				editEncoding: 'multipart',
			}),
			ours('Task Wait', 'genGatewayTaskWait', {
				taskId: '={{ $json.task_id }}',
				taskKind: 'auto',
				options: {},
			}),
			write(
				'Write Image',
				'image-edit',
				'edited-{{ $json.task_id }}.{{ $binary.data.fileExtension }}',
			),
		],
		conn: [
			['Start', 0, 'Read Input'],
			['Read Input', 0, 'Image Submit'],
			['Image Submit', 0, 'Task Wait'],
			['Task Wait', 0, 'Write Image'],
		],
	},
	{
		id: 'ggdemo03',
		name: 'GenGateway: native image (beta, generateContent)',
		description: 'Native content-parts call: the image comes back in the same response, no task.',
		folder: 'native-image',
		steps: [{ node: 'Image Submit', items: 1 }],
		write: { node: 'Write Image', from: 'Image Submit', kind: 'image', files: 1 },
		note: `## Native image (beta)\n**Image Submit** in *Native* mode calls \`/v1beta/models/{model}:generateContent\`: no task, the image comes back in the answer (aspect ratio 16:9, tier from the model suffix).\n\n${writesTo('native-image')}`,
		nodes: [
			trigger,
			ours('Image Submit', 'genGatewayImageSubmit', {
				operation: 'generate',
				mode: 'native',
				model: model('beta-3.1-flash-image-preview-1k'),
				prompt: 'a tiny robot watering a bonsai',
				aspectRatio: '16:9',
			}),
			write('Write Image', 'native-image', 'native.{{ $binary.data.fileExtension }}'),
		],
		conn: [
			['Start', 0, 'Image Submit'],
			['Image Submit', 0, 'Write Image'],
		],
	},
	{
		id: 'ggdemo04',
		name: 'GenGateway: delta video with reference images → wait → file',
		description:
			'A delta-video task with two reference images (named @图片1, @图片2 in the prompt), waited and saved as MP4.',
		folder: 'delta-video',
		steps: [
			{ node: 'Video Create', items: 1 },
			{ node: 'Task Wait', items: 1 },
		],
		write: { node: 'Write Video', from: 'Task Wait', kind: 'video', files: 1 },
		note: `## Delta video with reference images\n**Video Create** (delta family) with two public HTTPS reference images, named \`@图片1\` and \`@图片2\` in the prompt, ratio *adaptive* → **Task Wait** streams the MP4 into n8n's binary store → file.\n\nReplace the two example image addresses with images of your own (public HTTPS, no login).\n\n${writesTo('delta-video')}`,
		nodes: [
			trigger,
			videoCreate({
				family: 'delta',
				model: model('delta-video-2-0-mini-260615'),
				prompt: 'the cat from @图片1 walks into the garden of @图片2',
				seconds: 5,
				resolution: '480p',
				ratio: 'adaptive',
				generateAudio: false,
				watermark: false,
				referenceImages: REFERENCE_IMAGES.join('\n'),
			}),
			ours('Task Wait', 'genGatewayTaskWait', {
				taskId: '={{ $json.task_id }}',
				taskKind: 'auto',
				options: {},
			}),
			write('Write Video', 'delta-video', '{{ $json.task_id }}.mp4'),
		],
		conn: [
			['Start', 0, 'Video Create'],
			['Video Create', 0, 'Task Wait'],
			['Task Wait', 0, 'Write Video'],
		],
	},
	{
		id: 'ggdemo05',
		name: 'GenGateway: gamma video → wait → file',
		description: 'A gamma-video task; Task Wait understands every gamma response shape.',
		folder: 'gamma-video',
		steps: [
			{ node: 'Video Create', items: 1 },
			{ node: 'Task Wait', items: 1 },
		],
		write: { node: 'Write Video', from: 'Task Wait', kind: 'video', files: 1 },
		note: `## Gamma video\n**Video Create** (gamma family, 8 s, 16:9) → **Task Wait** reads every gamma answer shape and downloads the hosted MP4 without your key → file.\n\n${writesTo('gamma-video')}`,
		nodes: [
			trigger,
			videoCreate({
				family: 'gamma',
				gammaModel: model('gamma-video-1.5'),
				prompt: 'waves rolling onto a beach at sunset',
				gammaSeconds: 8,
				aspectRatio: '16:9',
			}),
			ours('Task Wait', 'genGatewayTaskWait', {
				taskId: '={{ $json.task_id }}',
				taskKind: 'auto',
				options: {},
			}),
			write('Write Video', 'gamma-video', '{{ $json.task_id }}.mp4'),
		],
		conn: [
			['Start', 0, 'Video Create'],
			['Video Create', 0, 'Task Wait'],
			['Task Wait', 0, 'Write Video'],
		],
	},
	{
		id: 'ggdemo06',
		name: 'GenGateway: chat (streamed) → text file',
		description: 'A streamed chat completion joined into one answer and saved as text.',
		folder: 'chat',
		steps: [{ node: 'Chat', items: 1, streamed: true }],
		write: { node: 'Write Text', from: 'Chat', kind: 'text', files: 1 },
		note: `## Chat (streamed)\n**Chat** sends \`stream: true\` and reads the answer by SSE events (a stream cut before \`[DONE]\` is an error, never a short answer) → **To Text** → \`chat.txt\`.\n\n${writesTo('chat')}`,
		nodes: [
			trigger,
			ours('Chat', 'genGatewayChat', {
				model: model('alpha-chat-4o'),
				messagesFrom: 'ui',
				messages: {
					values: [
						{ role: 'system', content: 'You answer in one short paragraph.' },
						{ role: 'user', content: 'Why do paid APIs need idempotency?' },
					],
				},
				stream: true,
				options: {},
			}),
			toText('To Text', 'text', 'chat.txt'),
			write('Write Text', 'chat', 'chat.txt'),
		],
		conn: [
			['Start', 0, 'Chat'],
			['Chat', 0, 'To Text'],
			['To Text', 0, 'Write Text'],
		],
	},
	{
		id: 'ggdemo07',
		name: 'GenGateway: responses → text file',
		description: 'The Responses API; text read from output[].content[].',
		folder: 'responses',
		steps: [{ node: 'Responses', items: 1 }],
		write: { node: 'Write Text', from: 'Responses', kind: 'text', files: 1 },
		note: `## Responses\n**Responses** calls \`/v1/responses\`; the text is read from \`output[].content[]\` → **To Text** → \`responses.txt\`.\n\n${writesTo('responses')}`,
		nodes: [
			trigger,
			ours('Responses', 'genGatewayResponses', {
				model: model('alpha-chat-4o-mini'),
				input: 'Write a haiku about polling.',
				stream: false,
				options: {},
			}),
			toText('To Text', 'text', 'responses.txt'),
			write('Write Text', 'responses', 'responses.txt'),
		],
		conn: [
			['Start', 0, 'Responses'],
			['Responses', 0, 'To Text'],
			['To Text', 0, 'Write Text'],
		],
	},
	{
		id: 'ggdemo08',
		name: 'GenGateway: pricing report → CSV',
		description:
			'Public prices in the display currency, lowest public group per model, as a CSV table.',
		folder: 'pricing',
		steps: [{ node: 'Pricing', items: 5, atLeast: true }],
		write: { node: 'Write CSV', from: 'Pricing', kind: 'csv', files: 1 },
		note: `## Pricing report\n**Pricing** *Get Prices* reads the public price list (no key needed): one item per model with the lowest price among public groups, in the site's display currency → CSV.\n\n${writesTo('pricing')}`,
		nodes: [
			trigger,
			ours('Pricing', 'genGatewayPricing', { operation: 'getPrices' }),
			{
				name: 'To CSV',
				type: 'n8n-nodes-base.convertToFile',
				typeVersion: 1.1,
				parameters: { operation: 'csv', options: { fileName: 'prices.csv' } },
			},
			write('Write CSV', 'pricing', 'prices.csv'),
		],
		conn: [
			['Start', 0, 'Pricing'],
			['Pricing', 0, 'To CSV'],
			['To CSV', 0, 'Write CSV'],
		],
	},
	{
		id: 'ggdemo09',
		name: 'GenGateway: long job loop (Wait node, no worker held)',
		description:
			"Submit, keep the task ID, let Task Wait hand back Still Running quickly, loop through n8n's Wait node until done.",
		folder: 'wait-loop',
		steps: [
			{ node: 'Image Submit', items: 1 },
			{ node: 'Task Wait', items: 1 },
		],
		write: { node: 'Write Image', from: 'Task Wait', kind: 'image', files: 1 },
		loop: { node: 'Task Wait', wait: 'Wait' },
		note: `## Long jobs: loop through n8n's Wait node\n**Image Submit** stores the task ID at once. **Task Wait** gives up after *Max Wait per Execution* (1 s here) and hands the item to *Still Running*; n8n's **Wait** node pauses (2 s here) and sends it back. In queue mode use e.g. 30 s here and 2 minutes in the Wait node: n8n parks an execution in its database, holding no worker, only for waits of 65 s or more.\n\n${writesTo('wait-loop')}`,
		nodes: [
			trigger,
			ours('Image Submit', 'genGatewayImageSubmit', {
				operation: 'generate',
				mode: 'async',
				model: model('alpha-image-2'),
				prompt: 'an isometric city block at night',
				size: '1024x1024',
			}),
			ours('Task Wait', 'genGatewayTaskWait', {
				taskId: '={{ $json.task_id }}',
				taskKind: 'auto',
				options: { maxWaitSeconds: 1 },
			}),
			{
				name: 'Wait',
				type: 'n8n-nodes-base.wait',
				typeVersion: 1.1,
				parameters: { resume: 'timeInterval', amount: 2, unit: 'seconds' },
				at: [3, 1],
			},
			{
				...write(
					'Write Image',
					'wait-loop',
					'{{ $json.task_id }}.{{ $binary.data.fileExtension }}',
				),
				at: [4, 0],
			},
		],
		conn: [
			['Start', 0, 'Image Submit'],
			['Image Submit', 0, 'Task Wait'],
			['Task Wait', 0, 'Write Image'],
			['Task Wait', 2, 'Wait'],
			['Wait', 0, 'Task Wait'],
		],
	},
	{
		id: 'ggdemo10',
		name: 'GenGateway: an execution budget across two paid nodes',
		description:
			'Two batches of images under one Max Expected Spend: the first fits and is paid, the second would go over what the execution already spent and is refused before any request.',
		folder: 'budget',
		alone: true,
		steps: [
			{ node: 'First batch', items: 2 },
			{ node: 'Second batch', items: 2, refused: 'budget' },
		],
		write: { node: 'Write Image', from: 'First batch', kind: 'image', files: 2 },
		spend: { node: 'First batch' },
		note: `## An execution budget\nBoth **Image Submit** nodes have *Max Expected Spend (¤)* 100000 and *Group Name* \`hd\` (the demo key's group: put your key's group there, or its *Group Multiplier*). The first batch (2 images, ¤30000 each) fits and is paid; each item carries its \`cost\`, and the execution's custom data \`gengateway_spent\` says ¤60000. The second batch would bring the execution to ¤120000, so it is refused before any request: with *Continue*, each item comes out with \`failed_at: "budget"\` and \`submitted: false\`. Any expression can read the running total: \`{{ $execution.customData.get('gengateway_spent') }}\`.\n\n${writesTo('budget')}`,
		nodes: [
			trigger,
			{
				name: 'Prompts',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				parameters: {
					jsCode:
						"return [{json:{prompt:'a paper boat on a pond'}},{json:{prompt:'a paper plane over a city'}}];",
				},
			},
			ours('First batch', 'genGatewayImageSubmit', {
				operation: 'generate',
				mode: 'async',
				model: model('alpha-image-2.5'),
				prompt: '={{ $json.prompt }}',
				size: '1024x1024',
				options: { waitForResult: true, maxExpectedSpend: 100000, groupName: 'hd' },
			}),
			write('Write Image', 'budget', '{{ $json.task_id }}.{{ $binary.data.fileExtension }}'),
			{
				...ours('Second batch', 'genGatewayImageSubmit', {
					operation: 'generate',
					mode: 'async',
					model: model('alpha-image-2.5'),
					prompt: '={{ $json.prompt }}',
					size: '1024x1024',
					options: { maxExpectedSpend: 100000, groupName: 'hd' },
				}),
				onError: 'continueRegularOutput',
			},
		],
		conn: [
			['Start', 0, 'Prompts'],
			['Prompts', 0, 'First batch'],
			['First batch', 0, 'Write Image'],
			['Write Image', 0, 'Second batch'],
		],
	},
	{
		id: 'ggdemo20',
		name: 'GenGateway: AI Agent + GenGateway Chat Model + Calculator → answer.txt',
		description:
			"n8n's AI Agent asks the GenGateway Chat Model, uses the Calculator tool and writes its answer to a file.",
		folder: 'agent',
		alone: true,
		steps: [
			// the model is asked at least once; how many turns it takes (the Calculator or not) is the model's choice
			{ node: CHAT_MODEL, items: 1, atLeast: true, turns: true },
			// judged by its answer: 12 × 7
			{ node: 'AI Agent', items: 1, answer: /\b84\b/ },
		],
		write: { node: 'Write Answer', from: 'AI Agent', kind: 'text', files: 1, field: 'output' },
		needs: { n8nMajor: 2, why: "needs n8n 2.16 or newer (n8n's AI node SDK)" },
		note: `## AI Agent with the GenGateway Chat Model\nThe **AI Agent** asks the **GenGateway Chat Model** (one paid call per model turn, never resent; a 429 goes again once after its Retry-After) and uses n8n's **Calculator** tool for the arithmetic; the answer goes to \`answer.txt\`. Token usage is the gateway's own (see the Chat Model's run data).\n\nNeeds n8n 2.16 or newer. ${writesTo('agent')}`,
		...answerToFile(
			'agent',
			calculatorAgent({ retryOnFail: true, maxTries: 2, waitBetweenTries: 1000 }),
			[
				chatModel('alpha-chat-4o', { streaming: true, temperature: 0 }, [0.5, 1.1]),
				calculator([1.5, 1.1]),
			],
			[
				[CHAT_MODEL, 0, 'AI Agent', 'ai_languageModel'],
				['Calculator', 0, 'AI Agent', 'ai_tool'],
			],
		),
	},
	{
		id: 'ggdemo21',
		name: 'GenGateway: AI Agent + thinking model + Calculator → answer.txt',
		description:
			"n8n's AI Agent with a thinking model (reasoning beside the answer, required back on the tool-call turn) and the Calculator tool.",
		folder: 'agent-thinking',
		steps: [
			{ node: CHAT_MODEL, items: 2, atLeast: true, turns: true },
			{ node: 'AI Agent', items: 1 },
		],
		write: { node: 'Write Answer', from: 'AI Agent', kind: 'text', files: 1, field: 'output' },
		needs: { n8nMajor: 2, why: "needs n8n 2.16 or newer (n8n's AI node SDK)" },
		note: `## AI Agent with a thinking model\nThe **GenGateway Chat Model** runs a thinking model (\`delta-think-r1\`: its reasoning comes as \`reasoning_content\` beside the answer). Thinking models refuse a tool-call turn that comes back without its reasoning; the Chat Model keeps each tool call's reasoning for the execution and sends it back. The reasoning shows in the Chat Model's run data (with each turn's tool calls and cost), never in the agent's answer; *Leave Out Reasoning* hides it.\n\nNeeds n8n 2.16 or newer. ${writesTo('agent-thinking')}`,
		...answerToFile(
			'agent-thinking',
			calculatorAgent(),
			[chatModel('delta-think-r1', { streaming: true }, [0.5, 1.1]), calculator([1.5, 1.1])],
			[
				[CHAT_MODEL, 0, 'AI Agent', 'ai_languageModel'],
				['Calculator', 0, 'AI Agent', 'ai_tool'],
			],
		),
	},
	{
		id: 'ggdemo22',
		name: 'GenGateway: AI Agent asked about an image → answer.txt',
		description:
			"n8n's AI Agent passes a PNG read from disk to a vision model of the gateway and answers from it.",
		folder: 'agent-image',
		steps: [
			{ node: CHAT_MODEL, items: 1, atLeast: true, turns: true },
			{ node: 'AI Agent', items: 1 },
		],
		write: { node: 'Write Answer', from: 'AI Agent', kind: 'text', files: 1, field: 'output' },
		needs: { n8nMajor: 2, why: "needs n8n 2.16 or newer (n8n's AI node SDK)" },
		note: `## AI Agent asked about an image\n**Read Image** loads \`${INPUT}/input.png\`; the **AI Agent** (*Automatically Passthrough Binary Images* on) hands it to the **GenGateway Chat Model**, which sends it to a vision model (\`alpha-vision-1\`) as an \`image_url\` part (a Data URL; images up to 20 MiB each, 48 MiB per request).\n\nNeeds n8n 2.16 or newer. ${writesTo('agent-image')}`,
		nodes: [
			trigger,
			{
				name: 'Read Image',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				parameters: { fileSelector: `${INPUT}/input.png`, options: {} },
			},
			agent('What is in this picture? Say its format and size.', {
				systemMessage: 'You describe images.',
				passthroughBinaryImages: true,
			}),
			chatModel('alpha-vision-1', { streaming: true }, [1.5, 1.1]),
			calculator([2.5, 1.1]),
			{ ...toText('To Text', 'output', 'answer.txt'), at: [3, 0] },
			{ ...write('Write Answer', 'agent-image', 'answer.txt'), at: [4, 0] },
		],
		conn: [
			['Start', 0, 'Read Image'],
			['Read Image', 0, 'AI Agent'],
			[CHAT_MODEL, 0, 'AI Agent', 'ai_languageModel'],
			['Calculator', 0, 'AI Agent', 'ai_tool'],
			['AI Agent', 0, 'To Text'],
			['To Text', 0, 'Write Answer'],
		],
	},
	{
		id: 'ggdemo23',
		name: 'GenGateway: AI Agent with structured output (JSON Schema + Structured Output Parser) → answer.json',
		description:
			"The GenGateway Chat Model answers against a JSON Schema (checked, one repair request at most) and n8n's Structured Output Parser reads it into fields.",
		folder: 'agent-structured',
		steps: [
			{ node: CHAT_MODEL, items: 1, atLeast: true, turns: true },
			{ node: 'AI Agent', items: 1, beyondSpec: true },
		],
		beyondSpec:
			'needs a model that answers in the JSON Schema it is asked for (response_format) or calls the Structured Output Parser\'s tool with fitting arguments; the spec defines chat requests by model, messages and stream (other fields: "not shown")',
		write: { node: 'Write JSON', from: 'As JSON Text', kind: 'text', files: 1 },
		needs: { n8nMajor: 2, why: "needs n8n 2.16 or newer (n8n's AI node SDK)" },
		note: `## Structured output\nThe **GenGateway Chat Model** has *Response Format: JSON Schema*: the request carries the schema (\`response_format: json_schema\`), the answer is checked against it, and one that does not validate gets one repair request (counted in the cost and Max Expected Spend), never more. n8n's **Structured Output Parser** (same schema) turns the answer into fields of \`output\`.\n\nNeeds n8n 2.16 or newer. ${writesTo('agent-structured')}`,
		nodes: [
			trigger,
			agent(
				'What colour is a clear sky at noon, and how sure are you (0 to 1)?',
				{ systemMessage: 'Answer as JSON with the fields answer and confidence.' },
				{ parameters: { hasOutputParser: true } },
			),
			chatModel(
				'alpha-chat-4o',
				{
					streaming: false,
					responseFormat: 'json_schema',
					schemaName: 'sky',
					jsonSchema: STRUCTURED_SCHEMA,
				},
				[0.5, 1.1],
			),
			{
				name: 'Structured Output Parser',
				type: '@n8n/n8n-nodes-langchain.outputParserStructured',
				typeVersion: 1.3,
				parameters: { schemaType: 'manual', inputSchema: STRUCTURED_SCHEMA },
				at: [1.5, 1.1],
			},
			{
				name: 'As JSON Text',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				parameters: {
					jsCode:
						'return $input.all().map((i) => ({ json: { text: JSON.stringify(i.json.output) } }));',
				},
				at: [2.5, 0],
			},
			{ ...toText('To Text', 'text', 'answer.json'), at: [3.5, 0] },
			{ ...write('Write JSON', 'agent-structured', 'answer.json'), at: [4.5, 0] },
		],
		conn: [
			['Start', 0, 'AI Agent'],
			[CHAT_MODEL, 0, 'AI Agent', 'ai_languageModel'],
			['Structured Output Parser', 0, 'AI Agent', 'ai_outputParser'],
			['AI Agent', 0, 'As JSON Text'],
			['As JSON Text', 0, 'To Text'],
			['To Text', 0, 'Write JSON'],
		],
	},
	{
		id: 'ggdemo11',
		name: 'GenGateway: a quote, an approval form, then the paid run (capped at the quote)',
		description:
			"Image Submit with Quote Only prices every item and sends nothing; n8n's Wait node asks for approval on a form showing the batch total; Merge brings the quoted items back; the paid Image Submit holds the quote as its Max Expected Spend.",
		folder: 'quote-approve',
		alone: true,
		server: 'approve',
		steps: [
			{ node: 'Quote', items: 2 },
			{ node: 'Approval', items: 1 },
			{ node: 'Quoted items', items: 2 },
			{ node: 'Generate', items: 2 },
			{ node: 'Task Wait', items: 2 },
		],
		write: { node: 'Write Image', from: 'Task Wait', kind: 'image', files: 2 },
		note: `## A quote, an approval, then the paid run\n**Quote** is Image Submit with *Quote Only (Send Nothing)*: every item is checked and priced, nothing is sent, and every item carries the batch total (\`quote_total\`). **Approval** is n8n's *Wait* node *On Form Submitted*: the form shows \`{{ $json.quote_total.text }}\` (send its link, \`{{ $execution.resumeFormUrl }}\`, by mail or chat; or use *Send and Wait for Response* in Slack, Gmail, Telegram …). The form gives back one item, the answer; **Approved?** lets it on only when it says Approve, and **Quoted items** (*Merge*, *Choose Branch*: the data of input 1 once both inputs arrived) brings the quoted items back. **Generate** (the same node without Quote Only) has the quote as its *Max Expected Spend* (\`¤{{ $json.quote_total.quota }}\`): the run cannot spend more than what was approved. *Group Name* \`hd\` is the demo key's group (set your key's group on the credential, *Key's Group*, and leave it empty here): with the group known the quote is exact, without it each cost is a range and the quote counts its highest end.\n\n${writesTo('quote-approve')}`,
		nodes: [
			trigger,
			{
				name: 'Prompts',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				parameters: {
					jsCode:
						"return [{json:{prompt:'a tin robot reading a book'}},{json:{prompt:'a glass teapot on a windowsill'}}];",
				},
			},
			ours('Quote', 'genGatewayImageSubmit', {
				operation: 'generate',
				mode: 'async',
				model: model('alpha-image-2.5'),
				prompt: '={{ $json.prompt }}',
				size: '1024x1024',
				options: { quoteOnly: true, groupName: 'hd' },
			}),
			{
				name: 'Approval',
				type: 'n8n-nodes-base.wait',
				typeVersion: 1.1,
				parameters: {
					resume: 'form',
					formTitle: 'Approve the GenGateway batch?',
					formDescription:
						'={{ $json.quote_total.items }} image(s) for {{ $json.quote_total.text }} ({{ $json.quote_total.kind }}).',
					formFields: {
						values: [
							{
								fieldLabel: 'Decision',
								fieldType: 'dropdown',
								fieldOptions: { values: [{ option: 'Approve' }, { option: 'Reject' }] },
								requiredField: true,
							},
						],
					},
					options: {},
				},
				at: [3, 0],
			},
			{
				name: 'Approved?',
				type: 'n8n-nodes-base.if',
				typeVersion: 2.2,
				parameters: {
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
						conditions: [
							{
								id: 'approved',
								leftValue: '={{ $json.Decision }}',
								rightValue: 'Approve',
								operator: { type: 'string', operation: 'equals' },
							},
						],
						combinator: 'and',
					},
					options: {},
				},
				at: [4, 0],
			},
			{
				name: 'Quoted items',
				type: 'n8n-nodes-base.merge',
				typeVersion: 3.2,
				parameters: { mode: 'chooseBranch', useDataOfInput: 1 },
				at: [5, 0.6],
			},
			{
				...ours('Generate', 'genGatewayImageSubmit', {
					operation: 'generate',
					mode: 'async',
					model: model('alpha-image-2.5'),
					prompt: '={{ $json.prompt }}',
					size: '1024x1024',
					options: { maxSpend: '=¤{{ $json.quote_total.quota }}', groupName: 'hd' },
				}),
				at: [6, 0.6],
			},
			{
				...ours('Task Wait', 'genGatewayTaskWait', {
					taskId: '={{ $json.task_id }}',
					taskKind: 'auto',
					options: {},
				}),
				at: [7, 0.6],
			},
			{
				...write(
					'Write Image',
					'quote-approve',
					'{{ $json.task_id }}.{{ $binary.data.fileExtension }}',
				),
				at: [8, 0.6],
			},
		],
		conn: [
			['Start', 0, 'Prompts'],
			['Prompts', 0, 'Quote'],
			['Quote', 0, 'Approval'],
			['Quote', 0, 'Quoted items'],
			['Approval', 0, 'Approved?'],
			['Approved?', 0, 'Quoted items', 'main', 1],
			['Quoted items', 0, 'Generate'],
			['Generate', 0, 'Task Wait'],
			['Task Wait', 0, 'Write Image'],
		],
	},
	{
		id: 'ggdemo26',
		name: 'GenGateway: what was spent in the last 24 hours, per workflow (schedule it daily)',
		description:
			"n8n's own n8n node lists the executions with their data; a Code node adds up each one's GenGateway spend (custom data gengateway_spent) per workflow; the table goes to a CSV file (or a Data Table, a message).",
		folder: 'spend-report',
		alone: true,
		server: 'report',
		steps: [
			{ node: 'Executions', items: 1, atLeast: true },
			{ node: 'Spend per workflow', items: 1, atLeast: true },
		],
		write: { node: 'Write CSV', from: 'Spend per workflow', kind: 'csv', files: 1 },
		note: `## What was spent, per workflow\nEvery execution with GenGateway nodes keeps what it spent in its custom data (\`gengateway_spent\`, whole ¤; \`gengateway_spent_text\` in the display currency). Once a day (**Every day**, *Schedule Trigger*), n8n's own **n8n** node (*Execution → Get Many*, *Include Execution Details* on) lists the executions with that data, through an *n8n API* credential (Settings → n8n API → Create an API key; Base URL \`http://localhost:5678/api/v1\`, your n8n's address). **Spend per workflow** adds up the last 24 hours per workflow: \`workflow\`, \`executions\`, \`spent\` (¤). The rows go to \`spend.csv\` here; put a *Data Table* (Insert) or a Slack / Gmail message there instead.\n\nThis reports what was spent; a hard daily or monthly limit belongs on the key (the gateway's key quota), which refuses once it is used up.\n\n${writesTo('spend-report')}`,
		nodes: [
			{
				name: 'Every day',
				type: 'n8n-nodes-base.scheduleTrigger',
				typeVersion: 1.2,
				parameters: { rule: { interval: [{ triggerAtHour: 23, triggerAtMinute: 55 }] } },
			},
			{
				name: 'Executions',
				type: 'n8n-nodes-base.n8n',
				typeVersion: 1,
				parameters: {
					resource: 'execution',
					returnAll: true,
					filters: {},
					options: { activeWorkflows: true },
				},
				credentials: { n8nApi: { id: 'REPLACE_N8N_API_CREDENTIAL_ID', name: 'n8n account' } },
			},
			{
				name: 'Spend per workflow',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				parameters: {
					jsCode: [
						"// each execution's GenGateway spend is its custom data gengateway_spent (whole ¤); add up the last 24 hours per workflow",
						'const since = Date.now() - 24 * 60 * 60 * 1000;',
						'const rows = new Map();',
						'for (const { json: e } of $input.all()) {',
						'\tconst spent = Number(e.customData?.gengateway_spent);',
						'\tif (!Number.isFinite(spent) || Date.parse(e.startedAt) < since) continue;',
						'\tconst row = rows.get(e.workflowId) ?? { workflow: e.workflowData?.name ?? e.workflowId, workflow_id: e.workflowId, executions: 0, spent: 0 };',
						'\trow.executions += 1;',
						'\trow.spent += spent;',
						'\trows.set(e.workflowId, row);',
						'}',
						'return [...rows.values()].sort((a, b) => b.spent - a.spent).map((row) => ({ json: row }));',
					].join('\n'),
				},
			},
			{
				name: 'To CSV',
				type: 'n8n-nodes-base.convertToFile',
				typeVersion: 1.1,
				parameters: { operation: 'csv', options: { fileName: 'spend.csv' } },
			},
			write('Write CSV', 'spend-report', 'spend.csv'),
		],
		conn: [
			['Every day', 0, 'Executions'],
			['Executions', 0, 'Spend per workflow'],
			['Spend per workflow', 0, 'To CSV'],
			['To CSV', 0, 'Write CSV'],
		],
	},
	{
		id: 'ggdemo25',
		name: "GenGateway: n8n's Basic LLM Chain over three questions → three answers",
		description:
			"n8n's Basic LLM Chain asks the GenGateway Chat Model three different questions, five at a time: three paid calls, each answer its own question's.",
		folder: 'chain',
		steps: [
			{ node: CHAT_MODEL, items: 3, turns: true },
			{ node: 'Basic LLM Chain', items: 3, answers: [/\bfox\b/, /\bcolour\b/, /\briver\b/] },
		],
		write: {
			node: 'Write Answers',
			from: 'Basic LLM Chain',
			kind: 'text',
			files: 3,
			field: 'text',
		},
		needs: { n8nMajor: 2, why: "needs n8n 2.16 or newer (n8n's AI node SDK)" },
		note: `## A chain over rows\nn8n's **Basic LLM Chain** asks its model once per item, and with its default *Batch Size* (5) several items at once. The **GenGateway Chat Model** knows a call by its question (the conversation without the system message), so each row gets its own paid call and its own answer, and a *Retry On Fail* re-run gets back what each question had without paying again.\n\nNeeds n8n 2.16 or newer. ${writesTo('chain')}`,
		nodes: [
			trigger,
			{
				name: 'Questions',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				parameters: {
					jsCode:
						"return [{json:{question:'Name a fox that lives in the Arctic.'}},{json:{question:'Name a colour of the sky.'}},{json:{question:'Name a river in Europe.'}}];",
				},
			},
			{
				name: 'Basic LLM Chain',
				type: '@n8n/n8n-nodes-langchain.chainLlm',
				typeVersion: 1.9,
				parameters: { promptType: 'define', text: '={{ $json.question }}' },
			},
			chatModel('alpha-chat-4o', { streaming: false }, [1.5, 1.1]),
			{ ...toText('To Text', 'text', 'answer.txt'), at: [3, 0] },
			{ ...write('Write Answers', 'chain', 'answer-{{ $itemIndex + 1 }}.txt'), at: [4, 0] },
		],
		conn: [
			['Start', 0, 'Questions'],
			['Questions', 0, 'Basic LLM Chain'],
			[CHAT_MODEL, 0, 'Basic LLM Chain', 'ai_languageModel'],
			['Basic LLM Chain', 0, 'To Text'],
			['To Text', 0, 'Write Answers'],
		],
	},
	{
		id: 'ggdemo24',
		name: "GenGateway: an AI Agent stopped by its Chat Model's spend cap → refusal.txt",
		description:
			"The GenGateway Chat Model's Max Expected Spend is below the price of one turn: the first turn goes, the next is refused before it is sent, and the agent stops with the refusal.",
		folder: 'agent-capped',
		alone: true,
		steps: [{ node: 'AI Agent', items: 1, refused: 'cap' }],
		write: { node: 'Write Refusal', from: 'AI Agent', kind: 'text', files: 1, field: 'error' },
		needs: { n8nMajor: 2, why: "needs n8n 2.16 or newer (n8n's AI node SDK)" },
		note: `## An agent under a cap\nAn agent loop makes one paid call per model turn, any number of turns: the **GenGateway Chat Model**'s *Max Expected Spend* (here ¤1, below one turn) counts every turn of the execution with every other GenGateway node. Without *Maximum Number of Tokens* a turn has no bound, so a turn goes while the spend is under the cap: the first turn (a Calculator call) is paid, the second is refused before it is sent, and the agent (*On Error: Continue*) hands on the refusal, which goes to \`refusal.txt\`.\n\nNeeds n8n 2.16 or newer. ${writesTo('agent-capped')}`,
		nodes: [
			trigger,
			calculatorAgent({ onError: 'continueRegularOutput' }),
			chatModel('alpha-chat-4o', { streaming: false, temperature: 0, maxSpend: '¤1' }, [0.5, 1.1]),
			calculator([1.5, 1.1]),
			{ ...toText('To Text', 'error', 'refusal.txt'), at: [2.5, 0] },
			{ ...write('Write Refusal', 'agent-capped', 'refusal.txt'), at: [3.5, 0] },
		],
		conn: [
			['Start', 0, 'AI Agent'],
			[CHAT_MODEL, 0, 'AI Agent', 'ai_languageModel'],
			['Calculator', 0, 'AI Agent', 'ai_tool'],
			['AI Agent', 0, 'To Text'],
			['To Text', 0, 'Write Refusal'],
		],
	},
];

/** Whether an n8n of this major version can run the workflow. */
export function runsOnN8n(w: Pick<DemoWorkflow, 'needs'>, major: number | string): boolean {
	return !w.needs || Number(major) >= w.needs.n8nMajor;
}

/** Node types of the examples whose model is a language model (the spec names none: the key's list decides). */
export const TEXT_MODEL_NODES = [
	`${PKG}.genGatewayChat`,
	`${PKG}.genGatewayResponses`,
	`${PKG}.lmChatGenGateway`,
];
const NOT_CHAT = /embed|whisper|tts|speech|audio|transcri|moderation|rerank|realtime/i;

/**
 * The example's language model if the key lists it, else one the key lists: same vendor stem first, then by name.
 * Undefined when the key lists no language model.
 */
export function pickTextModel(wanted: string, available: string[]): string | undefined {
	if (available.includes(wanted)) return wanted;
	const stem = wanted.split('-')[0];
	const text = available
		.filter((id) => familyOf(id) === 'language' && !isRetired(id) && !NOT_CHAT.test(id))
		.sort();
	return text.find((id) => id.split('-')[0] === stem) ?? text[0];
}

/**
 * Points the language-model nodes of a loaded example at models of the key (GET /v1/models is the authority for a
 * key). Returns one line per node whose model was replaced or could not be.
 */
export function useKeyTextModels(
	wf: { nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }> },
	available: string[],
): string[] {
	const notes: string[] = [];
	for (const n of wf.nodes) {
		if (!TEXT_MODEL_NODES.includes(n.type)) continue;
		const rl = n.parameters.model as { value?: unknown } | undefined;
		const wanted = typeof rl?.value === 'string' ? rl.value : '';
		const picked = pickTextModel(wanted, available);
		if (picked === wanted) continue;
		if (!picked) notes.push(`${n.name}: the key lists no language model; ${wanted} kept`);
		else {
			n.parameters.model = { ...rl, value: picked };
			notes.push(`${n.name}: ${wanted} is not among the key's models, using ${picked}`);
		}
	}
	return notes;
}

const COL = 240;
const ROW = 200;
const TOP = 300;

/** n8n workflow JSON for a demo workflow: nodes in a row (or at their `at` [column, row]), a sticky note above. */
export function toN8n(
	w: Pick<DemoWorkflow, 'id' | 'name' | 'description' | 'note' | 'nodes' | 'conn'>,
): Record<string, unknown> {
	const nodes: Array<Record<string, unknown>> = w.nodes.map(({ at, ...n }, k) => ({
		id: `${w.id}-n${k}`,
		position: [Math.round((at?.[0] ?? k) * COL), Math.round(TOP + (at?.[1] ?? 0) * ROW)],
		...n,
	}));
	const columns = Math.ceil(Math.max(...w.nodes.map((n, k) => n.at?.[0] ?? k))) + 1;
	nodes.push({
		id: `${w.id}-note`,
		name: 'About this workflow',
		type: 'n8n-nodes-base.stickyNote',
		typeVersion: 1,
		position: [-40, 0],
		parameters: {
			content: w.note,
			width: Math.max(560, columns * COL - 20),
			height: 260,
			color: 7,
		},
	});
	const connections: Record<
		string,
		Partial<Record<ConnType, Array<Array<{ node: string; type: ConnType; index: number }>>>>
	> = {};
	for (const [from, out, to, type = 'main', input = 0] of w.conn) {
		const outputs = ((connections[from] ??= {})[type] ??= []);
		while (outputs.length <= out) outputs.push([]);
		outputs[out].push({ node: to, type, index: input });
	}
	return {
		id: w.id,
		name: w.name,
		active: false,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		meta: { description: w.description },
		pinData: {},
	};
}

if (require.main === module) {
	for (const w of WORKFLOWS)
		writeFileSync(
			join(__dirname, '../../examples', `${w.folder}.json`),
			JSON.stringify(toN8n(w), null, 2) + '\n',
		);
	console.log(`wrote ${WORKFLOWS.length} workflows to examples/`);
}

/** The id the demo, queue mode and pipeline give the gateway credential they import. */
export const CREDENTIAL_ID = 'ggdemocred';

/** The example file as shipped, with the credential, folders (and reference images, if given) filled in. */
export function loadExample(
	folder: string,
	subst: { outDir: string; inputDir: string; referenceImages?: string[] },
): Record<string, unknown> {
	let text = readFileSync(join(__dirname, '../../examples', `${folder}.json`), 'utf8');
	text = text
		.split(CRED)
		.join(CREDENTIAL_ID)
		.split(INPUT)
		.join(subst.inputDir)
		.split(OUT)
		.join(subst.outDir);
	const wf = JSON.parse(text) as {
		nodes: Array<{ type: string; parameters: Record<string, unknown> }>;
	};
	if (subst.referenceImages?.length) {
		for (const n of wf.nodes) {
			if (
				n.type.endsWith('.genGatewayVideoCreate') &&
				n.parameters.referenceImages === REFERENCE_IMAGES.join('\n')
			)
				n.parameters.referenceImages = subst.referenceImages.join('\n');
		}
	}
	return wf as unknown as Record<string, unknown>;
}
