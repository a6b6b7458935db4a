/**
 * The bad-input corpus generated from the rules: every bad example of every rule of every registered field set and
 * body rule set becomes a run of the node that owns the field, with the value given by an expression (as a sheet or a
 * previous node would).
 */
import type { INodeType } from 'n8n-workflow';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import type { Obj } from '../../nodes/shared/jsonObject';
import {
	registeredBodyRuleSets,
	type BodyExamples,
	type BodyRule,
	type BodyRuleSet,
} from '../../nodes/shared/rules/body';
import { registeredFieldSets, shown } from '../../nodes/shared/rules/rule';
import { BODY_RULE_EXAMPLES } from '../fixtures/video-rules';

export const m = (value: unknown) => ({ __rl: true, mode: 'id', value });
export const image = {
	operation: 'generate',
	mode: 'async',
	model: m('alpha-image-2.5'),
	prompt: 'x',
	size: '1024x1024',
};
export const delta = {
	family: 'delta',
	model: m('delta-video-2-0-mini-260615'),
	prompt: 'x',
	seconds: 5,
	resolution: '480p',
	ratio: '16:9',
	generateAudio: false,
	watermark: false,
};
// Video Create 1.1: a gamma node's model is its own field, gammaModel
export const gamma = {
	family: 'gamma',
	gammaModel: m('gamma-video-1.5'),
	prompt: 'x',
	gammaSeconds: 8,
	aspectRatio: '16:9',
};
export const responses = { model: m('alpha-chat-4o'), input: 'x', stream: false };
export const chat = {
	model: m('alpha-chat-4o'),
	messagesFrom: 'ui',
	messages: { values: [{ role: 'user', content: 'x' }] },
	stream: false,
};

/** Where each field set lives: the node, parameters that make the set's fields shown and otherwise valid, and whether they sit in Options. */
interface Placement {
	node: () => INodeType;
	base: Record<string, unknown>;
	inOptions?: boolean;
}

export const PLACEMENTS: Record<string, Placement> = {
	Model: { node: () => new GenGatewayImageSubmit(), base: image },
	'Image Submit options': { node: () => new GenGatewayImageSubmit(), base: image, inOptions: true },
	'Video Create options': { node: () => new GenGatewayVideoCreate(), base: delta, inOptions: true },
	'Video Create delta switches': { node: () => new GenGatewayVideoCreate(), base: delta },
	'Chat and Responses options': { node: () => new GenGatewayChat(), base: chat, inOptions: true },
	'Spend options': { node: () => new GenGatewayImageSubmit(), base: image, inOptions: true },
	'Chat messages': { node: () => new GenGatewayChat(), base: { ...chat, messagesFrom: 'json' } },
	'Task Wait options': {
		node: () => new GenGatewayTaskWait(),
		base: { taskId: 'abc', taskKind: 'video' },
		inOptions: true,
	},
	'Task Wait task': { node: () => new GenGatewayTaskWait(), base: { taskKind: 'auto' } },
	'Download Result options': {
		node: () => new GenGatewayDownloadResult(),
		base: { source: 'videoTask', taskId: 'abc', origin: 'auto' },
		inOptions: true,
	},
	'Download Result video task': {
		node: () => new GenGatewayDownloadResult(),
		base: { source: 'videoTask', origin: 'auto' },
	},
	'Download Result URL': {
		node: () => new GenGatewayDownloadResult(),
		base: { source: 'url', resultType: 'image' },
	},
	'Download Result image task': {
		node: () => new GenGatewayDownloadResult(),
		base: { source: 'imageTask' },
	},
	'Pricing fee': {
		node: () => new GenGatewayPricing(),
		base: {
			operation: 'settleTask',
			taskSource: 'json',
			task: '={{ { "id": "t1", "status": "completed" } }}',
			referenceVideo: 'no',
		},
	},
	'Pricing estimate': {
		node: () => new GenGatewayPricing(),
		base: {
			operation: 'estimateVideoCost',
			videoModel: 'delta-video-2-0-mini-260615',
			tokens: 50400,
			referenceVideo: 'no',
			groupRatio: 1,
		},
	},
	'Pricing task ID': {
		node: () => new GenGatewayPricing(),
		base: {
			operation: 'settleTask',
			taskSource: 'id',
			origin: 'video',
			referenceVideo: 'no',
			groupRatio: 1,
		},
	},
	'Pricing list': { node: () => new GenGatewayPricing(), base: { operation: 'listModels' } },
	'Pricing task JSON': {
		node: () => new GenGatewayPricing(),
		base: { operation: 'settleTask', taskSource: 'json', referenceVideo: 'no', groupRatio: 1 },
	},
};

/** The value as an n8n expression yields it (NaN and Infinity included; objects laid out so no "}}" ends the expression early). */
export function asExpression(v: unknown): string {
	return `={{ ${typeof v === 'number' || v === undefined ? String(v) : JSON.stringify(v, null, typeof v === 'object' && v !== null ? 1 : undefined)} }}`;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export type Case = [
	title: string,
	make: () => INodeType,
	base: Record<string, unknown>,
	change: Record<string, unknown>,
	rule: RegExp,
];

/** One case per bad example per field; field sets without a placement are returned by name (the corpus test fails on them). */
export function generatedCases(): { cases: Case[]; unplaced: string[] } {
	const cases: Case[] = [];
	const unplaced: string[] = [];
	for (const [set, fields] of registeredFieldSets()) {
		const at = PLACEMENTS[set];
		if (!at) {
			unplaced.push(set);
			continue;
		}
		for (const [name, field] of Object.entries(fields)) {
			for (const bad of field.rule.bad) {
				const value = asExpression(bad.value);
				const baseOptions = (at.base.options as Record<string, unknown> | undefined) ?? {};
				const change = at.inOptions
					? { options: { ...baseOptions, [name]: value } }
					: { [name]: value };
				cases.push([
					`${set}: ${field.label} = ${shown(bad.value)}`,
					at.node,
					at.base,
					change,
					new RegExp(`^${escape(field.label)}: ${escape(bad.says)}`),
				]);
			}
		}
	}
	return { cases, unplaced };
}

/**
 * Where each body rule set is sent from: the node, base parameters that make a valid body, and the parameters that
 * give the valid body with an example's changes (undefined when no parameter reaches a changed field).
 */
interface BodyPlacement {
	node: () => INodeType;
	base: Record<string, unknown>;
	parameters: (changes: Obj) => Record<string, unknown> | undefined;
	/** rules no node input reaches, with the rule that refuses such input first or why the node never builds such a body */
	unreachable?: Record<string, string>;
}

/** Each change as the parameter of the same name (an expression), or as `named` says. */
function asParameters(
	changes: Obj,
	named: Record<string, (v: unknown) => Record<string, unknown> | undefined>,
): Record<string, unknown> | undefined {
	const out: Record<string, unknown> = {};
	for (const [k, v] of Object.entries(changes)) {
		const p = k in named ? named[k](v) : { [k]: asExpression(v) };
		if (!p) return undefined;
		Object.assign(out, p);
	}
	return out;
}

const model = (v: unknown) => ({ model: m(v) });
const EARLIER_MODEL = 'the Model field refuses an empty or non-text model before the body is built';
const EARLIER_STREAM =
	'the Stream field is read by the one yes/no rule first: only true or false reaches the body';
const DELTA_FIELDS: Record<string, string> = {
	prompt: 'prompt',
	seconds: 'seconds',
	resolution: 'resolution',
	ratio: 'ratio',
};

export const BODY_PLACEMENTS: Record<string, BodyPlacement> = {
	'Image request': {
		node: () => new GenGatewayImageSubmit(),
		base: image,
		parameters: (c) =>
			asParameters(c, {
				model,
				aspectRatio: (v) => ({ mode: 'native', aspectRatio: asExpression(v) }),
			}),
		unreachable: { modelRequired: EARLIER_MODEL },
	},
	// the delta fields the node has go as those fields; every other change goes as Extra Body Fields (null removes a field);
	// Generate Audio and Watermark are read by the one yes/no rule, so their body rules are reached through Extra Body Fields
	'Video Create delta body': {
		node: () => new GenGatewayVideoCreate(),
		base: delta,
		parameters: (c) => {
			const extra = Object.fromEntries(
				Object.entries(c).filter(([k, v]) => k !== 'model' && (v === null || !DELTA_FIELDS[k])),
			);
			const fields = Object.fromEntries(Object.entries(c).filter(([k]) => !(k in extra)));
			const named = Object.fromEntries(
				Object.entries(DELTA_FIELDS).map(([k, p]) => [
					k,
					(v: unknown) => ({ [p]: asExpression(v) }),
				]),
			);
			return {
				...asParameters(fields, { model, ...named }),
				...(Object.keys(extra).length ? { options: { extraBody: JSON.stringify(extra) } } : {}),
			};
		},
	},
	'Video Create gamma body': {
		node: () => new GenGatewayVideoCreate(),
		base: gamma,
		parameters: (c) =>
			asParameters(c, {
				model: (v) => ({ gammaModel: m(v) }),
				prompt: (v) => ({ prompt: v === null ? '' : asExpression(v) }),
				seconds: (v) => ({ gammaSeconds: asExpression(v) }),
				aspect_ratio: (v) => ({ aspectRatio: asExpression(v) }),
				image_urls: (v) => ({ imageUrls: asExpression(v) }),
				ratio: () => undefined,
			}),
		unreachable: {
			noRatio: 'gamma has no Extra Body Fields, so no body carries ratio',
			imageUrlsList: 'Reference Image URLs is always read as a list',
		},
	},
	'Chat body': {
		node: () => new GenGatewayChat(),
		base: chat,
		parameters: (c) =>
			asParameters(c, {
				model,
				messages: (v) => ({ messagesFrom: 'json', messagesJson: asExpression(v) }),
			}),
		unreachable: {
			modelRequired: EARLIER_MODEL,
			modelId: EARLIER_MODEL,
			messagesArray: 'Messages JSON refuses anything but an array first',
			stream: EARLIER_STREAM,
		},
	},
	'Responses body': {
		node: () => new GenGatewayResponses(),
		base: responses,
		parameters: (c) => asParameters(c, { model }),
		unreachable: { modelRequired: EARLIER_MODEL, modelId: EARLIER_MODEL, stream: EARLIER_STREAM },
	},
};

export type BodyExample = [
	title: string,
	make: () => INodeType,
	parameters: Record<string, unknown>,
];

/** A body rule set with every rule's examples and its valid body, wherever they are declared. */
export interface ExampledBodyRuleSet {
	schema: BodyRuleSet['schema'];
	valid: Obj;
	rules: Record<string, BodyRule & BodyExamples>;
}

/**
 * Every registered body rule set with its examples: those declared with the rules, or (Video Create) those of
 * test/fixtures/video-rules.ts. A rule with examples in neither place gets none, and the corpus test fails on it.
 */
export function bodyRuleSets(): Array<[string, ExampledBodyRuleSet]> {
	return [...registeredBodyRuleSets()].map(([name, set]) => {
		const outside = BODY_RULE_EXAMPLES.get(set.rules);
		const rules = Object.fromEntries(
			Object.entries(set.rules).map(([id, rule]) => {
				const examples = outside?.rules[id];
				return [
					id,
					{
						...rule,
						good: rule.good ?? examples?.good ?? [],
						bad: rule.bad ?? examples?.bad ?? [],
					},
				];
			}),
		);
		return [name, { schema: set.schema, valid: set.valid ?? outside?.valid ?? {}, rules }];
	});
}

/**
 * One case per bad example of every body rule a node reaches, and one run per good example (`accepted`). Sets without a
 * placement and examples no parameter can give are returned by name (the corpus test fails on them).
 */
export function generatedBodyCases(): {
	cases: Case[];
	accepted: BodyExample[];
	unplaced: string[];
} {
	const cases: Case[] = [];
	const accepted: BodyExample[] = [];
	const unplaced: string[] = [];
	for (const [set, { rules }] of bodyRuleSets()) {
		const at = BODY_PLACEMENTS[set];
		if (!at) {
			unplaced.push(set);
			continue;
		}
		for (const [id, rule] of Object.entries(rules)) {
			if (at.unreachable?.[id]) continue;
			const place = (changes: Obj, what: string) => {
				const p = at.parameters(changes);
				if (!p) unplaced.push(`${set}: ${id} ${what} ${JSON.stringify(changes)}`);
				return p;
			};
			for (const bad of rule.bad) {
				const p = place(bad, 'bad');
				const says = new RegExp(`(^|; )${escape(rule.field)}: .*${escape(rule.says)}`);
				if (p)
					cases.push([
						`${set}: ${id} (${rule.field}) refuses ${brief(bad)}`,
						at.node,
						at.base,
						p,
						says,
					]);
			}
			for (const good of rule.good) {
				const p = place(good, 'good');
				if (p)
					accepted.push([
						`${set}: ${id} (${rule.field}) accepts ${brief(good)}`,
						at.node,
						{ ...at.base, ...p },
					]);
			}
		}
	}
	return { cases, accepted, unplaced };
}

/** A change in a title: JSON, long texts cut. */
const brief = (changes: Obj) =>
	JSON.stringify(changes, (_, v: unknown) =>
		typeof v === 'string' && v.length > 40 ? `${v.slice(0, 12)}… (${v.length} characters)` : v,
	);
