/**
 * The generated workflows of the money properties (money.property.test.ts): a Start node, a fan that makes every
 * node after it run 1–3 times, and a chain of 1–4 paid nodes — Image Submit (async, sometimes waiting for the result),
 * gamma Video Create, Chat (not streamed), and a test-only AI agent that holds the GenGateway Chat Model through
 * n8n's `ai_languageModel` connection (n8n-core's WorkflowExecute supplies it, as in n8n) and makes 1–6 model calls per
 * item: questions, arithmetic ones answered by the simulator's scripted model with a calculator tool call and then an
 * answer to the tool's result.
 *
 * Every paid request carries its place in its prompt: `#c<case> n<node> r<run> k<Start item>#` (an agent's question adds
 * ` q<question>`), so the oracle can count what the gateway received per place. Option values come per item through
 * expressions on the Start item (`$('Start').item.json.m[<node>]`); a part of every prompt may change between tries
 * (`$now`, `Math.random()`).
 *
 * Issue 43: about half the nodes and Chat Models also take options drawn from their own descriptions
 * (description-gen.ts `parameterSetArb`, at a version the node declares, plain or with one field astray): every option
 * of the node's `options` collection may come, as typed, from an expression or per item (the per-item values on the
 * Start item, `$('Start').item.json.g.<n|m><node>.vN`), so an option added to a description reaches this property
 * by itself. The money options the oracle judges and the options the case writes itself stay the case's
 * (`GeneratedOptions`).
 */
import fc from 'fast-check';
import {
	NodeConnectionTypes,
	NodeOperationError,
	type IConnections,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import type { FaultSpec } from '../../simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';
import type { TestNode } from '../harness/workflow';
import { displayToQuota } from './money-oracle';
import {
	fieldsOf,
	parameterSetArb,
	versionsOf,
	type GenContext,
	type Given,
	type Level,
	type ParameterSet,
} from './description-gen';
import {
	batchSize,
	hostSettings,
	kindsOf,
	laterHost,
	modelPerItem,
	modelStreams,
	onError,
	runCount,
	savedAtVersion1,
	shareModel,
	tries,
	twoAccounts,
	type OnError,
} from './host-shape';

export type Kind = 'image' | 'gamma' | 'chat' | 'agent';
/** what part of the prompt changes between tries */
export type Vary = 'none' | 'now' | 'random';
/** the key's group: public (default, vip, hd), published but not selectable (internal), unpublished (partner), named nowhere */
export type Group = 'default' | 'vip' | 'hd' | 'internal' | 'partner' | 'nowhere';
export const GROUPS: Group[] = ['default', 'vip', 'hd', 'internal', 'partner', 'nowhere'];

export type Display =
	| { type: 'USD'; quotaPerUnit: number }
	| { type: 'CNY'; rate: number; quotaPerUnit: number }
	| { type: 'TOKENS'; quotaPerUnit: number };

export const MODELS = {
	image: 'alpha-image-2.5',
	gamma: 'gamma-video-1.0',
	chat: ['alpha-chat-4o', 'alpha-chat-4o-mini'],
	/** a thinking model (DeepSeek-style reasoning, carried back with tool calls) */
	thinking: 'delta-think-r1',
} as const;
export const PAID_MODELS = [
	'alpha-image-2.5',
	'gamma-video-1.0',
	'alpha-chat-4o',
	'alpha-chat-4o-mini',
	'delta-think-r1',
];

/** One item's values for one node (read by the node's expressions). */
export interface ItemOptions {
	/** Max Expected Spend (¤ Quota Units): a number, '' (none), or a bad value */
	cap: number | string;
	/** Max Expected Spend in the display currency: '0.05', '$0.05', '¤30000' or '' */
	spend: string;
	/** Group Name given (the key's group) or '' */
	nameGiven: boolean;
	/** Group Multiplier given (the key's ratio) or '' */
	ratioGiven: boolean;
	/** the item fails the node's checks (a bad size, 0 seconds, a message role that does not exist) */
	bad: boolean;
	/** image: the task fails after it was paid ([fail]) */
	fail: boolean;
	/** agent: the questions, each either arithmetic (a tool call, then the answer) or not (one answer) */
	questions: Array<{ arithmetic: boolean; a: number; b: number }>;
	/** agent: the Chat Model's Max Expected Spend (¤) this item gives it through an expression, '' for none */
	modelCap: number | '';
}

export interface ChatModelCase {
	name: string;
	model: string;
	streaming: boolean;
	maxTokens?: number;
	/** the Chat Model's own group options: none, Group Name, Group Multiplier, or the Multiplier left empty */
	group: 'none' | 'name' | 'ratio' | 'emptyRatio';
	cap?: number;
	spend?: string;
	/** Max Expected Spend read per item (`$('Start').item…`): each item's own cap (ItemOptions.modelCap), not `cap` */
	capPerItem?: boolean;
	/** items the agent runs at once */
	batch: number;
	/**
	 * how the root asks for its model: once per run (n8n's AI Agent), or once per item, always with item index 0
	 * (n8n's Basic LLM Chain, Summarization and Q&A chains)
	 */
	perItem: boolean;
	/** every answer uses all of Maximum Number of Tokens (the scripted model's usage marker; real models often stop at it) */
	full?: boolean;
	/** the Chat Model node is the one of the agent at this index (two roots sharing one Chat Model) */
	owner?: number;
	/** the Chat Model uses the second credential: another key (another account) in the same group */
	secondAccount?: boolean;
	/** the gateway names no tool call (`[llm:no-ids]`): the package names them itself */
	noIds?: boolean;
	/**
	 * the Chat Model sends a Sampling Temperature the model refuses with a 400 (`[llm:no-temperature]`): the turn goes
	 * once more without it, and the execution's later turns leave it out
	 */
	noTemperature?: boolean;
	/** options drawn from the Chat Model's description, under the case's own (issue 43) */
	generated?: GeneratedOptions;
}

/**
 * A node's options drawn from its description (description-gen.ts, at the version the node runs at), laid under the
 * case's own: every option the description has may be drawn, a new one included, without touching this file. The
 * money options the oracle judges (those whose label names a spend, a group or unpriced models: Max Expected Spend,
 * Group Name, Group Multiplier, Allow Unpriced Models) stay as the case drew them, and so do the options the case
 * itself writes (the Chat Model's Streaming and Maximum Number of Tokens, a Chat node's JSON Schema); Quote Only
 * comes as generated and is judged as docs/configuration.md reads a switch (money-invariants.ts, (k)).
 */
export interface GeneratedOptions {
	typeVersion: number;
	level: Level;
	/** the generated `options` collection; a per-item field reads its Start item (`$('Start').item.json.g.<slot>.vN`) */
	options: Record<string, unknown>;
	/** how each generated option was given, by its path ('options.maxConcurrency' …) */
	given: Record<string, Given>;
	/** per Start item: the values of the per-item fields (v0, v1 …) */
	items: IDataObject[];
}

export interface NodeCase {
	kind: Kind;
	name: string;
	onError: OnError;
	/** 1: no Retry On Fail; 2–3: Retry On Fail with that many tries */
	maxTries: number;
	/** Retry On Fail's wait between tries (ms; none when absent) */
	waitMs?: number;
	vary: Vary;
	/** which money options the node's collection holds (their values come per item) */
	options: {
		cap: boolean;
		spend: boolean;
		groupName: boolean;
		groupRatio: boolean;
		allowUnpriced: boolean;
	};
	/** Image Submit waits for the task (a failed task fails the item after it was paid) */
	waitForResult: boolean;
	chatModel?: ChatModelCase;
	/** agent: the changing part stands in the system message (the same question) or in the user's text (a new one) */
	varyIn?: 'system' | 'user';
	/** chat: Response Format JSON Schema (the simulator answers in the schema unless told otherwise) */
	schema?: boolean;
	/** chat: the node at version 1 (a workflow saved before 1.1), the JSON Schema given as its four options */
	schemaV1?: boolean;
	/** chat with a JSON Schema: the first answer does not validate (the simulator's `[llm:invalid-first]`), so the one repair request goes as a second POST */
	invalidFirst?: boolean;
	/** options drawn from the node's description, under the case's own (issue 43) */
	generated?: GeneratedOptions;
	/** its display-currency Max Expected Spend is the one drawn from its description (`adoptSpend`) */
	spendFromDescription?: boolean;
}

export interface MoneyCase {
	group: Group;
	/** the published ratio of `internal` and the unpublished one of `partner` (never above the highest published) */
	internalRatio: number;
	partnerRatio: number;
	/** the site's display currency and its quota per unit (/api/status) */
	display: Display;
	/** how many times the fan runs the chain */
	runs: number;
	nodes: NodeCase[];
	/** per Start item, per node */
	items: ItemOptions[][];
	faults: FaultSpec[];
	/** answers the proxy loses after the gateway charged */
	losses: Loss[];
	/** every node was given its key's group (Group Name or Group Multiplier) */
	knownAll: boolean;
	/** the labels of the text answers: a gateway that ignores `stream: true`, a proxy that relabels what it passes on */
	relabel?: Relabel;
	/** every agent after the first uses the first agent's Chat Model (two roots sharing one Chat Model) */
	shareModel?: boolean;
	/** every second agent's Chat Model is on a second credential (another key, same group) */
	twoAccounts?: boolean;
	/** the gateway names no tool call (`[llm:no-ids]` in every question) */
	noIds?: boolean;
	/** the model refuses `temperature` with a 400 (`[llm:no-temperature]` in every agent's question) */
	noTemperature?: boolean;
}

// ---------- the test-only agent ----------

/** n8n's Calculator tool as an agent binds it (one string `input`). */
const CALCULATOR = {
	type: 'function',
	function: {
		name: 'calculator',
		description: 'Useful for getting the result of a math expression.',
		parameters: {
			type: 'object',
			properties: { input: { type: 'string' } },
			additionalProperties: false,
		},
	},
};

interface LcMessage {
	text: string;
	tool_calls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
}
interface LcModel {
	bindTools(tools: unknown[]): LcModel;
	invoke(input: unknown): Promise<LcMessage>;
}

function calculate(expr: string): string {
	const m = /^\s*(-?\d+)\s*([-+*])\s*(-?\d+)\s*$/.exec(expr);
	if (!m) return 'NaN';
	const [a, b] = [Number(m[1]), Number(m[3])];
	return String(m[2] === '+' ? a + b : m[2] === '-' ? a - b : a * b);
}

/**
 * A root node like n8n's AI Agent, as far as money goes: it takes its model from the `ai_languageModel` input once per
 * run (n8n's Agent does the same), binds a calculator, and for each item asks its questions in one conversation,
 * answering tool calls; items run `batch` at a time. A model error fails the node (Retry On Fail runs it again), or with
 * an error setting that continues, makes the item `{ error }` (n8n's Agent does the same).
 */
export class MoneyAgent implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Money Agent',
		name: 'moneyAgent',
		group: ['transform'],
		version: 1,
		description: 'test agent',
		defaults: { name: 'Money Agent' },
		inputs: [
			NodeConnectionTypes.Main,
			{
				type: NodeConnectionTypes.AiLanguageModel,
				displayName: 'Chat Model',
				required: true,
				maxConnections: 1,
			},
		],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Tag', name: 'tag', type: 'string', default: '' },
			{ displayName: 'Vary', name: 'vary', type: 'string', default: '' },
			{ displayName: 'Questions', name: 'questions', type: 'json', default: '[]' },
			{ displayName: 'Batch', name: 'batch', type: 'number', default: 1 },
			{ displayName: 'Model Per Item', name: 'perItem', type: 'boolean', default: false },
			{ displayName: 'Suffix', name: 'suffix', type: 'string', default: '' },
			{ displayName: 'Vary In User Text', name: 'varyUser', type: 'boolean', default: false },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		// n8n's AI Agent asks for its model once per run; its chains once per item, always with item index 0
		const modelFor = async () =>
			(
				(await this.getInputConnectionData(NodeConnectionTypes.AiLanguageModel, 0)) as LcModel
			).bindTools([CALCULATOR]);
		const perItem = this.getNodeParameter('perItem', 0, false) === true;
		const shared = perItem ? undefined : await modelFor();
		const batch = Math.max(1, Number(this.getNodeParameter('batch', 0, 1)));
		const varyUser = this.getNodeParameter('varyUser', 0, false) === true;
		const out: INodeExecutionData[] = new Array(items.length);
		const runItem = async (i: number) => {
			try {
				const tag = String(this.getNodeParameter('tag', i));
				const vary = String(this.getNodeParameter('vary', i, ''));
				const suffix = String(this.getNodeParameter('suffix', i, ''));
				const raw = this.getNodeParameter('questions', i) as unknown;
				const questions = (
					typeof raw === 'string' ? JSON.parse(raw) : raw
				) as ItemOptions['questions'];
				const model = shared ?? (await modelFor());
				// what changes between tries lives in the system message, as a user writes "Today is {{ $now }}", or in the
				// user's own text (then each try asks another question)
				const messages: unknown[] =
					vary && !varyUser ? [{ role: 'system', content: `Now: ${vary}` }] : [];
				const asked = vary && varyUser ? ` (now ${vary})` : '';
				const answers: string[] = [];
				const askedTexts: string[] = [];
				for (const [j, q] of questions.entries()) {
					const text = q.arithmetic ? `What is ${q.a} + ${q.b}?` : 'Tell me about foxes.';
					askedTexts.push(`${tag} q${j}# ${text}${asked}${suffix}`.trim());
					messages.push({ role: 'user', content: askedTexts[j] });
					let answer = await model.invoke(messages);
					let rounds = 0;
					while (answer.tool_calls?.length && rounds++ < 3) {
						messages.push(answer);
						for (const c of answer.tool_calls)
							messages.push({
								role: 'tool',
								content: calculate(String(c.args.input ?? '')),
								tool_call_id: c.id,
							});
						answer = await model.invoke(messages);
					}
					messages.push(answer);
					answers.push(answer.text);
				}
				out[i] = { json: { answers, asked: askedTexts }, pairedItem: { item: i } };
			} catch (err) {
				if (this.continueOnFail()) {
					out[i] = { json: { error: (err as Error).message }, pairedItem: { item: i } };
					return;
				}
				throw new NodeOperationError(this.getNode(), err as Error, { itemIndex: i });
			}
		};
		for (let i = 0; i < items.length; i += batch) {
			// like a careful agent, a failure waits for the batch's other items (no model call outlives the node's run)
			const settled = await Promise.allSettled(
				items.slice(i, i + batch).map((_, j) => runItem(i + j)),
			);
			const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
			if (failed) throw failed.reason;
		}
		return [out];
	}
}

/** Passes its input on (the Start node the expressions name). */
export class Start implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Start',
		name: 'moneyStart',
		group: ['transform'],
		version: 1,
		description: 'start',
		defaults: { name: 'Start' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData().map((it, i) => ({ json: it.json, pairedItem: { item: i } }))];
	}
}

/** Three outputs, each with every input item: each output connected to the chain runs it once more. */
export class Fan implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Fan',
		name: 'moneyFan',
		group: ['transform'],
		version: 1,
		description: 'fan',
		defaults: { name: 'Fan' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		properties: [],
	};
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData().map((it, i) => ({ json: it.json, pairedItem: { item: i } }));
		return [items, items.map((x) => ({ ...x })), items.map((x) => ({ ...x }))];
	}
}

// ---------- the workflow ----------

export const START = 'Start';
export const FAN = 'Fan';
const MARK = (n: number) =>
	`'#c' + $('${START}').item.json.cid + ' n${n} r' + $runIndex + ' k' + $('${START}').item.json.k`;
const VARY: Record<Vary, string> = { none: "''", now: '$now.toMillis()', random: 'Math.random()' };
const item = (n: number) => `$('${START}').item.json.m[${n}]`;

export const locator = (value: string) => ({ __rl: true, mode: 'id', value });

/** The node types whose descriptions the options are drawn from (read only: each workflow node gets its own instance). */
const IMAGE = new GenGatewayImageSubmit();
const VIDEO = new GenGatewayVideoCreate();
const CHAT = new GenGatewayChat();
const MODEL = new LmChatGenGateway();
const TYPE_OF: Record<Kind, INodeType> = { image: IMAGE, gamma: VIDEO, chat: CHAT, agent: MODEL };

/** Where a node's (`n<n>`) or its Chat Model's (`m<n>`) generated per-item values stand on the Start item (`g`). */
const slotOf = (n: number, model: boolean) => `${model ? 'm' : 'n'}${n}`;

/** The money options the oracle judges, read from the description's labels: a spend, a group, unpriced models. */
const MONEY_LABEL = /Spend|Group|Unpriced/;
function moneyOptionNames(type: INodeType): Set<string> {
	return new Set(
		fieldsOf(type.description.properties)
			.filter((f) => f.path.length === 2 && f.path[0] === 'options')
			.filter((f) => MONEY_LABEL.test(f.prop.displayName))
			.map((f) => f.path[1]),
	);
}

/** A generated value with its per-item expressions (`$json.vN`) reading the Start item's slot instead. */
function fromStart(v: unknown, slot: string): unknown {
	if (typeof v === 'string')
		return v.replace(/\$json\.(v\d+)/g, `$('${START}').item.json.g.${slot}.$1`);
	if (Array.isArray(v)) return v.map((x) => fromStart(x, slot));
	if (v && typeof v === 'object')
		return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromStart(x, slot)]));
	return v;
}

/**
 * A node's options: the generated ones (when drawn) without the money options and those the case writes itself
 * (`owned`), then the case's own over them.
 */
function laid(
	type: INodeType,
	g: GeneratedOptions | undefined,
	own: Record<string, unknown>,
	owned: string[],
): Record<string, unknown> {
	if (!g) return own;
	const money = moneyOptionNames(type);
	const out = Object.fromEntries(
		Object.entries(g.options).filter(([k]) => !money.has(k) && !owned.includes(k)),
	);
	return { ...out, ...own };
}

/** The options of a generated set a node keeps (the given ones, without the money options and the case's own). */
function keptGiven(
	type: INodeType,
	g: GeneratedOptions,
	owned: string[] = [],
): Record<string, Given> {
	const money = moneyOptionNames(type);
	return Object.fromEntries(
		Object.entries(g.given).filter(([k]) => {
			const name = k.split('.')[1];
			return k.startsWith('options.') && !money.has(name) && !owned.includes(name);
		}),
	);
}

/** The options a Chat node's case writes itself (its JSON Schema, as each version stores it). */
const SCHEMA_OPTIONS = ['format', 'responseFormat', 'jsonSchema', 'schemaName', 'strictSchema'];
/** The options the Chat Model's case writes itself (Maximum Number of Tokens is the oracle's bound). */
const modelOwned = (m: Pick<ChatModelCase, 'noTemperature'>) => [
	'streaming',
	'maxTokens',
	...(m.noTemperature ? ['temperature'] : []),
];

/** The money options of node `n`, each read from the Start item's values (a value of '' is "not given"). */
function moneyOptions(c: NodeCase, n: number): Record<string, unknown> {
	const o: Record<string, unknown> = {};
	if (c.options.cap) o.maxExpectedSpend = `={{ ${item(n)}.cap }}`;
	if (c.options.spend) o.maxSpend = `={{ ${item(n)}.spend }}`;
	if (c.options.groupName) o.groupName = `={{ ${item(n)}.groupName }}`;
	if (c.options.groupRatio) o.groupRatio = `={{ ${item(n)}.groupRatio }}`;
	if (c.options.allowUnpriced) o.allowUnpriced = true;
	return o;
}

function paidNode(c: NodeCase, n: number): TestNode {
	const extra = { name: c.name, ...hostSettings(c) };
	const text = (words: string) =>
		`={{ ${MARK(n)} + '# ${words} ' + ${VARY[c.vary]} + ${item(n)}.marker }}`;
	switch (c.kind) {
		case 'image':
			return {
				...extra,
				type: new GenGatewayImageSubmit(),
				parameters: {
					operation: 'generate',
					mode: 'async',
					model: locator(MODELS.image),
					prompt: text('a fox'),
					size: `={{ ${item(n)}.bad ? '16:9' : '1536x1024' }}`,
					options: laid(
						IMAGE,
						c.generated,
						{
							...moneyOptions(c, n),
							...(c.waitForResult ? { waitForResult: true } : {}),
						},
						[],
					),
				},
				...(c.generated ? { typeVersion: c.generated.typeVersion } : {}),
			};
		case 'gamma':
			return {
				...extra,
				type: new GenGatewayVideoCreate(),
				parameters: {
					family: 'gamma',
					model: locator(MODELS.gamma),
					prompt: text('a fox running'),
					gammaSeconds: `={{ ${item(n)}.bad ? 0 : 6 }}`,
					aspectRatio: '16:9',
					options: laid(VIDEO, c.generated, moneyOptions(c, n), []),
				},
				...(c.generated ? { typeVersion: c.generated.typeVersion } : {}),
			};
		case 'chat':
			return {
				...extra,
				type: new GenGatewayChat(),
				parameters: {
					model: locator(MODELS.chat[0]),
					messagesFrom: 'ui',
					messages: {
						values: [
							{
								role: `={{ ${item(n)}.bad ? 'wizard' : 'user' }}`,
								content: text(
									c.schema && c.invalidFirst ? 'hello there [llm:invalid-first]' : 'hello there',
								),
							},
						],
					},
					stream: false,
					options: laid(
						CHAT,
						c.generated,
						{
							...moneyOptions(c, n),
							...(c.schema && c.schemaV1
								? { responseFormat: 'json_schema', jsonSchema: SCHEMA, schemaName: 'reply' }
								: c.schema
									? {
											format: {
												values: {
													responseFormat: 'json_schema',
													jsonSchema: SCHEMA,
													schemaName: 'reply',
												},
											},
										}
									: {}),
						},
						c.schema ? SCHEMA_OPTIONS : [],
					),
				},
				// a workflow saved with version 1 of the Chat node: Response Format as its four options
				...(c.schema && c.schemaV1 ? { typeVersion: 1 } : {}),
				...(c.generated ? { typeVersion: c.generated.typeVersion } : {}),
			};
		case 'agent':
			return {
				...extra,
				type: new MoneyAgent(),
				parameters: {
					tag: `={{ ${MARK(n)} }}`,
					vary: `={{ ${VARY[c.vary]} }}`,
					questions: `={{ ${item(n)}.questions }}`,
					batch: c.chatModel!.batch,
					perItem: c.chatModel!.perItem,
					varyUser: c.varyIn === 'user',
					suffix: `${
						c.chatModel!.full && c.chatModel!.maxTokens
							? ` [llm:usage completion_tokens=${c.chatModel!.maxTokens}]`
							: ''
					}${c.chatModel!.noIds ? ' [llm:no-ids]' : ''}${c.chatModel!.noTemperature ? ' [llm:no-temperature]' : ''}`,
				},
			};
	}
}

/** The Chat node's JSON Schema: the simulator answers in it, or (`invalidFirst`) first not, then the repair request. */
const SCHEMA = JSON.stringify({
	type: 'object',
	properties: { answer: { type: 'string' } },
	required: ['answer'],
});

function chatModelNode(m: ChatModelCase, n: number, group: Group, ratio: number): TestNode {
	const options: Record<string, unknown> = { streaming: m.streaming };
	if (m.maxTokens !== undefined) options.maxTokens = m.maxTokens;
	if (m.group === 'name') options.groupName = group;
	if (m.group === 'ratio') options.groupRatio = ratio;
	if (m.group === 'emptyRatio') options.groupRatio = 0;
	if (m.capPerItem) options.maxExpectedSpend = `={{ ${item(n)}.modelCap }}`;
	else if (m.cap !== undefined) options.maxExpectedSpend = m.cap;
	if (m.spend !== undefined) options.maxSpend = m.spend;
	if (m.noTemperature) options.temperature = 0.4;
	return {
		name: m.name,
		type: new LmChatGenGateway(),
		parameters: {
			model: locator(m.model),
			options: laid(MODEL, m.generated, options, modelOwned(m)),
		},
		...(m.secondAccount ? { credentialId: '2' } : {}),
		...(m.generated ? { typeVersion: m.generated.typeVersion } : {}),
	};
}

/** The node type with its executions counted by node name (n8n's tries of a run included). */
function counted(type: INodeType, tries: Record<string, number>): INodeType {
	const execute = type.execute!;
	return {
		description: type.description,
		methods: type.methods,
		async execute(this: IExecuteFunctions) {
			const name = this.getNode().name;
			tries[name] = (tries[name] ?? 0) + 1;
			return execute.call(this);
		},
	} as INodeType;
}

export interface Built {
	/** executions of each node, tries included */
	tries: Record<string, number>;
	nodes: TestNode[];
	connections: IConnections;
	input: INodeExecutionData[];
}

/** The workflow of a case; `ratio` is what the key's group is charged at (the Group Multiplier a user would give). */
export function buildWorkflow(c: MoneyCase, ratio: number, cid: number): Built {
	const nodes: TestNode[] = [
		{ name: START, type: new Start() },
		{ name: FAN, type: new Fan() },
	];
	const connections: IConnections = {
		[START]: { main: [[{ node: FAN, type: 'main', index: 0 }]] },
	};
	const first = c.nodes[0].name;
	connections[FAN] = {
		main: [0, 1, 2].map((o) => (o < c.runs ? [{ node: first, type: 'main', index: 0 }] : [])),
	};
	const tries: Record<string, number> = {};
	c.nodes.forEach((nc, n) => {
		const node = paidNode(nc, n);
		nodes.push({ ...node, type: counted(node.type as INodeType, tries) });
		if (n + 1 < c.nodes.length)
			connections[nc.name] = { main: [[{ node: c.nodes[n + 1].name, type: 'main', index: 0 }]] };
		if (nc.chatModel) {
			const to = { node: nc.name, type: NodeConnectionTypes.AiLanguageModel, index: 0 };
			// a shared Chat Model: one node, connected to each agent that uses it
			if (nc.chatModel.owner !== undefined)
				connections[nc.chatModel.name][NodeConnectionTypes.AiLanguageModel][0]!.push(to);
			else {
				nodes.push(chatModelNode(nc.chatModel, n, c.group, ratio));
				connections[nc.chatModel.name] = { [NodeConnectionTypes.AiLanguageModel]: [[to]] };
			}
		}
	});
	const input = c.items.map((perNode, k) => ({
		json: {
			cid,
			k,
			m: perNode.map((o) => ({
				cap: o.cap,
				spend: o.spend,
				groupName: o.nameGiven ? c.group : '',
				groupRatio: o.ratioGiven ? ratio : '',
				bad: o.bad,
				marker: o.fail ? ' [fail]' : '',
				questions: o.questions,
				modelCap: o.modelCap,
			})),
			// the generated per-item values of each node (n<n>) and Chat Model (m<n>) that has any
			g: Object.fromEntries(
				c.nodes.flatMap((nc, n) => [
					...(nc.generated ? [[slotOf(n, false), nc.generated.items[k] ?? {}]] : []),
					...(nc.chatModel?.generated && nc.chatModel.owner === undefined
						? [[slotOf(n, true), nc.chatModel.generated.items[k] ?? {}]]
						: []),
				]),
			),
		},
	}));
	return { tries, nodes, connections, input };
}

// ---------- generation ----------

/** Node names of any length and alphabet, sharing a prefix; never the fixed names, never alike. */
const nameParts = fc.record({
	prefix: fc.oneof(
		fc.constant(''),
		fc.string({ unit: 'grapheme', maxLength: 12 }),
		fc.string({ unit: 'binary', minLength: 30, maxLength: 160 }),
		fc.constant('GenGateway Image Submit - product catalogue '),
	),
	suffixes: fc.array(
		fc.string({
			unit: fc.oneof(
				fc.constantFrom('a', 'Z', ' ', '-', '1', '.'),
				fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
			),
			minLength: 0,
			maxLength: 6,
		}),
		{ minLength: 8, maxLength: 8 },
	),
});

const RESERVED = new Set([START, FAN]);
function uniqueNames(prefix: string, suffixes: string[]): string[] {
	const out: string[] = [];
	for (const [i, s] of suffixes.entries()) {
		let name = `${prefix}${s}`;
		if (!name.trim() || RESERVED.has(name) || name in {} || out.includes(name))
			name = `${prefix}${s}#${i}`;
		out.push(name);
	}
	return out;
}

/** How a node's items give their money options; the values are made once the case is known (see `withValues`). */
export interface NodePlan {
	/** which cap fields the collection holds */
	capFields: 'none' | 'cap' | 'spend' | 'both';
	/** the cap against the spend expected up to this node's first run: 0.2× to 4× (log scale) */
	capFactor: number;
	/** per item: no cap (null), or the node's cap × this */
	itemCaps: Array<number | null>;
	/** the display field in ¤ ('¤N') instead of the display currency, per item */
	spendInQuota: boolean[];
	groupMode: 'none' | 'name' | 'ratio' | 'emptyRatio' | 'mixed';
	mixed: Array<{ name: boolean; ratio: boolean }>;
	/** an item that fails the node's checks, or a money option that breaks its rule */
	badMode: 'none' | 'item' | 'money';
	badAt: number;
	failMode: 'none' | 'some' | 'all';
	failItems: boolean[];
	questions: ItemOptions['questions'][];
}

const question = fc.record({
	arithmetic: fc.boolean(),
	a: fc.integer({ min: 1, max: 99 }),
	b: fc.integer({ min: 1, max: 99 }),
});

const factor = fc
	.integer({ min: 0, max: 100 })
	.map((x) => Number((0.2 * 20 ** (x / 100)).toFixed(3)));

const nodePlan = (kind: Kind, items: number): fc.Arbitrary<NodePlan> =>
	fc.record({
		capFields: fc.constantFrom('none', 'cap', 'spend', 'both'),
		capFactor: factor,
		itemCaps: fc.array(fc.oneof(fc.constant(null), fc.constantFrom(1, 1, 1.3, 3)), {
			minLength: items,
			maxLength: items,
		}),
		spendInQuota: fc.array(fc.boolean(), { minLength: items, maxLength: items }),
		groupMode: fc.constantFrom('none', 'name', 'ratio', 'emptyRatio', 'mixed'),
		mixed: fc.array(fc.record({ name: fc.boolean(), ratio: fc.boolean() }), {
			minLength: items,
			maxLength: items,
		}),
		badMode:
			kind === 'agent'
				? fc.constant('none' as const)
				: fc.oneof(
						{ weight: 8, arbitrary: fc.constant('none' as const) },
						{ weight: 2, arbitrary: fc.constant('item' as const) },
						{ weight: 1, arbitrary: fc.constant('money' as const) },
					),
		badAt: fc.nat({ max: items - 1 }),
		failMode:
			kind === 'image' ? fc.constantFrom('none', 'some', 'all') : fc.constant('none' as const),
		failItems: fc.array(fc.boolean(), { minLength: items, maxLength: items }),
		questions: fc.array(
			kind === 'agent' ? fc.array(question, { minLength: 1, maxLength: 3 }) : fc.constant([]),
			{ minLength: items, maxLength: items },
		),
	}) as fc.Arbitrary<NodePlan>;

export interface ModelPlan {
	model: string;
	streaming: boolean;
	maxTokens?: number;
	group: ChatModelCase['group'];
	capFields: 'none' | 'cap' | 'spend' | 'both';
	capFactor: number;
	batch: number;
	full: boolean;
	perItem: boolean;
	capPerItem: boolean;
}

// the root that holds the model (agent or chain, its Batch Size) and the model's streaming: host-shape.ts
const modelPlan: fc.Arbitrary<ModelPlan> = fc.record({
	model: fc.constantFrom(...MODELS.chat, MODELS.thinking),
	streaming: modelStreams,
	maxTokens: fc.option(fc.constantFrom(120, 400, 4096), { nil: undefined }),
	group: fc.constantFrom('none', 'name', 'ratio', 'emptyRatio'),
	capFields: fc.constantFrom('none', 'cap', 'spend', 'both'),
	capFactor: factor,
	batch: batchSize,
	full: fc.boolean(),
	perItem: modelPerItem,
	capPerItem: fc.boolean(),
}) as fc.Arbitrary<ModelPlan>;

export interface Plan {
	kind: Kind;
	name: string;
	modelName: string;
	onError: OnError;
	maxTries: number;
	/** Retry On Fail's wait (ms): the node's later host settings, drawn after every plan */
	waitMs?: number;
	/** chat: the node at version 1 (drawn after every plan, as the later host settings) */
	schemaV1?: boolean;
	/** chat: the first answer does not validate, a repair request follows (drawn after every plan) */
	invalidFirst?: boolean;
	vary: Vary;
	waitForResult: boolean;
	allowUnpriced: boolean;
	varyIn: 'system' | 'user';
	schema: boolean;
	node: NodePlan;
	model: ModelPlan;
}

const plan = (kind: Kind, name: string, modelName: string, items: number): fc.Arbitrary<Plan> =>
	fc.record({
		kind: fc.constant(kind),
		name: fc.constant(name),
		modelName: fc.constant(modelName),
		// On Error and Retry On Fail (up to 3 tries): host-shape.ts; the later settings are drawn after every plan
		onError,
		maxTries: tries(3),
		vary: fc.constantFrom<Vary>('none', 'now', 'random'),
		waitForResult: kind === 'image' ? fc.boolean() : fc.constant(false),
		allowUnpriced:
			kind === 'chat'
				? fc.oneof(
						{ weight: 3, arbitrary: fc.constant(true) },
						{ weight: 1, arbitrary: fc.constant(false) },
					)
				: fc.constant(false),
		varyIn: fc.constantFrom<'system' | 'user'>('system', 'user'),
		schema: kind === 'chat' ? fc.boolean() : fc.constant(false),
		node: nodePlan(kind, items),
		model: modelPlan,
	});

/** Requests whose answers the proxy loses after the gateway did the work (and charged): the n-th paid POST of a route. */
export interface Loss {
	route: 'chat' | 'image' | 'video';
	nth: number;
	how: 'drop' | '500';
}

const LOSS: fc.Arbitrary<Loss> = fc.record({
	route: fc.constantFrom('chat', 'chat', 'image', 'video'),
	nth: fc.integer({ min: 1, max: 8 }),
	how: fc.constantFrom('drop', '500'),
}) as fc.Arbitrary<Loss>;

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** A moment in each of RFC 9110's three HTTP-date forms (§5.6.7): IMF-fixdate, RFC 850 (two-digit year), asctime. */
export function httpDate(form: 'imf' | 'rfc850' | 'asctime', ms: number): string {
	const d = new Date(ms);
	const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
	const mon = MONTHS[d.getUTCMonth()];
	const day = WEEKDAYS[d.getUTCDay()];
	if (form === 'imf') return d.toUTCString();
	if (form === 'rfc850')
		return `${day}, ${two(d.getUTCDate())}-${mon}-${two(d.getUTCFullYear() % 100)} ${time} GMT`;
	return `${day.slice(0, 3)} ${mon} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} ${d.getUTCFullYear()}`;
}

/**
 * A Retry-After that asks a wait longer than any window a paid request has (an hour to 49 years), in every form RFC
 * 9110 allows: an HTTP-date in any of its three forms (RFC 850's two-digit year read by §5.6.7: within 50 years ahead)
 * or delay-seconds of any size (past 2^53 too). Written as text: a rate-limit fault whose Retry-After is text asks a
 * wait that long (the money oracle (g) reads it so); the near ones are the number 0.
 */
export const FAR_RETRY_AFTER: fc.Arbitrary<string> = fc.oneof(
	fc
		.tuple(
			fc.constantFrom<'imf' | 'rfc850' | 'asctime'>('imf', 'rfc850', 'asctime'),
			fc.integer({ min: 3600, max: 49 * 365 * 86400 }),
		)
		// generated as an offset, written as the date it is from now (the run follows at once)
		.map(([form, s]) => httpDate(form, Date.now() + s * 1000)),
	fc.integer({ min: 3600, max: 2 ** 31 }).map(String),
	fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n }).map(String),
);

const FAULTS: fc.Arbitrary<FaultSpec> = fc.oneof(
	fc.integer({ min: 1, max: 3 }).map((times): FaultSpec => ({
		route: 'POST /v1/chat/completions',
		kind: 'status',
		status: 500,
		times,
	})),
	fc.integer({ min: 1, max: 2 }).map((times): FaultSpec => ({
		route: 'POST /v1/chat/completions',
		kind: 'rate-limit',
		retryAfter: 0,
		times,
	})),
	fc.constant<FaultSpec>({ route: 'POST /v1/chat/completions', kind: 'sse-cut', times: 1 }),
	// a 400 (a JSON Schema repair's, a turn's): it created nothing, and what an earlier POST spent stays spent
	fc.constant<FaultSpec>({
		route: 'POST /v1/chat/completions',
		kind: 'status',
		status: 400,
		times: 1,
	}),
	// a gateway that refuses every text call with `Retry-After: 0`: the one 429 rule bounds the sends
	fc.constant<FaultSpec>({
		route: 'POST /v1/chat/completions',
		kind: 'rate-limit',
		retryAfter: 0,
		times: -1,
	}),
	fc.integer({ min: 1, max: 2 }).map((times): FaultSpec => ({
		route: 'POST /v1/images/generations/async',
		kind: 'rate-limit',
		retryAfter: 0,
		times,
	})),
	fc
		.tuple(
			fc.constantFrom('POST /v1/chat/completions', 'POST /v1/images/generations/async'),
			FAR_RETRY_AFTER,
			fc.constantFrom(1, -1),
		)
		.map(([route, retryAfter, times]): FaultSpec => ({
			route,
			kind: 'rate-limit',
			retryAfter,
			times,
		})),
	fc.constant<FaultSpec>({
		route: 'POST /v1/images/generations/async',
		kind: 'reset-after',
		times: 1,
	}),
	fc.constant<FaultSpec>({ route: 'POST /v1/videos', kind: 'status', status: 500, times: 1 }),
	fc.constant<FaultSpec>({ route: 'POST /v1/videos', kind: 'reset-after', times: 1 }),
);

/** Paid calls a case can make at most (so every run stays small). */
export function workload(c: Pick<MoneyCase, 'runs' | 'nodes' | 'items'>): number {
	return (
		c.runs *
		c.items.reduce(
			(sum, perNode) =>
				sum +
				perNode.reduce(
					(s, o, n) =>
						s +
						(c.nodes[n].kind === 'agent'
							? o.questions.reduce((t, q) => t + (q.arithmetic ? 2 : 1), 0)
							: 1),
					0,
				),
			0,
		)
	);
}

export const MAX_WORKLOAD = 48;

/** About what one call costs at the highest published ratio (¤): for caps near what a run spends. */
function callEstimate(kind: Kind, m: ModelPlan, hi: number, q: number): number {
	if (kind === 'image') return 20_000 * hi * (q / 500_000);
	if (kind === 'gamma') return 150_000 * hi * (q / 500_000);
	if (kind === 'chat') return 300 * hi;
	const ratio = m.model === 'alpha-chat-4o' ? 1.25 : m.model === MODELS.thinking ? 0.3 : 0.075;
	// a turn: some 250 prompt tokens and a short answer, or all of Maximum Number of Tokens (× completion ratio 4)
	return (250 + 4 * (m.full && m.maxTokens ? m.maxTokens : 60)) * ratio * hi;
}

/** A cap of about `quota` ¤ written in the site's display currency. */
function displayOf(quota: number, display: Display, dollar: boolean): string {
	if (display.type === 'TOKENS') return String(Math.max(1, Math.round(quota)));
	const amount =
		display.type === 'USD'
			? quota / display.quotaPerUnit
			: (quota * display.rate) / display.quotaPerUnit;
	return `${dollar && display.type === 'USD' ? '$' : ''}${Math.max(amount, 0.000001).toFixed(6)}`;
}

/** The case with every item's values, from the plans: caps scaled to the spend expected up to each node. */
function withValues(
	base: Omit<MoneyCase, 'nodes' | 'items'> & { knownAll: boolean; concurrentCaps: boolean },
	plans: Plan[],
	itemCount: number,
): MoneyCase {
	const hi = Math.max(1.5, base.internalRatio);
	const turns = (qs: ItemOptions['questions']) =>
		qs.reduce((t, q) => t + (q.arithmetic ? 2 : 1), 0);
	let before = 0;
	const nodes: NodeCase[] = [];
	const items: ItemOptions[][] = Array.from({ length: itemCount }, () => []);
	for (const p of plans) {
		const unit = callEstimate(p.kind, p.model, hi, base.display.quotaPerUnit);
		const mine =
			p.kind === 'agent'
				? unit * p.node.questions.reduce((t, qs) => t + turns(qs), 0)
				: unit * itemCount;
		const cap = Math.max(1, Math.round(p.node.capFactor * (before + mine)));
		const groupMode = base.knownAll
			? p.node.groupMode === 'name'
				? 'name'
				: 'ratio'
			: p.node.groupMode;
		const has = {
			cap: p.node.capFields === 'cap' || p.node.capFields === 'both',
			spend: p.node.capFields === 'spend' || p.node.capFields === 'both',
		};
		let chatModel: ChatModelCase | undefined;
		if (p.kind === 'agent') {
			// a Chat Model under a cap with items running at once: only where asked (see CaseShape.concurrentCaps)
			const m =
				p.model.batch > 1 && !base.concurrentCaps
					? { ...p.model, capFields: 'none' as const }
					: p.model;
			const mCap = Math.max(1, Math.round(m.capFactor * (before + mine / 2)));
			chatModel = {
				name: p.modelName,
				model: m.model,
				streaming: m.streaming,
				maxTokens: m.maxTokens,
				group: base.knownAll ? (m.group === 'name' ? 'name' : 'ratio') : m.group,
				cap: m.capFields === 'cap' || m.capFields === 'both' ? mCap : undefined,
				spend:
					m.capFields === 'spend' || m.capFields === 'both'
						? m.capFactor > 1
							? `¤${mCap}`
							: displayOf(mCap, base.display, false)
						: undefined,
				batch: m.batch,
				full: m.full,
				perItem: m.perItem,
				capPerItem: m.capPerItem && (m.capFields === 'cap' || m.capFields === 'both'),
			};
			const agentsBefore = nodes.filter((x) => x.kind === 'agent').length;
			chatModel.noIds = base.noIds;
			chatModel.noTemperature = base.noTemperature;
			// a second account: every second agent's Chat Model on another key of the same group
			if (base.twoAccounts && agentsBefore % 2 === 1) chatModel.secondAccount = true;
			// two roots sharing one Chat Model: this agent uses the first agent's (its model node's options with it)
			const owner = base.shareModel ? nodes.findIndex((x) => x.kind === 'agent') : -1;
			if (owner >= 0) {
				const { name, model, streaming, maxTokens, group, cap, spend, capPerItem, secondAccount } =
					nodes[owner].chatModel!;
				chatModel = {
					...chatModel,
					...{ name, model, streaming, maxTokens, group, cap, spend, capPerItem, secondAccount },
					owner,
				};
			}
		}
		nodes.push({
			kind: p.kind,
			name: p.name,
			onError: p.onError,
			maxTries: p.maxTries,
			waitMs: p.waitMs,
			// every combination, agents at once with messages that change between tries included: before the Chat Model
			// knew a call by its question (issue 40), this generator found another item's answer handed on and the record
			// below the charges (seeds -2033209099, -1973058525, -100815541, -1248136572, -775940271 of money.property)
			vary: p.vary,
			options: {
				cap: has.cap,
				spend: has.spend,
				groupName: groupMode === 'name' || groupMode === 'mixed',
				groupRatio: groupMode === 'ratio' || groupMode === 'emptyRatio' || groupMode === 'mixed',
				allowUnpriced: p.allowUnpriced,
			},
			waitForResult: p.waitForResult,
			chatModel,
			...(p.kind === 'agent' ? { varyIn: p.varyIn } : {}),
			...(p.kind === 'chat'
				? { schema: p.schema, schemaV1: p.schemaV1, invalidFirst: p.invalidFirst }
				: {}),
		});
		for (let k = 0; k < itemCount; k++) {
			const m = p.node.itemCaps[k];
			const value = m === null ? undefined : Math.max(1, Math.round(cap * m));
			const bad = p.node.badMode !== 'none' && p.node.badAt === k;
			items[k].push({
				cap:
					bad && p.node.badMode === 'money' ? 'lots' : has.cap && value !== undefined ? value : '',
				spend:
					has.spend && value !== undefined
						? p.node.spendInQuota[k]
							? `¤${value}`
							: displayOf(value, base.display, k % 2 === 1)
						: '',
				nameGiven: groupMode === 'name' || (groupMode === 'mixed' && p.node.mixed[k].name),
				ratioGiven: groupMode === 'ratio' || (groupMode === 'mixed' && p.node.mixed[k].ratio),
				bad: bad && p.node.badMode === 'item',
				fail: p.node.failMode === 'all' || (p.node.failMode === 'some' && p.node.failItems[k]),
				questions: p.node.questions[k],
				// each item's own cap for the Chat Model: the node's × this item's factor (none where the factor is none)
				modelCap:
					chatModel?.capPerItem && m !== null
						? Math.max(1, Math.round((chatModel.cap ?? 1) * m))
						: '',
			});
		}
		before += mine * base.runs;
	}
	return {
		group: base.group,
		internalRatio: base.internalRatio,
		partnerRatio: base.partnerRatio,
		display: base.display,
		runs: base.runs,
		knownAll: base.knownAll,
		nodes,
		items,
		faults: base.faults,
		losses: base.losses,
		relabel: base.relabel,
		shareModel: base.shareModel,
		twoAccounts: base.twoAccounts,
		noIds: base.noIds,
		noTemperature: base.noTemperature,
	};
}

/**
 * The labels of the text routes' answers, generated (issue 42, bullet 4: bodies read as they say on every path): a
 * gateway that ignores `stream: true` and answers whole JSON (the simulator's `ignore-stream` fault, for ever), and a
 * proxy that passes the gateway's event streams and JSON answers on under another Content-Type — a stream's label, a
 * JSON label, none, and charsets the body was not written in (the answers are UTF-8). Every answer stays readable: an
 * event stream by its events, a JSON answer by the plain path's rules (a charset label that does not read falls back
 * to UTF-8). Left out: a Latin-1 label on a UTF-8 answer (read as Latin-1, as labelled: the text changes, the item
 * markers with it) and a UTF-16 label on an event stream (a stream is decoded as it arrives, in its label's charset).
 */
export interface Relabel {
	/** the gateway answers every streamed text request with whole JSON */
	ignoreStream: boolean;
	/** the Content-Type every event stream is passed on with ('' drops the header; absent: as sent) */
	stream?: string;
	/** the Content-Type every JSON answer of a text route is passed on with ('' drops the header; absent: as sent) */
	json?: string;
}

const label = (types: string[], charsets: string[]) =>
	fc
		.tuple(fc.constantFrom(...types), fc.constantFrom(...charsets))
		.map(([t, c]) => (t === '' ? '' : `${t}${c}`));

export const RELABEL: fc.Arbitrary<Relabel> = fc.record(
	{
		ignoreStream: fc.boolean(),
		stream: label(
			['text/event-stream', 'text/plain', 'application/json', 'application/octet-stream', ''],
			['', '; charset=utf-8', ';charset="UTF-8"'],
		),
		json: label(
			[
				'text/event-stream',
				'application/json',
				'text/plain',
				'application/octet-stream',
				'TEXT/EVENT-STREAM',
				'',
			],
			[
				'',
				'; charset=utf-8',
				'; charset=utf-16',
				';charset="UTF-16LE"',
				'; charset=utf-16be',
				'; charset=ucs-2',
			],
		),
	},
	{ requiredKeys: ['ignoreStream'] },
);

export interface CaseShape {
	kinds?: fc.Arbitrary<Kind[]>;
	runs?: fc.Arbitrary<number>;
	items?: fc.Arbitrary<number>;
	losses?: fc.Arbitrary<Loss[]>;
	faults?: fc.Arbitrary<FaultSpec[]>;
	knownAll?: fc.Arbitrary<boolean>;
	group?: fc.Arbitrary<Group>;
	/** A Chat Model with a cap may serve an agent running items at once (on unless a shape says otherwise). */
	concurrentCaps?: boolean;
	/** changes each node plan (a focused property) */
	plan?: (p: Plan) => Plan;
	relabel?: fc.Arbitrary<Relabel | undefined>;
	shareModel?: fc.Arbitrary<boolean>;
	twoAccounts?: fc.Arbitrary<boolean>;
	noIds?: fc.Arbitrary<boolean>;
	noTemperature?: fc.Arbitrary<boolean>;
}

/** A generated factor (0.2–4, log scale) moved into [low, high], keeping its order (so shrinking still works). */
export const squeeze = (f: number, low: number, high: number) =>
	Number((low * (high / low) ** (Math.log(f / 0.2) / Math.log(20))).toFixed(3));

/** A generated case; `shape` narrows it (a focused property). */
export function moneyCase(shape: CaseShape = {}): fc.Arbitrary<MoneyCase> {
	// several nodes, several of one kind among them (host-shape.ts)
	const kinds = shape.kinds ?? kindsOf<Kind>(['image', 'gamma', 'chat', 'agent'], 4);
	return fc
		.record({
			kinds,
			names: nameParts,
			group: shape.group ?? fc.constantFrom(...GROUPS),
			internalRatio: fc.constantFrom(0.5, 0.9, 1.2, 2),
			partnerRatio: fc.constantFrom(0.3, 0.6, 1.1, 1.5),
			display: fc.oneof(
				{
					weight: 4,
					arbitrary: fc
						.constantFrom(500_000, 500_000, 1_000_000, 250_000)
						.map((quotaPerUnit): Display => ({ type: 'USD', quotaPerUnit })),
				},
				{
					weight: 1,
					arbitrary: fc
						.constantFrom(7.3, 7.1)
						.map((rate): Display => ({ type: 'CNY', rate, quotaPerUnit: 500_000 })),
				},
				{ weight: 1, arbitrary: fc.constant<Display>({ type: 'TOKENS', quotaPerUnit: 500_000 }) },
			),
			// run index > 0: the Fan runs the chain again (host-shape.ts)
			runs: shape.runs ?? runCount,
			itemCount:
				shape.items ?? fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 8 })),
			faults: shape.faults ?? fc.array(FAULTS, { maxLength: 2 }),
			losses: shape.losses ?? fc.array(LOSS, { maxLength: 2 }),
			knownAll:
				shape.knownAll ??
				fc.oneof(
					{ weight: 2, arbitrary: fc.constant(false) },
					{ weight: 1, arbitrary: fc.constant(true) },
				),
			concurrentCaps: fc.constant(shape.concurrentCaps ?? true),
			relabel: shape.relabel ?? fc.option(RELABEL, { freq: 4, nil: undefined }),
			shareModel: shape.shareModel ?? shareModel,
			twoAccounts: shape.twoAccounts ?? twoAccounts,
			noIds: shape.noIds ?? fc.boolean(),
			noTemperature:
				shape.noTemperature ??
				fc.oneof(
					{ weight: 3, arbitrary: fc.constant(false) },
					{ weight: 1, arbitrary: fc.constant(true) },
				),
		})
		.chain((b) => {
			const names = uniqueNames(b.names.prefix, b.names.suffixes);
			return fc.record({
				base: fc.constant(b),
				plans: fc.tuple(...b.kinds.map((k, n) => plan(k, names[n], names[4 + n], b.itemCount))),
				// each node's later host settings (host-shape.ts), drawn after everything else
				later: fc.array(laterHost, { minLength: b.kinds.length, maxLength: b.kinds.length }),
				// each Chat node at version 1 or the latest (issue 43: the version a workflow was saved with)
				v1: fc.array(savedAtVersion1, { minLength: b.kinds.length, maxLength: b.kinds.length }),
				// each Chat node's first answer valid or not (a JSON Schema's repair request, its second POST), drawn last
				invalid: fc.array(fc.boolean(), {
					minLength: b.kinds.length,
					maxLength: b.kinds.length,
				}),
			});
		})
		.chain(({ base, plans: drawn, later, v1, invalid }) => {
			const plans = drawn.map((p, n): Plan => ({
				...p,
				...later[n],
				schemaV1: v1[n],
				invalidFirst: invalid[n],
			}));
			const final = shape.plan ? plans.map(shape.plan) : plans;
			// issue 43: about half the nodes and Chat Models take options drawn from their descriptions (drawn last)
			const gens = fc.tuple(...final.map((p, n) => generatedFor(p, n, base.itemCount)));
			return gens.map((g) => {
				const c = withValues(base, final, base.itemCount);
				c.nodes.forEach((node, n) => {
					const [own, model] = g[n];
					if (own) {
						node.generated = own;
						adoptSpend(c, n);
					}
					if (model && node.chatModel && node.chatModel.owner === undefined)
						node.chatModel.generated = model;
				});
				// keep each run small: fewer items (then fewer runs) until the calls fit
				while (workload(c) > MAX_WORKLOAD && c.items.length > 1) c.items = c.items.slice(0, -1);
				while (workload(c) > MAX_WORKLOAD && c.runs > 1) c.runs--;
				return c;
			});
		});
}

/**
 * A generated *Max Expected Spend* the oracle reads exactly as the README does — a positive decimal in the site's
 * display currency (`$` before it on a USD site), `¤N` in quota units, or empty (not set) on every item — becomes the
 * node's display-currency cap when the case drew none in that field: the oracle then judges it as the case's own (its
 * items' values go through the Start item). Any other value stays out, as a money option the case did not draw.
 */
function adoptSpend(c: MoneyCase, n: number): void {
	const node = c.nodes[n];
	const g = node.generated?.given['options.maxSpend'];
	if (!g || node.options.spend) return;
	const values = c.items.map((_, k) => (g.how === 'per item' ? g.values[k] : g.value));
	const readable = (v: unknown) =>
		typeof v === 'string' &&
		(v === '' ||
			/^¤[1-9]\d*$/.test(v) ||
			(/^\d+(\.\d+)?$/.test(v.replace(c.display.type === 'USD' ? /^\$/ : /^$/, '')) &&
				displayToQuota(v.replace(/^\$/, ''), c.display, c.display.quotaPerUnit) > 0));
	if (!values.every(readable)) return;
	node.options.spend = true;
	node.spendFromDescription = true;
	values.forEach((v, k) => (c.items[k][n].spend = v as string));
}

/** What description-gen needs around the money runs (the options drawn here hold no model and no binary data). */
const GEN_CTX: GenContext = {
	key: 'sk-money-generated',
	lists: {},
	addresses: ['https://media.example/cat.png', 'https://cdn.media.example/dog.png'],
};
/** The levels the money property draws at: most sets plain (they reach the gateway), the rest with one odd field. */
const NEAR: Level[] = ['plain', 'plain', 'one odd', 'one odd', 'one odd'];

/** A generated set as a node takes it: its options (per-item fields reading the Start item's slot) and their values. */
function generatedOf(s: ParameterSet, slot: string): GeneratedOptions {
	return {
		typeVersion: s.typeVersion,
		level: s.level ?? 'plain',
		options: fromStart(s.parameters.options ?? {}, slot) as Record<string, unknown>,
		given: Object.fromEntries(Object.entries(s.given).filter(([k]) => k.startsWith('options.'))),
		items: s.items.map((it) =>
			Object.fromEntries(Object.entries(it).filter(([k]) => /^v\d+$/.test(k))),
		),
	};
}

/** The versions a node of the plan may run at: a Chat node's JSON Schema as its version stores it. */
function versionsFor(p: Plan, type: INodeType): number[] {
	const all = versionsOf(type.description);
	if (p.kind !== 'chat' || !p.schema) return all;
	return p.schemaV1 ? [1] : all.filter((v) => v > 1);
}

/** For node `n` of a plan: options generated from its description (or none), and from its Chat Model's (agents). */
function generatedFor(
	p: Plan,
	n: number,
	items: number,
): fc.Arbitrary<[GeneratedOptions | undefined, GeneratedOptions | undefined]> {
	const one = (type: INodeType, versions: number[], model: boolean) =>
		fc.option(
			fc
				.constantFrom(...versions)
				.chain((v) => parameterSetArb(type, v, items, GEN_CTX, { levels: NEAR }))
				.map((s) => generatedOf(s, slotOf(n, model))),
			{ freq: 2, nil: undefined },
		);
	return p.kind === 'agent'
		? fc.tuple(fc.constant(undefined), one(MODEL, versionsOf(MODEL.description), true))
		: fc.tuple(
				one(TYPE_OF[p.kind], versionsFor(p, TYPE_OF[p.kind]), false),
				fc.constant(undefined),
			);
}

/**
 * The generated options each node and each Chat Model node of a case kept (undefined: it took none), as the workflow
 * has them: without the money options and those the case writes itself.
 */
export function generatedOptionsOf(c: MoneyCase): Array<Record<string, Given> | undefined> {
	return c.nodes.flatMap((node) => {
		const m = node.chatModel;
		if (node.kind !== 'agent') return [keptOf(node)];
		return m && m.owner === undefined ? [keptOfModel(m)] : [];
	});
}

/** The generated options an action node kept. */
export function keptOf(node: NodeCase): Record<string, Given> | undefined {
	if (!node.generated || node.kind === 'agent') return undefined;
	const owned = node.kind === 'chat' && node.schema ? SCHEMA_OPTIONS : [];
	return keptGiven(TYPE_OF[node.kind], node.generated, owned);
}

/** The generated options a Chat Model node kept. */
function keptOfModel(m: ChatModelCase): Record<string, Given> | undefined {
	return m.generated ? keptGiven(MODEL, m.generated, modelOwned(m)) : undefined;
}

/** A short description of a case for the failure message. */
export function describeMoneyCase(c: MoneyCase): string {
	const nodes = c.nodes.map(
		(n) =>
			`${n.kind}(${JSON.stringify(n.name.length > 40 ? `${n.name.slice(0, 20)}…${n.name.length}` : n.name)}, ${n.onError}, tries ${n.maxTries}${n.maxTries > 1 && n.waitMs ? ` (wait ${n.waitMs} ms)` : ''}, vary ${n.vary}${n.varyIn === 'user' ? ' in user text' : ''}${n.schema ? `, JSON Schema${n.schemaV1 ? ' (version 1)' : ''}${n.invalidFirst ? ' first answer invalid' : ''}` : ''}${n.waitForResult ? ', wait' : ''}${n.chatModel ? `, model ${n.chatModel.model}${n.chatModel.streaming ? ' streamed' : ''} maxTokens ${n.chatModel.maxTokens ?? '-'} group ${n.chatModel.group} cap ${n.chatModel.cap ?? '-'}${n.chatModel.capPerItem ? ' per item' : ''} spend ${n.chatModel.spend ?? '-'} batch ${n.chatModel.batch}${n.chatModel.perItem ? ' model per item' : ''}${n.chatModel.full ? ' full answers' : ''}${n.chatModel.owner !== undefined ? ` (node ${n.chatModel.owner}'s Chat Model)` : ''}${n.chatModel.secondAccount ? ' second account' : ''}${n.chatModel.noIds ? ' no tool call IDs' : ''}${n.chatModel.noTemperature ? ' temperature refused' : ''}${n.chatModel.generated ? `, Chat Model v${n.chatModel.generated.typeVersion} generated ${JSON.stringify(keptOfModel(n.chatModel))}` : ''}` : ''}${n.generated ? `, v${n.generated.typeVersion} generated ${JSON.stringify(keptOf(n))}` : ''}${n.spendFromDescription ? `, Max Expected Spend generated ${JSON.stringify(n.generated?.given['options.maxSpend'])}` : ''})`,
	);
	return `key in ${c.group} (internal ${c.internalRatio}, partner ${c.partnerRatio}), ${c.display.type}${c.display.type === 'CNY' ? ` ${c.display.rate}` : ''} (¤${c.display.quotaPerUnit} a unit), ${c.runs} run(s), ${c.items.length} item(s): ${nodes.join(' → ')}; faults ${JSON.stringify(c.faults)}; lost answers ${JSON.stringify(c.losses)}${c.relabel ? `; labels ${JSON.stringify(c.relabel)}` : ''}`;
}
