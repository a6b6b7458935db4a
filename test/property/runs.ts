/**
 * The n8n side of a generated run: which node and mode, how many items, the error setting, Retry On Fail and its
 * tries, whether the prompt expression changes between tries, and the gateway's script for the run. Options keep
 * every bound short (submit 2.5 s, synchronous 3 s, deadlines 1.8 to 3 s, streams 4 s) so a run ends in seconds.
 */
import fc from 'fast-check';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import type { TestNode } from '../harness/workflow';
import { script, type Script } from './behaviours';
import type { TaskInfo } from './hostile-gateway';
import { KEY } from './key';
import { describeForm, formArb, formOf, type FormSpec } from './redaction-forms';

export type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

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
}

export const PAID = new Set(['image', 'video', 'chat', 'responses']);

const model = (value: string) => ({ __rl: true, mode: 'id', value });
const onError = fc.constantFrom<OnError>(
	'stopWorkflow',
	'continueRegularOutput',
	'continueErrorOutput',
);

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

const idForms = fc.array(
	fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: idForm }),
	{ minLength: 8, maxLength: 8 },
);

export const runCase = (nodes: fc.Arbitrary<NodeCase>): fc.Arbitrary<RunCase> =>
	fc
		.record({
			node: nodes,
			items: fc.integer({ min: 1, max: 8 }),
			onError,
			maxTries: fc.integer({ min: 1, max: 5 }),
			changing: fc.boolean(),
			script: script({ paid: 3, query: 2, result: 2, content: 2, meta: 2 }),
			n8nStreams: fc.boolean(),
			idForms: fc.option(idForms, { freq: 2, nil: undefined }),
		})
		.map((c) =>
			c.node.node === 'wait' ||
			(c.node.node === 'download' &&
				(c.node.source === 'imageTask' || c.node.source === 'videoTask'))
				? c
				: { ...c, idForms: undefined },
		);

const SHORT_SUBMIT = { submitTimeoutMs: 2500 };
const SHORT_TEXT = { timeoutMs: 3000, idleTimeoutMs: 1000, maxDurationMs: 4000 };
/** Download Result looking a task up: Wait for an Unfinished Task short like every other bound here (default 30 s) */
const SHORT_LOOKUP = { waitSeconds: 2 };

export function buildNode(c: RunCase): TestNode {
	const base = {
		name: 'Node',
		onError: c.onError,
		...(c.maxTries > 1 ? { retryOnFail: true, maxTries: c.maxTries, waitBetweenTries: 0 } : {}),
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
	const form = c.idForms?.[i];
	return form ? formOf(KEY, form) : `w${i}x${i}`;
}

export function buildInput(
	c: RunCase,
	origins: { resultOrigin: string },
	png: Buffer,
): { items: INodeExecutionData[]; tasks: Record<string, TaskInfo> } {
	const items: INodeExecutionData[] = [];
	const tasks: Record<string, TaskInfo> = {};
	const n = c.node;
	for (let i = 0; i < c.items; i++) {
		const id = inputTaskId(c, i);
		if (n.node === 'wait') {
			const t = n.tasks[i];
			tasks[id!] = {
				item: i,
				kind: t === 'image' ? 'image' : 'video',
				family: t === 'image' ? undefined : t,
			};
			items.push({
				json:
					t === 'image'
						? { task_id: id, kind: 'image', poll_after_ms: 0 }
						: {
								task_id: id,
								kind: 'video',
								family: t,
								model: t === 'delta' ? 'delta-video-2-0-mini-260615' : 'gamma-video-1.5',
							},
			});
		} else if (n.node === 'download') {
			if (n.source === 'imageTask')
				items.push({
					json: {
						task_id: id,
						status: 'completed',
						data: [{ url: `${origins.resultOrigin}/r/x${i}/dl/0.png` }],
					},
				});
			else if (n.source === 'videoTask') {
				tasks[id!] = { item: i, kind: 'video', family: i % 2 ? 'gamma' : 'delta' };
				items.push({
					json: {
						task_id: id,
						family: i % 2 ? 'gamma' : 'delta',
						model: i % 2 ? 'gamma-video-1.5' : 'delta-video-2-0-mini-260615',
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
		} else items.push({ json: { p: `p${i}` } });
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
	return `${what}, ${c.items} item(s), ${c.onError}, ${c.maxTries > 1 ? `Retry On Fail ×${c.maxTries}` : 'no retry'}${c.changing && PAID.has(n.node) ? ', prompt changes per try' : ''}${c.n8nStreams ? ', n8n streams' : ''}${forms.length ? `, the key as task ID (${forms.join('; ')})` : ''}`;
}
