/**
 * What the gateway does before any route: the public routes aside, it authenticates the key, reads and parses the
 * body, and holds task-creating POSTs to the submit latency and the concurrency limit (the latency knobs). Then the
 * route of the table answers, with the request's context.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KeyInfo } from '../catalog/keys';
import type { PriceList } from '../catalog/price-list';
import type { RequestLogEntry, ServerName, SimState } from '../state';
import { openAiError, type Answer } from './answer';
import type { Ctx, Req } from './context';
import { routeOf, SUBMIT_PATHS } from './routes';
import type { Upstream } from './upstream';

export async function readBody(
	req: IncomingMessage,
	cap = 64 * 1024 * 1024,
): Promise<Buffer | 'too-large'> {
	const chunks: Buffer[] = [];
	let total = 0;
	for await (const c of req) {
		total += (c as Buffer).length;
		if (total > cap) return 'too-large';
		chunks.push(c as Buffer);
	}
	return Buffer.concat(chunks);
}

async function parseForm(body: Buffer, contentType: string): Promise<FormData | undefined> {
	try {
		return await new Response(body, { headers: { 'content-type': contentType } }).formData();
	} catch {
		return undefined;
	}
}

/** Requests that create a task or generate (image async/sync/edits, native generateContent, video create), on either origin. */
function isSubmit(method: string, path: string): boolean {
	return method === 'POST' && SUBMIT_PATHS.some((re) => re.test(path));
}

/** Takes a slot for a submission, held until its answer is finished or dropped; false when the limit is reached. */
function admitSubmit(sim: SimState, res: ServerResponse): boolean {
	if (sim.submitsInFlight >= sim.opts.maxConcurrentSubmits) return false;
	sim.submitsInFlight++;
	sim.submitsInFlightPeak = Math.max(sim.submitsInFlightPeak, sim.submitsInFlight);
	res.once('close', () => sim.submitsInFlight--);
	return true;
}

/** The acceptance pace: a submission starts no sooner than 1/submitsPerSecond after the one before it (a queue). */
async function paced(sim: SimState): Promise<void> {
	const rate = sim.opts.submitsPerSecond;
	if (!(rate > 0 && Number.isFinite(rate))) return;
	const now = Date.now();
	const start = Math.max(now, sim.nextSubmitStart);
	sim.nextSubmitStart = start + 1000 / rate;
	if (start > now) await new Promise((r) => setTimeout(r, start - now));
}

/** The faithful gateway's answer to a request on the gateway or the video origin. */
export async function answerGateway(
	sim: SimState,
	server: Exclude<ServerName, 'result'>,
	raw: IncomingMessage,
	res: ServerResponse,
	log: RequestLogEntry,
	upstream: Upstream,
): Promise<Answer> {
	const url = new URL(raw.url ?? '/', 'http://x');
	const path = url.pathname;
	const method = raw.method ?? 'GET';
	const found = routeOf(server, method, path);
	if (found && 'public' in found.route) return found.route.public(sim);
	const authz = raw.headers.authorization;
	const m = typeof authz === 'string' ? /^Bearer (\S+)$/.exec(authz) : null;
	const key = m ? sim.keys.get(m[1]) : undefined;
	if (!key)
		return openAiError(
			401,
			authz ? 'Invalid token (check the Bearer format and the key)' : 'No token provided',
			'invalid_api_key',
			'authentication_error',
		);
	log.keyName = key.name;
	const body = await readBody(raw, sim.opts.maxBodyBytes);
	if (body === 'too-large')
		return openAiError(
			413,
			`Request body too large: the gateway accepts at most ${sim.opts.maxBodyBytes} bytes`,
			'request_too_large',
		);
	const ct = String(raw.headers['content-type'] ?? '');
	const req: Req = { method, path, query: url.searchParams, headers: raw.headers, raw, res, body };
	if (ct.startsWith('multipart/form-data')) {
		req.form = await parseForm(body, ct);
		if (!req.form) return openAiError(400, 'Malformed multipart body', 'invalid_request_error');
	} else if (body.length) {
		try {
			req.json = JSON.parse(body.toString('utf8'));
		} catch {
			return openAiError(400, 'Malformed JSON body', 'invalid_request_error');
		}
	}
	if (isSubmit(method, path)) {
		if (!admitSubmit(sim, res)) {
			const model = (req.json as { model?: unknown } | undefined)?.model ?? req.form?.get('model');
			if (typeof model === 'string') log.model = model;
			return openAiError(
				429,
				`Too many concurrent requests: at most ${sim.opts.maxConcurrentSubmits} submissions at a time`,
				'concurrency_limit_exceeded',
				'rate_limit_error',
				undefined,
				{ 'retry-after': String(sim.opts.submitRetryAfterSec) },
			);
		}
		await paced(sim);
		if (sim.opts.submitLatencyMs > 0)
			await new Promise((r) => setTimeout(r, sim.opts.submitLatencyMs));
	}
	const ctx: Ctx = {
		sim,
		key,
		req,
		log,
		upstream,
		model: (model) => {
			if (typeof model !== 'string' || !model)
				return openAiError(400, "Missing required parameter: 'model'", 'invalid_request_error');
			log.model = model;
			return modelRefusal(sim.prices, key, model) ?? model;
		},
	};
	if (!found)
		return server === 'alt'
			? openAiError(404, `Invalid URL (${method} ${path}) on the video origin`, 'not_found')
			: openAiError(404, `Invalid URL (${method} ${path})`, 'not_found');
	return 'answer' in found.route
		? found.route.answer(ctx, found.match, server)
		: found.route.public(sim);
}

function modelRefusal(prices: PriceList, key: KeyInfo, model: string): Answer | undefined {
	const mm = prices.model(String(model));
	if (!mm || !mm.groups.includes(key.group)) {
		if (!mm)
			return openAiError(
				503,
				`model ${String(model)} not found: no available channel in group ${key.group}`,
				'model_not_found',
				'new_api_error',
			);
		return openAiError(
			403,
			`This key's group ${key.group} may not use model ${String(model)}`,
			'model_not_allowed',
			'permission_error',
		);
	}
	if (key.models && !key.models.includes(mm.id))
		return openAiError(
			403,
			`This key may not use model ${mm.id} (the key's model restriction)`,
			'model_not_allowed',
			'permission_error',
		);
	if (mm.noChannel)
		return openAiError(
			503,
			`No available channel for model ${mm.id} in group ${key.group}`,
			'model_not_found',
			'new_api_error',
		);
	const unpriced =
		mm.billing === 'per_call'
			? mm.modelPrice === undefined
			: mm.billing === 'per_token'
				? mm.modelRatio === undefined
				: !mm.videoTokenPrice;
	if (unpriced)
		return openAiError(
			400,
			`Model ${mm.id} has no price or ratio set`,
			'model_price_error',
			'new_api_error',
		);
	if (key.quota <= 0)
		return openAiError(403, 'Insufficient user quota', 'insufficient_user_quota', 'new_api_error');
	return undefined;
}
