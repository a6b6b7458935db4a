/** Shared pieces of the money tests: the paid nodes as workflow nodes, the simulator's ledger, the execution's custom data. */
import type { IDataObject } from 'n8n-workflow';
import type { Simulator } from '../../simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import type { RunResult, TestNode } from '../harness/workflow';
import { model } from '../harness/inputs';

type Params = Record<string, unknown>;
type Extra = Partial<TestNode>;

export const image = (options: Params = {}, p: Params = {}, extra: Extra = {}): TestNode => ({
	name: 'Image',
	type: new GenGatewayImageSubmit(),
	parameters: {
		operation: 'generate',
		mode: 'async',
		model: model('alpha-image-2.5'),
		prompt: '={{ $json.p ?? "a fox" }}',
		size: '1536x1024',
		options,
		...p,
	},
	...extra,
});
export const chat = (options: Params = {}, p: Params = {}, extra: Extra = {}): TestNode => ({
	name: 'Chat',
	type: new GenGatewayChat(),
	parameters: {
		model: model('alpha-chat-4o'),
		messagesFrom: 'ui',
		messages: { values: [{ role: 'user', content: '={{ $json.p ?? "hello there" }}' }] },
		stream: false,
		options,
		...p,
	},
	...extra,
});
export const responses = (options: Params = {}, p: Params = {}, extra: Extra = {}): TestNode => ({
	name: 'Responses',
	type: new GenGatewayResponses(),
	parameters: {
		model: model('alpha-chat-4o'),
		input: '={{ $json.p ?? "hello there" }}',
		stream: false,
		options,
		...p,
	},
	...extra,
});
export const deltaVideo = (options: Params = {}, p: Params = {}, extra: Extra = {}): TestNode => ({
	name: 'Video',
	type: new GenGatewayVideoCreate(),
	parameters: {
		family: 'delta',
		model: model('delta-video-2-0-mini-260615'),
		prompt: 'a fox',
		seconds: 5,
		resolution: '480p',
		ratio: '16:9',
		generateAudio: false,
		watermark: false,
		options,
		...p,
	},
	...extra,
});
export const gammaVideo = (options: Params = {}, extra: Extra = {}): TestNode => ({
	name: 'Video',
	type: new GenGatewayVideoCreate(),
	parameters: {
		family: 'gamma',
		model: model('gamma-video-1.0'),
		prompt: 'a fox',
		gammaSeconds: 6,
		aspectRatio: '16:9',
		options,
	},
	...extra,
});
export const taskWait = (options: Params = {}): TestNode => ({
	name: 'Wait',
	type: new GenGatewayTaskWait(),
	parameters: {
		taskId: '={{ $json.task_id }}',
		taskKind: 'auto',
		options: { videoIntervalMs: 60, download: false, ...options },
	},
});

export const creds = (sim: Simulator) => ({ apiKey: sim.keys.demo, baseUrl: sim.baseUrl });
export const items = (n: number) =>
	Array.from({ length: n }, (_, i) => ({ json: { p: `item ${i}` } as IDataObject }));
/** what the gateway charged or reserved: one entry per paid request it accepted */
export const paidRequests = (sim: Simulator) =>
	sim.ledger.filter((l) => l.kind === 'charge' || l.kind === 'reserve');
export const posts = (sim: Simulator) => sim.log.filter((l) => l.method === 'POST');
/** the execution's custom data, as n8n stores it (resultData.metadata) */
export const customData = (r: RunResult) =>
	(r.run.data.resultData.metadata ?? {}) as Record<string, string>;
export const hints = (r: RunResult, node: string) =>
	(r.run.data.resultData.runData[node] ?? []).flatMap((t) => t.hints ?? []).map((h) => h.message);
export const cost = (json: IDataObject) => json.cost as IDataObject;
