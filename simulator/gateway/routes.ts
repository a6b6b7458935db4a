/**
 * The route table of the faithful gateway: every endpoint and alias of the spec, on the origins that serve it.
 * Handlers return an `Answer` and know nothing of faults (see ./upstream.ts for the questions they ask).
 * One file per spec area: images.ts (submissions), image-tasks.ts (task objects and queries), native.ts,
 * text.ts and scripted.ts (chat completions and responses), videos.ts, results.ts (the result host),
 * ../catalog/pricing.ts (the public price list and status). Handlers name the request through ./context.ts (types
 * only), so no handler imports this table or the front that reads it.
 */
import { pricingBody, statusBody } from '../catalog/pricing';
import type { ServerName, SimState } from '../state';
import { json, type Answer } from './answer';
import type { Ctx } from './context';
import { imageQuery } from './image-tasks';
import { imageSubmit } from './images';
import { generateContent } from './native';
import { chatCompletions, responses, withLanguageModel } from './text';
import { videoContent, videoCreate, videoQuery } from './videos';

type Origin = Exclude<ServerName, 'result'>;

interface Common {
	/** a name for the route (tests and the fault layer's documentation use it) */
	name: string;
	method: 'GET' | 'POST';
	path: RegExp;
	origins: Origin[];
	/** creates a task or generates: held to the submit latency and the concurrency limit */
	submit?: boolean;
}

/** Answered without a key. */
type PublicRoute = Common & { public: (sim: SimState) => Answer };
type KeyRoute = Common & {
	answer: (ctx: Ctx, match: RegExpExecArray, origin: Origin) => Answer | Promise<Answer>;
};
export type Route = PublicRoute | KeyRoute;

const BOTH: Origin[] = ['gateway', 'alt'];
const GATEWAY: Origin[] = ['gateway'];

export const ROUTES: Route[] = [
	{
		name: 'pricing',
		method: 'GET',
		path: /^\/api\/pricing$/,
		origins: BOTH,
		public: (sim) => json(200, pricingBody(sim.prices)),
	},
	{
		name: 'status',
		method: 'GET',
		path: /^\/api\/status$/,
		origins: BOTH,
		public: (sim) => json(200, statusBody(sim.statusOverrides)),
	},
	{
		name: 'models',
		method: 'GET',
		path: /^\/v1\/models$/,
		origins: GATEWAY,
		answer: (ctx) =>
			json(200, {
				object: 'list',
				success: true,
				data: ctx.sim.prices
					.modelsForGroup(ctx.key.group)
					.filter((x) => !ctx.key.models || ctx.key.models.includes(x.id))
					.map((x) => ({
						id: x.id,
						object: 'model',
						created: 1_700_000_000,
						owned_by: x.id.split('-')[0],
						supported_endpoint_types: x.endpointTypes,
					})),
			}),
	},
	{
		name: 'image generation',
		method: 'POST',
		path: /^\/v1\/(?:images\/generations\/async|image-tasks\/generations|images\/generations)$/,
		origins: GATEWAY,
		submit: true,
		answer: (ctx) => imageSubmit(ctx, false),
	},
	{
		name: 'image edit',
		method: 'POST',
		path: /^\/v1\/(?:images\/edits\/async|image-tasks\/edits|images\/edits)$/,
		origins: GATEWAY,
		submit: true,
		answer: (ctx) => imageSubmit(ctx, true),
	},
	{
		name: 'native generateContent',
		method: 'POST',
		path: /^\/v1beta\/models\/([^/:]+):generateContent$/,
		origins: GATEWAY,
		submit: true,
		answer: (ctx, m) => generateContent(ctx, decodeURIComponent(m[1])),
	},
	{
		name: 'chat completions',
		method: 'POST',
		path: /^\/v1\/chat\/completions$/,
		origins: GATEWAY,
		answer: (ctx) => withLanguageModel(ctx, chatCompletions),
	},
	{
		name: 'responses',
		method: 'POST',
		path: /^\/v1\/responses$/,
		origins: GATEWAY,
		answer: (ctx) => withLanguageModel(ctx, responses),
	},
	{
		name: 'video create',
		method: 'POST',
		path: /^\/v1\/(?:videos|video\/generations)$/,
		origins: BOTH,
		submit: true,
		answer: (ctx, _m, origin) => videoCreate(ctx, origin),
	},
	{
		name: 'video content',
		method: 'GET',
		path: /^\/v1\/videos\/([A-Za-z0-9_-]+)\/content$/,
		origins: BOTH,
		answer: (ctx, m, origin) => videoContent(ctx, m[1], origin),
	},
	{
		name: 'video query',
		method: 'GET',
		path: /^\/v1\/(?:videos|video\/generations)\/([A-Za-z0-9_-]+)$/,
		origins: BOTH,
		answer: (ctx, m, origin) => videoQuery(ctx, m[1], origin),
	},
	{
		name: 'image task query',
		method: 'GET',
		path: /^\/v1\/(?:images\/tasks|image-tasks|images\/generations|images\/edits|tasks)\/([A-Za-z0-9_-]+)$/,
		origins: GATEWAY,
		answer: (ctx, m) => imageQuery(ctx, m[1]),
	},
];

/** Paths of the task-creating routes, on whichever origin they arrive. */
export const SUBMIT_PATHS = ROUTES.filter((r) => r.submit).map((r) => r.path);

export function routeOf(
	origin: Origin,
	method: string,
	path: string,
): { route: Route; match: RegExpExecArray } | undefined {
	for (const route of ROUTES) {
		if (route.method !== method || !route.origins.includes(origin)) continue;
		const match = route.path.exec(path);
		if (match) return { route, match };
	}
	return undefined;
}
