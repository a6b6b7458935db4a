/**
 * The n8n side of a generated run: which node and mode, how many items, the error setting, Retry On Fail and its
 * tries, whether the prompt expression changes between tries, and the gateway's script for the run. Options keep
 * every bound short (submit 2.5 s, synchronous 3 s, deadlines 1.8 to 3 s, streams 4 s) so a run ends in seconds.
 */
import fc from 'fast-check';
import type { IDataObject, INodeExecutionData, INodeType } from 'n8n-workflow';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import type { TestNode } from '../harness/workflow';
import { script, type Behaviour, type Script } from './behaviours';
import {
	expressionText,
	parameterSetArb,
	versionsOf,
	type GenContext,
	type Given,
	type Level,
} from './description-gen';
import type { TaskInfo } from './hostile-gateway';
import {
	describeHost,
	executionStreams,
	hostSettings,
	laterHost,
	onError,
	tries,
	type OnError,
} from './host-shape';
import { KEY } from './key';
import { describeForm, formArb, formOf, type FormSpec } from './redaction-forms';

export type NodeCase =
	| { node: 'image'; mode: 'async' | 'sync' | 'native' | 'edit'; wait: boolean }
	| { node: 'video'; family: 'delta' | 'gamma' }
	| { node: 'chat' | 'responses'; stream: boolean }
	| { node: 'wait'; tasks: Array<'image' | 'delta' | 'gamma'> }
	| { node: 'download'; source: 'imageTask' | 'videoTask' | 'url-image' | 'url-video' };

export interface RunCase {
	node: NodeCase;
	items: number;
	onError: OnError;
	/** 1: Retry On Fail off */
	maxTries: number;
	/** Retry On Fail's wait between tries (ms) */
	waitMs?: number;
	/** the prompt expression reads the clock and Math.random: each try sends a different body */
	changing: boolean;
	script: Script;
	/** n8n streams the execution (a chat or webhook): the chunks nodes send reach it (runOne receives them) */
	n8nStreams?: boolean;
	/**
	 * Task Wait and Download Result's task sources: per item, a generated form of the key that is the input item's task
	 * ID (it names the files stored, and the task queried on the key's own origin)
	 */
	idForms?: Array<FormSpec | null>;
	/** Task Wait and Download Result (task sources): several items naming one task, and what the gateway says of it */
	shared?: SharedTasks;
	/** a paid node's options drawn from its description (description-gen.ts) over its working parameters */
	described?: DescribedOptions;
}

/**
 * A paid node's `options` collection generated from its description (`parameterSetArb`, only `options` generated,
 * over the node's working parameters: model, prompt, mode …), at a version the node declares, which the node runs at.
 * The run's short bounds (`SHORT_*`) stay the ground under it; a generated bound that reads as a longer time than the
 * run's is shortened to it (the value keeps its form: a number, numeric text, per item), so a run still ends in
 * seconds; any other value, odd ones included, is as generated.
 */
export interface DescribedOptions {
	typeVersion: number;
	level?: Level;
	/** the generated collection as the workflow stores it (expressions and `={{ $json.vN }}` included) */
	options: Record<string, unknown>;
	/** how each option was given, by its path (`options.quoteOnly`, `options.format.values.responseFormat` …) */
	given: Record<string, Given>;
	/** per input item, the values of the per-item options (`v0`, `v1` …): merged into the run's input items */
	items: IDataObject[];
}

/** How an item names its task: a submit node's full item, the gateway's task object, or a bare task ID. */
export type Shape = 'full' | 'object' | 'bare';
/** What the gateway says of a task, every time it is asked (written into the script: clean answers, repeated). */
export type Fate = 'completed' | 'failed' | 'running' | 'unknown';

/**
 * Item `i` names the task of item `owner[i]` (≤ i; the same task and origin), in `shape[i]`; the gateway's queries of
 * a task are answered from its owner's script slot. `fate[o]`, when set, replaces owner o's query (and result) script
 * with one clean answer repeated: the task completed, failed, still running, or unknown (404 "task not found").
 */
export interface SharedTasks {
	owner: number[];
	shape: Shape[];
	fate: Array<Fate | null>;
}

export const PAID = new Set(['image', 'video', 'chat', 'responses']);

const model = (value: string) => ({ __rl: true, mode: 'id', value });
/** The item's marker comes first: the gateway counts POSTs per item by it. */
const prompt = (changing: boolean) =>
	changing
		? "={{ 'item-' + $itemIndex + ' draw ' + $now.toMillis() + ' ' + Math.random() }}"
		: "={{ 'item-' + $itemIndex + ' draw ' + $json.p }}";

export const paidNode: fc.Arbitrary<NodeCase> = fc.oneof(
	fc
		.record({
			node: fc.constant('image' as const),
			mode: fc.constantFrom<'async' | 'sync' | 'native' | 'edit'>(
				'async',
				'sync',
				'native',
				'edit',
			),
			wait: fc.boolean(),
		})
		.map((c) => (c.mode === 'sync' || c.mode === 'native' ? { ...c, wait: false } : c)),
	fc.record({
		node: fc.constant('video' as const),
		family: fc.constantFrom<'delta' | 'gamma'>('delta', 'gamma'),
	}),
	fc.record({
		node: fc.constantFrom<'chat' | 'responses'>('chat', 'responses'),
		stream: fc.boolean(),
	}),
);

export const waitDownloadNode: fc.Arbitrary<NodeCase> = fc.oneof(
	fc.record({
		node: fc.constant('wait' as const),
		tasks: fc.array(
			fc.constantFrom<'image' | 'delta' | 'gamma'>('image', 'image', 'delta', 'gamma'),
			{ minLength: 8, maxLength: 8 },
		),
	}),
	fc.record({
		node: fc.constant('download' as const),
		source: fc.constantFrom<'imageTask' | 'videoTask' | 'url-image' | 'url-video'>(
			'imageTask',
			'videoTask',
			'url-image',
			'url-video',
		),
	}),
);

/**
 * A form of the key a task ID can be: mostly its Base64 (URL alphabet, no padding) among other bytes, which passes the
 * task-ID rule; sometimes any form (the rule refuses it: the refusal must not show it either).
 */
export const idForm: fc.Arbitrary<FormSpec> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc
			.record({
				before: fc.array(fc.nat(255), { maxLength: 12 }),
				after: fc.array(fc.nat(255), { maxLength: 12 }),
			})
			.map(({ before, after }): FormSpec => ({
				base64: { before, after, urlAlphabet: true, padding: false },
				layers: [],
			})),
	},
	{ weight: 1, arbitrary: formArb },
);

const sharedTasks: fc.Arbitrary<SharedTasks> = fc
	.record({
		owner: fc.array(fc.nat(7), { minLength: 8, maxLength: 8 }),
		shape: fc.array(fc.constantFrom<Shape>('full', 'object', 'bare'), {
			minLength: 8,
			maxLength: 8,
		}),
		fate: fc.array(
			fc.option(fc.constantFrom<Fate>('completed', 'failed', 'running', 'unknown'), {
				freq: 4,
				nil: null,
			}),
			{ minLength: 8, maxLength: 8 },
		),
	})
	// an item names its own task or an earlier item's
	.map((t) => ({ ...t, owner: t.owner.map((o, i) => o % (i + 1)) }));

/** One clean answer, repeated for every later request of its class and slot. */
const clean = (status: number | 'normal', body: Behaviour['body']): Behaviour[] => [
	{ status, body, delivery: { kind: 'whole', chunked: false }, delayMs: 0, repeat: true },
];

/** The script with each fated task's queries (and its result files) answered as its fate says. */
function withFates(s: Script, t: SharedTasks): Script {
	const out: Script = {
		...s,
		query: [...s.query],
		result: [...s.result],
		content: [...s.content],
	};
	t.fate.forEach((f, o) => {
		if (!f) return;
		out.query[o] =
			f === 'unknown'
				? clean(404, {
						kind: 'json',
						value: {
							error: {
								message: 'task not found',
								type: 'invalid_request_error',
								code: 'task_not_found',
							},
						},
					})
				: clean('normal', {
						kind: 'plausible',
						variant: 0,
						taskState: f === 'running' ? 'processing' : f,
					});
		out.result[o] = clean('normal', { kind: 'plausible', variant: 0 });
		out.content[o] = clean('normal', { kind: 'plausible', variant: 0 });
	});
	return out;
}

const idForms = fc.array(
	fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: idForm }),
	{ minLength: 8, maxLength: 8 },
);

/** The generator's address list (reserved names that resolve nowhere), as the described-nodes property gives it. */
const GEN_CTX: GenContext = {
	key: KEY,
	lists: {},
	addresses: ['https://media.example/cat.png', 'https://cdn.media.example/clip.png'],
};
/** Mostly sets as the editor gives them, or with one field astray, so that most runs still reach the gateway. */
const DESCRIBED_LEVELS: readonly Level[] = [
	'plain',
	'plain',
	'plain',
	'one odd',
	'one odd',
	'a few odd',
];

/** The generated options of a paid node's case (see DescribedOptions), at a version its description declares. */
export function describedOptions(c: RunCase): fc.Arbitrary<DescribedOptions> {
	const { type, parameters } = paidBase(c);
	const { options: ground, ...base } = parameters;
	return fc
		.constantFrom(...versionsOf(type.description))
		.chain((v) =>
			parameterSetArb(type, v, c.items, GEN_CTX, {
				levels: DESCRIBED_LEVELS,
				within: { base, field: 'options' },
			}),
		)
		.map((set) => {
			const given = structuredClone(
				Object.fromEntries(Object.entries(set.given).filter(([k]) => k.startsWith('options.'))),
			);
			const items = set.items.map((it) =>
				Object.fromEntries(Object.entries(it).filter(([k]) => /^v\d+$/.test(k))),
			);
			const options = {
				...(ground as IDataObject),
				...((set.parameters.options ?? {}) as IDataObject),
			};
			for (const [k, bound] of Object.entries(ground as Record<string, unknown>))
				if (typeof bound === 'number') shorten(options, given, items, k, bound);
			return { typeVersion: set.typeVersion, level: set.level, options, given, items };
		});
}

/** A value that reads as a longer time than `bound` (a number, or text of one) becomes `bound`, in the same form. */
const shortened = (v: unknown, bound: number): unknown => {
	const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
	return Number.isFinite(n) && n > bound ? (typeof v === 'string' ? String(bound) : bound) : v;
};

/** Option `k` of a generated set held to the run's bound, however it was given (typed, an expression, per item). */
function shorten(
	options: IDataObject,
	given: Record<string, Given>,
	items: IDataObject[],
	k: string,
	bound: number,
): void {
	const g = given[`options.${k}`];
	if (!g) return;
	if (g.how === 'fixed') {
		g.value = shortened(g.value, bound);
		options[k] = g.value as IDataObject[string];
	} else if (g.how === 'expression') {
		g.value = shortened(g.value, bound);
		options[k] = expressionText(g.value);
	} else {
		const slot = /\$json\.(v\d+)/.exec(String(options[k]))![1];
		g.values = g.values.map((v) => shortened(v, bound));
		items.forEach((it, i) => (it[slot] = g.values[i] as IDataObject[string]));
	}
}

export const runCase = (
	nodes: fc.Arbitrary<NodeCase>,
	/** draw a paid node's options from its description in about half the runs (DescribedOptions) */
	described = false,
): fc.Arbitrary<RunCase> =>
	fc
		.record({
			node: nodes,
			items: fc.integer({ min: 1, max: 8 }),
			// how n8n hosts the node (On Error, Retry On Fail's tries, and last its later settings): host-shape.ts
			onError,
			maxTries: tries(5),
			changing: fc.boolean(),
			script: script({ paid: 3, query: 2, result: 2, content: 2, meta: 2 }),
			n8nStreams: executionStreams,
			idForms: fc.option(idForms, { freq: 2, nil: undefined }),
			shared: fc.option(sharedTasks, { freq: 2, nil: undefined }),
			later: laterHost,
		})
		.map(({ later, ...c }) => ({ ...c, ...later }))
		.map((c) =>
			c.node.node === 'wait' ||
			(c.node.node === 'download' &&
				(c.node.source === 'imageTask' || c.node.source === 'videoTask'))
				? c.shared
					? { ...c, script: withFates(c.script, c.shared) }
					: { ...c, shared: undefined }
				: { ...c, idForms: undefined, shared: undefined },
		)
		// drawn last, so a seed written down before it keeps every other value of its case
		.chain((c) =>
			described && PAID.has(c.node.node)
				? fc
						.option(describedOptions(c), { freq: 2, nil: undefined })
						.map((d) => (d ? { ...c, described: d } : c))
				: fc.constant(c),
		);

const SHORT_SUBMIT = { submitTimeoutMs: 2500 };
const SHORT_TEXT = { timeoutMs: 3000, idleTimeoutMs: 1000, maxDurationMs: 4000 };
/** Download Result looking a task up: Wait for an Unfinished Task short like every other bound here (default 30 s) */
const SHORT_LOOKUP = { waitSeconds: 2 };

/** A paid node's type and its working parameters, options with the run's short bounds (the hand-built case). */
function paidBase(c: RunCase): { type: INodeType; parameters: IDataObject } {
	const node = buildNode({ ...c, described: undefined });
	return { type: node.type as INodeType, parameters: node.parameters as IDataObject };
}

export function buildNode(c: RunCase): TestNode {
	const built = handBuilt(c);
	const d = c.described;
	return d
		? {
				...built,
				typeVersion: d.typeVersion,
				parameters: { ...built.parameters, options: structuredClone(d.options) },
			}
		: built;
}

function handBuilt(c: RunCase): TestNode {
	const base = {
		name: 'Node',
		...hostSettings(c),
	};
	const n = c.node;
	switch (n.node) {
		case 'image': {
			const beta = n.mode === 'sync' || n.mode === 'native';
			return {
				...base,
				type: new GenGatewayImageSubmit(),
				parameters: {
					operation: n.mode === 'edit' ? 'edit' : 'generate',
					mode: n.mode === 'edit' ? 'async' : n.mode,
					model: model(beta ? 'beta-3.1-flash-image-preview' : 'alpha-image-2.5'),
					prompt: prompt(c.changing),
					size: '1024x1024',
					...(n.mode === 'native' ? { nativeImageSize: '1K', aspectRatio: '1:1' } : {}),
					...(n.mode === 'edit' ? { referenceBinaries: 'data', editEncoding: 'multipart' } : {}),
					options: {
						...SHORT_SUBMIT,
						syncTimeoutMs: 3000,
						deadlineMinutes: 0.05,
						waitForResult: n.wait,
					},
				},
			};
		}
		case 'video':
			return {
				...base,
				type: new GenGatewayVideoCreate(),
				parameters:
					n.family === 'delta'
						? {
								family: 'delta',
								model: model('delta-video-2-0-mini-260615'),
								prompt: prompt(c.changing),
								seconds: 5,
								resolution: '480p',
								ratio: '16:9',
								generateAudio: false,
								watermark: false,
								options: SHORT_SUBMIT,
							}
						: {
								family: 'gamma',
								model: model('gamma-video-1.5'),
								prompt: prompt(c.changing),
								gammaSeconds: 8,
								aspectRatio: '16:9',
								options: SHORT_SUBMIT,
							},
			};
		case 'chat':
			return {
				...base,
				type: new GenGatewayChat(),
				parameters: {
					model: model('alpha-chat-4o'),
					messagesFrom: 'ui',
					messages: { values: [{ role: 'user', content: prompt(c.changing) }] },
					stream: n.stream,
					options: SHORT_TEXT,
				},
			};
		case 'responses':
			return {
				...base,
				type: new GenGatewayResponses(),
				parameters: {
					model: model('alpha-chat-4o'),
					input: prompt(c.changing),
					stream: n.stream,
					options: SHORT_TEXT,
				},
			};
		case 'wait':
			return {
				...base,
				type: new GenGatewayTaskWait(),
				parameters: {
					taskId: '={{ $json.task_id }}',
					taskKind: 'auto',
					options: { deadlineMinutes: 0.03, maxWaitSeconds: 1.5, videoIntervalMs: 1000 },
				},
			};
		case 'download': {
			const params: IDataObject =
				n.source === 'imageTask'
					? { source: 'imageTask', task: '={{ $json }}', options: SHORT_LOOKUP }
					: n.source === 'videoTask'
						? { source: 'videoTask', taskId: '={{ $json.task_id }}', options: SHORT_LOOKUP }
						: {
								source: 'url',
								url: '={{ $json.url }}',
								resultType: n.source === 'url-video' ? 'video' : 'image',
							};
			return { ...base, type: new GenGatewayDownloadResult(), parameters: params };
		}
	}
}

/** The task ID the input item `i` names (Task Wait, Download Result), if any: `w<i>x<i>`, or a form of the key. */
export function inputTaskId(c: RunCase, i: number): string | undefined {
	if (!(
		c.node.node === 'wait' ||
		(c.node.node === 'download' && c.node.source !== 'url-image' && c.node.source !== 'url-video')
	))
		return undefined;
	const o = c.shared?.owner[i] ?? i;
	const form = c.idForms?.[o];
	return form ? formOf(KEY, form) : `w${o}x${o}`;
}

/** The item that names task `id` of kind `t` in `shape` (see SharedTasks). */
function shaped(shape: Shape, id: string, t: 'image' | 'delta' | 'gamma'): IDataObject {
	if (shape === 'bare') return { task_id: id };
	const model =
		t === 'image'
			? 'alpha-image-2.5'
			: t === 'delta'
				? 'delta-video-2-0-mini-260615'
				: 'gamma-video-1.5';
	if (shape === 'full')
		return t === 'image'
			? { task_id: id, status: 'submitted', kind: 'image', model, poll_after_ms: 0 }
			: { task_id: id, status: 'submitted', kind: 'video', family: t, model };
	// the gateway's task object as a query answered it while the task ran (spec: the image task object, a video's)
	return t === 'image'
		? {
				task_id: id,
				id,
				object: 'image.generation.task',
				status: 'processing',
				state: 'running',
				data: [],
				poll_after_ms: 0,
			}
		: t === 'gamma'
			? { task_id: id, status: 'processing' }
			: { task_id: id, id, object: 'video', model, status: 'in_progress', progress: 10 };
}

export function buildInput(
	c: RunCase,
	origins: { resultOrigin: string },
	png: Buffer,
): { items: INodeExecutionData[]; tasks: Record<string, TaskInfo> } {
	const items: INodeExecutionData[] = [];
	const tasks: Record<string, TaskInfo> = {};
	const n = c.node;
	const shared = c.shared;
	for (let i = 0; i < c.items; i++) {
		const id = inputTaskId(c, i);
		const o = shared?.owner[i] ?? i;
		if (n.node === 'wait') {
			const t = n.tasks[o];
			tasks[id!] = {
				item: o,
				kind: t === 'image' ? 'image' : 'video',
				family: t === 'image' ? undefined : t,
			};
			items.push({
				json: shared
					? shaped(shared.shape[i], id!, t)
					: t === 'image'
						? { task_id: id, kind: 'image', poll_after_ms: 0 }
						: {
								task_id: id,
								kind: 'video',
								family: t,
								model: t === 'delta' ? 'delta-video-2-0-mini-260615' : 'gamma-video-1.5',
							},
			});
		} else if (n.node === 'download') {
			if (n.source === 'imageTask' && shared) {
				tasks[id!] = { item: o, kind: 'image' };
				items.push({ json: shaped(shared.shape[i], id!, 'image') });
			} else if (n.source === 'imageTask')
				items.push({
					json: {
						task_id: id,
						status: 'completed',
						data: [{ url: `${origins.resultOrigin}/r/x${i}/dl/0.png` }],
					},
				});
			else if (n.source === 'videoTask') {
				const family = o % 2 ? 'gamma' : 'delta';
				tasks[id!] = { item: o, kind: 'video', family };
				items.push({
					json: shared
						? shaped(shared.shape[i], id!, family)
						: {
								task_id: id,
								family,
								model: o % 2 ? 'gamma-video-1.5' : 'delta-video-2-0-mini-260615',
							},
				});
			} else
				items.push({
					json: {
						url:
							n.source === 'url-video'
								? `${origins.resultOrigin}/v/x${i}/u.mp4`
								: `${origins.resultOrigin}/r/x${i}/u/0.png`,
					},
				});
		} else if (n.node === 'image' && n.mode === 'edit') {
			items.push({
				json: { p: `p${i}` },
				binary: {
					data: { data: png.toString('base64'), mimeType: 'image/png', fileName: 'ref.png' },
				},
			});
		} else if (c.described && (n.node === 'chat' || n.node === 'responses'))
			// an item with a picture under `data`, which Image Binary Properties names when it is added
			items.push({
				json: { p: `p${i}` },
				binary: {
					data: { data: png.toString('base64'), mimeType: 'image/png', fileName: 'in.png' },
				},
			});
		else items.push({ json: { p: `p${i}` } });
		// the per-item values of generated options (`v0`, `v1` …) on the item they belong to
		if (c.described) Object.assign(items[i].json, c.described.items[i]);
	}
	return { items, tasks };
}

/** A short label for reports. */
export function describeCase(c: RunCase): string {
	const n = c.node;
	let what: string;
	if (n.node === 'image') what = `Image Submit ${n.mode}${n.wait ? ' + Wait for Result' : ''}`;
	else if (n.node === 'video') what = `Video Create ${n.family}`;
	else if (n.node === 'wait') what = `Task Wait (${n.tasks.slice(0, c.items).join(',')})`;
	else if (n.node === 'download') what = `Download Result ${n.source}`;
	else what = `${n.node === 'chat' ? 'Chat' : 'Responses'} ${n.stream ? 'streamed' : 'plain'}`;
	const forms = (c.idForms ?? [])
		.slice(0, c.items)
		.flatMap((f, i) => (f ? [`item ${i}: ${describeForm(f)}`] : []));
	const sh = c.shared;
	const named = sh
		? Array.from({ length: c.items }, (_, i) => {
				const f = sh.fate[sh.owner[i]];
				return `${i}:${sh.shape[i]}→${sh.owner[i]}${f && sh.owner[i] === i ? `(${f})` : ''}`;
			}).join(' ')
		: '';
	const d = c.described;
	const options = d
		? `, options from the description (version ${d.typeVersion}, ${d.level}: ${
				Object.entries(d.given)
					.map(([k, g]) => `${k.slice('options.'.length)} ${describeGiven(g)}`)
					.join('; ') || 'none'
			})`
		: '';
	return `${what}${options}, ${c.items} item(s)${named ? ` [tasks ${named}]` : ''}, ${describeHost(c)}${c.changing && PAID.has(n.node) ? ', prompt changes per try' : ''}${c.n8nStreams ? ', n8n streams' : ''}${forms.length ? `, the key as task ID (${forms.join('; ')})` : ''}`;
}

/** How an option was given, short: `=true`, `expr " 1 "`, `per item ["yes",0]`. */
function describeGiven(g: Given): string {
	const show = (v: unknown) => JSON.stringify(v)?.slice(0, 40) ?? 'undefined';
	return g.how === 'fixed'
		? `=${show(g.value)}`
		: g.how === 'expression'
			? `expr ${show(g.value)}`
			: `per item ${show(g.values)}`;
}
