/**
 * The bad-input corpus generated from the rules: every bad example of every rule of every registered field set becomes
 * a run of the node that owns the field, with the value given by an expression (as a sheet or a previous node would).
 */
import type { INodeType } from 'n8n-workflow';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { registeredFieldSets, shown } from '../../nodes/shared/rules/rule';

export const m = (value: unknown) => ({ __rl: true, mode: 'id', value });
export const image = { operation: 'generate', mode: 'async', model: m('alpha-image-2.5'), prompt: 'x', size: '1024x1024' };
export const delta = { family: 'delta', model: m('delta-video-2-0-mini-260615'), prompt: 'x', seconds: 5, resolution: '480p', ratio: '16:9', generateAudio: false, watermark: false };
export const chat = { model: m('alpha-chat-4o'), messagesFrom: 'ui', messages: { values: [{ role: 'user', content: 'x' }] }, stream: false };

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
	'Chat and Responses options': { node: () => new GenGatewayChat(), base: chat, inOptions: true },
	'Spend options': { node: () => new GenGatewayImageSubmit(), base: image, inOptions: true },
	'Chat messages': { node: () => new GenGatewayChat(), base: { ...chat, messagesFrom: 'json' } },
	'Task Wait options': { node: () => new GenGatewayTaskWait(), base: { taskId: 'abc', taskKind: 'video' }, inOptions: true },
	'Task Wait task': { node: () => new GenGatewayTaskWait(), base: { taskKind: 'auto' } },
	'Download Result options': { node: () => new GenGatewayDownloadResult(), base: { source: 'videoTask', taskId: 'abc', origin: 'auto' }, inOptions: true },
	'Download Result video task': { node: () => new GenGatewayDownloadResult(), base: { source: 'videoTask', origin: 'auto' } },
	'Download Result URL': { node: () => new GenGatewayDownloadResult(), base: { source: 'url', resultType: 'image' } },
	'Download Result image task': { node: () => new GenGatewayDownloadResult(), base: { source: 'imageTask' } },
	'Pricing fee': { node: () => new GenGatewayPricing(), base: { operation: 'settleTask', taskSource: 'json', task: '={{ { "id": "t1", "status": "completed" } }}', referenceVideo: 'no' } },
	'Pricing estimate': { node: () => new GenGatewayPricing(), base: { operation: 'estimateVideoCost', videoModel: 'delta-video-2-0-mini-260615', tokens: 50400, referenceVideo: 'no', groupRatio: 1 } },
	'Pricing task ID': { node: () => new GenGatewayPricing(), base: { operation: 'settleTask', taskSource: 'id', origin: 'video', referenceVideo: 'no', groupRatio: 1 } },
	'Pricing task JSON': { node: () => new GenGatewayPricing(), base: { operation: 'settleTask', taskSource: 'json', referenceVideo: 'no', groupRatio: 1 } },
};

/** The value as an n8n expression yields it (NaN and Infinity included). */
export function asExpression(v: unknown): string {
	return `={{ ${typeof v === 'number' || v === undefined ? String(v) : JSON.stringify(v)} }}`;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export type Case = [title: string, make: () => INodeType, base: Record<string, unknown>, change: Record<string, unknown>, rule: RegExp];

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
				const change = at.inOptions ? { options: { ...baseOptions, [name]: value } } : { [name]: value };
				cases.push([`${set}: ${field.label} = ${shown(bad.value)}`, at.node, at.base, change, new RegExp(`^${escape(field.label)}: ${escape(bad.says)}`)]);
			}
		}
	}
	return { cases, unplaced };
}
