/** `/v1/videos` (and `/v1/video/generations`) for delta-video and gamma-video. */
import type { ServerResponse } from 'node:http';
import { deltaVideoQuota, modelById, perCallQuota } from './catalog';
import { pause } from './delivery';
import { DOWNLOAD_FAULTS, serveDownload } from './downloads';
import { openAiError, sendJson, taskError } from './http';
import { leakedKeyText, type ImageCtx } from './images';
import type { ServerName, SimState, VideoTask } from './state';
import { deltaRequest, gammaProblem, isObj } from './video-rules';

export { deltaProblem, gammaProblem } from './video-rules';

type Obj = Record<string, unknown>;

/** `[usage=N]` in a delta prompt: the task reports N video tokens on completion (settlement arithmetic tests). */
function usageMarker(prompt: string): number | undefined {
	const m = /\[usage=(\d{1,12})\]/.exec(prompt);
	return m ? Number(m[1]) : undefined;
}

function tokensFor(resolution: string, seconds: number, withRefVideo: boolean): number {
	const perSec = resolution === '720p' ? 21_600 : 10_080;
	return Math.round(perSec * seconds * (withRefVideo ? 1.4 : 1));
}

export async function handleVideoCreate(ctx: ImageCtx, server: ServerName): Promise<void> {
	const { sim, req, key, log } = ctx;
	let b: Obj;
	let files = 0;
	if (req.form) {
		b = {};
		for (const [k, v] of req.form.entries()) {
			if (typeof v === 'string') b[k] = k === 'image_urls' ? [...((b[k] as string[]) ?? []), v] : v;
			else files++;
		}
	} else b = isObj(req.json) ? req.json : {};
	const model = b.model;
	if (typeof model !== 'string' || !model) return openAiError(req.res, 400, "Missing required parameter: 'model'", 'invalid_request_error');
	log.model = model;
	if (!ctx.checkModel(model)) return;
	const entry = modelById(model)!;
	if (entry.kind !== 'video') return taskError(req.res, 400, 'invalid_request', `Model ${model} is not a video model`);
	const family = model.startsWith('delta-') ? 'delta' : 'gamma';
	if (family === 'delta' && req.form) return taskError(req.res, 400, 'invalid_request', 'delta-video takes JSON only; give media as HTTPS addresses');
	const delta = family === 'delta' ? deltaRequest(b) : undefined;
	const problem = delta ? ('problem' in delta ? delta.problem : undefined) : gammaProblem(b, files);
	if (problem) return taskError(req.res, 400, 'invalid_request', problem);
	const accepted = delta && !('problem' in delta) ? delta : undefined;
	if (sim.faults.take(req.method, req.path, ['reset-before'])) return void req.raw.socket.destroy();
	const withRefVideo = accepted?.withRefVideo ?? false;
	const seconds = accepted ? (accepted.seconds ?? 5) : Number(b.seconds ?? 8);
	const resolution = accepted?.resolution ?? '480p';
	const prompt = accepted ? accepted.prompt : String(b.prompt);
	const id = sim.nextId(family === 'delta' ? 'vid' : 'gvid');
	const now = Date.now();
	const unknown = sim.faults.take(req.method, req.path, ['video-unknown']);
	const task: VideoTask = {
		kind: 'video',
		id,
		owner: key.name,
		family,
		model,
		server,
		createdAt: now,
		readyAt: now + sim.opts.videoLatencyMs,
		outcome: prompt.includes('[fail-silent]') ? 'fail-silent' : prompt.includes('[fail]') ? 'fail' : 'ok',
		seconds: seconds === -1 ? 6 : seconds,
		resolution,
		withRefVideo,
		unknownPolls: unknown ? (unknown.polls ?? 2) : 0,
		queries: 0,
		variant: sim.sequence % 5,
		reserved: 0,
		tokens: 0,
	};
	if (sim.faults.take(req.method, req.path, ['echo-key'], (x) => (x.where ?? 'task-error') === 'task-error')) {
		task.outcome = 'fail';
		task.error = leakedKeyText(req);
	}
	if (family === 'delta') {
		const estimate = tokensFor(resolution, task.seconds, withRefVideo);
		task.tokens = usageMarker(prompt) ?? Math.round(estimate * 0.9);
		task.reserved = deltaVideoQuota(model, estimate, withRefVideo, key.group);
		sim.charge(key, 'reserve', model, task.reserved, id);
	} else {
		task.reserved = perCallQuota(entry, key.group);
		sim.charge(key, 'charge', model, task.reserved, id);
	}
	sim.tasks.set(id, task);
	log.taskId = id;
	if (sim.faults.take(req.method, req.path, ['reset-after'])) return void req.raw.socket.destroy();
	sendJson(req.res, 200, videoBody(sim, task, true));
}

function finishVideo(sim: SimState, task: VideoTask): void {
	if (task.settled) return;
	task.settled = true;
	const key = [...sim.keys.values()].find((k) => k.name === task.owner)!;
	if (task.outcome === 'ok') {
		task.resultId = sim.nextId('mp4');
		sim.results.set(task.resultId, { kind: 'video', seed: 1, bytes: sim.opts.videoBytes, durationSec: task.seconds });
		if (task.family === 'delta') {
			const actual = deltaVideoQuota(task.model, task.tokens, task.withRefVideo, key.group);
			sim.charge(key, 'settle', task.model, actual - task.reserved, task.id);
		}
	} else {
		task.error = task.outcome === 'fail' ? (task.error ?? 'upstream rejected the video: content moderation') : undefined;
		sim.charge(key, 'refund', task.model, -task.reserved, task.id);
	}
}

/** The task in the family's shape; gamma rotates between the response variants real gateways send. */
export function videoBody(sim: SimState, task: VideoTask, justCreated = false): Obj {
	const now = Date.now();
	const elapsed = now - task.createdAt;
	const total = task.readyAt - task.createdAt;
	let status: 'queued' | 'in_progress' | 'completed' | 'failed' | 'unknown';
	if (!justCreated && task.unknownPolls > 0) {
		task.unknownPolls--;
		status = 'unknown';
	} else if (justCreated || elapsed < total / 4) status = 'queued';
	else if (now < task.readyAt) status = 'in_progress';
	else {
		finishVideo(sim, task);
		status = task.outcome === 'ok' ? 'completed' : 'failed';
	}
	const progress = status === 'completed' ? 100 : status === 'in_progress' ? Math.min(99, Math.round((elapsed / total) * 100)) : 0;
	const origin = task.server === 'alt' ? sim.urls.alt : sim.urls.gateway;
	const resultUrl = task.resultId ? `${sim.urls.result}/v/${task.resultId}.mp4` : undefined;
	if (task.family === 'delta') {
		const body: Obj = { id: task.id, object: 'video', model: task.model, status, progress, created_at: Math.floor(task.createdAt / 1000), seconds: String(task.seconds), size: task.resolution };
		if (status === 'completed') {
			body.usage = { completion_tokens: task.tokens, total_tokens: task.tokens };
			body.completed_at = Math.floor(task.readyAt / 1000);
			body.result_url = resultUrl;
			body.content_url = `${origin}/v1/videos/${task.id}/content`;
		}
		if (status === 'failed' && task.error) body.error = { message: task.error, code: 'generation_failed' };
		return body;
	}
	const word = { queued: ['queued', 'PENDING', 'submitted', 'Queued', 'pending'], in_progress: ['processing', 'IN_PROGRESS', 'Processing', 'running', 'in_progress'], completed: ['completed', 'SUCCESS', 'done', 'Succeeded', 'success'], failed: ['failed', 'FAILURE', 'error', 'Failed', 'cancelled'], unknown: ['unknown', 'unknown', 'unknown', 'unknown', 'unknown'] }[status][task.variant];
	const fail = status === 'failed' ? task.error ?? undefined : undefined;
	switch (task.variant) {
		case 0:
			return { task_id: task.id, status: word, progress, ...(resultUrl && status === 'completed' ? { result_url: resultUrl } : {}), ...(fail ? { error: fail } : {}) };
		case 1:
			return { id: task.id, status: word, ...(resultUrl && status === 'completed' ? { video: { url: resultUrl } } : {}), ...(fail ? { fail_reason: fail } : {}) };
		case 2:
			return { code: 'success', data: { task_id: task.id, status: word, ...(resultUrl && status === 'completed' ? { result_url: resultUrl } : {}), ...(fail ? { error: { message: fail } } : {}) } };
		case 3:
			return { task_id: task.id, data: { status: word, ...(resultUrl && status === 'completed' ? { url: resultUrl } : {}), ...(fail ? { fail_reason: fail } : {}) } };
		default:
			return { data: { task_id: task.id, status: word, progress, ...(resultUrl && status === 'completed' ? { video: { url: resultUrl } } : {}), ...(fail ? { error: { message: fail } } : {}) } };
	}
}

function findVideo(ctx: ImageCtx, id: string, server: ServerName): VideoTask | undefined {
	const t = ctx.sim.tasks.get(id);
	if (!t || t.kind !== 'video' || t.owner !== ctx.key.name || t.server !== server) return undefined;
	return t;
}

export function handleVideoQuery(ctx: ImageCtx, id: string, server: ServerName): void {
	ctx.log.taskId = id;
	const task = findVideo(ctx, id, server);
	// unknown, another key's or another origin's task: 404, as the spec says of task queries (some real gateways answer 400 task_not_exist: a `status` fault)
	if (!task) return taskError(ctx.req.res, 404, 'task_not_exist', `task_not_exist: ${id}`);
	ctx.log.model = task.model;
	const { req } = ctx;
	const fault = ctx.sim.faults.take(req.method, req.path, ['video-query-error'], (f) => task.queries >= (f.polls ?? 1));
	task.queries++;
	if (fault) return queryRefusal(req.res, fault.status ?? 403);
	sendJson(req.res, 200, videoBody(ctx.sim, task));
}

/** A refused query of an existing task: auth and permission errors in the first envelope (as on real task routes), others in the task-route one. */
function queryRefusal(res: ServerResponse, status: number): void {
	if (status === 401) return openAiError(res, 401, 'Invalid token', 'invalid_api_key', 'authentication_error');
	if (status === 403) return openAiError(res, 403, 'the token has no access to this model group right now', 'access_denied', 'permission_error');
	return taskError(res, status, 'query_failed', `the task query failed (HTTP ${status})`);
}

export async function handleVideoContent(ctx: ImageCtx, id: string, server: ServerName): Promise<void> {
	const { sim, req } = ctx;
	ctx.log.taskId = id;
	const task = findVideo(ctx, id, server);
	if (!task) return taskError(req.res, 404, 'task_not_exist', `task not found: ${id}`);
	if (Date.now() >= task.readyAt) finishVideo(sim, task);
	if (!task.resultId) {
		await pause(req.res, sim.opts.resultTtfbMs);
		return taskError(req.res, 400, 'task_not_finished', `task ${id} has no finished video`);
	}
	const refused = sim.faults.take(req.method, req.path, ['content-error']);
	if (refused) {
		const status = refused.status ?? 404;
		return status === 401 || status === 403 ? queryRefusal(req.res, status) : taskError(req.res, status, 'content_unavailable', `the video of task ${id} cannot be served right now (HTTP ${status})`);
	}
	const fault = sim.faults.take(req.method, req.path, DOWNLOAD_FAULTS);
	return serveDownload(sim, req.res, { kind: 'video', bytes: sim.opts.videoBytes, durationSec: task.seconds }, fault);
}
