/** `/v1/videos` (and `/v1/video/generations`) for delta-video and gamma-video. */
import { videoTokenQuota } from '../catalog/billing';
import { pause } from '../media/send';
import type { ServerName, SimState, VideoTask } from '../state';
import { deltaRequest, gammaProblem, isObj } from '../catalog/video-rules';
import { DROP, json, openAiError, taskError, type Answer } from './answer';
import { billingNow, chargePerCall, refundTask } from './charges';
import type { Ctx } from './context';

type Obj = Record<string, unknown>;

/** `[usage=N]` in a delta prompt: the task reports N video tokens on completion; `[usage=none]`: no usage at all. */
function usageMarker(prompt: string): number | 'none' | undefined {
	const m = /\[usage=(\d{1,12}|none)\]/.exec(prompt);
	return m ? (m[1] === 'none' ? 'none' : Number(m[1])) : undefined;
}

function tokensFor(resolution: string, seconds: number, withRefVideo: boolean): number {
	const perSec = resolution === '720p' ? 21_600 : 10_080;
	return Math.round(perSec * seconds * (withRefVideo ? 1.4 : 1));
}

export async function videoCreate(ctx: Ctx, server: ServerName): Promise<Answer> {
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
	const model = ctx.model(b.model);
	if (typeof model !== 'string') return model;
	const entry = sim.prices.model(model)!;
	if (entry.kind !== 'video')
		return taskError(400, 'invalid_request', `Model ${model} is not a video model`);
	const family = model.startsWith('delta-') ? 'delta' : 'gamma';
	if (family === 'delta' && req.form)
		return taskError(
			400,
			'invalid_request',
			'delta-video takes JSON only; give media as HTTPS addresses',
		);
	const delta = family === 'delta' ? deltaRequest(b) : undefined;
	const problem = delta ? ('problem' in delta ? delta.problem : undefined) : gammaProblem(b, files);
	if (problem) return taskError(400, 'invalid_request', problem);
	const accepted = delta && !('problem' in delta) ? delta : undefined;
	if (ctx.upstream.lostBeforeCommit()) return DROP;
	const withRefVideo = accepted?.withRefVideo ?? false;
	const seconds = accepted ? (accepted.seconds ?? 5) : Number(b.seconds ?? 8);
	const resolution = accepted?.resolution ?? '480p';
	const prompt = accepted ? accepted.prompt : String(b.prompt);
	const task: VideoTask = {
		kind: 'video',
		...sim.newTask(family === 'delta' ? 'vid' : 'gvid', key.name, sim.opts.videoLatencyMs),
		family,
		model,
		server,
		outcome: prompt.includes('[fail-silent]')
			? 'fail-silent'
			: prompt.includes('[fail]')
				? 'fail'
				: 'ok',
		seconds: seconds === -1 ? 6 : seconds,
		resolution,
		withRefVideo,
		variant: sim.sequence % 5,
		reserved: 0,
		tokens: 0,
	};
	ctx.upstream.videoTaskCreated(task);
	// the price basis is fixed at acceptance: later price changes do not apply to the task
	task.billing = billingNow(ctx);
	if (family === 'delta') {
		const estimate = tokensFor(resolution, task.seconds, withRefVideo);
		const marked = usageMarker(prompt);
		task.tokens = marked === 'none' ? undefined : (marked ?? Math.round(estimate * 0.9));
		const unitPrice = withRefVideo
			? entry.videoTokenPrice!.withRefVideo
			: entry.videoTokenPrice!.noRefVideo;
		const b = (task.billing = { ...task.billing, unitPrice });
		task.reserved = videoTokenQuota(unitPrice, estimate, b.groupRatio, b.quotaPerUnit);
		sim.charge(key, {
			kind: 'reserve',
			model,
			amount: task.reserved,
			groupRatio: b.groupRatio,
			taskId: task.id,
			requestId: b.requestId,
			basis: {
				billing: 'per_video_token',
				tokens: estimate,
				unitPrice,
				withRefVideo,
				quotaPerUnit: b.quotaPerUnit,
				fee: task.reserved,
			},
		});
	} else {
		task.reserved = chargePerCall(ctx, entry, 1, { taskId: task.id, billing: task.billing });
	}
	sim.tasks.set(task.id, task);
	log.taskId = task.id;
	if (ctx.upstream.lostAfterCommit()) return DROP;
	return json(200, videoBody(sim, task, 'created'), undefined, { kind: 'video-task', task });
}

function finishVideo(sim: SimState, task: VideoTask): void {
	if (task.settled) return;
	task.settled = true;
	const key = sim.keyByName(task.owner)!.info;
	if (task.outcome === 'ok') {
		task.resultId = sim.nextId('mp4');
		sim.results.set(task.resultId, {
			kind: 'video',
			seed: 1,
			bytes: sim.opts.videoBytes,
			durationSec: task.seconds,
		});
		// settled to the reported usage at the basis of acceptance; without usage the reservation is kept (no settle line)
		const b = task.billing!;
		if (task.family === 'delta' && task.tokens !== undefined) {
			const actual = videoTokenQuota(b.unitPrice!, task.tokens, b.groupRatio, b.quotaPerUnit);
			const diff = actual - task.reserved;
			sim.charge(key, {
				kind: 'settle',
				model: task.model,
				amount: diff,
				settlement: diff > 0 ? 'top-up' : diff < 0 ? 'refund' : 'exact',
				group: b.group,
				groupRatio: b.groupRatio,
				taskId: task.id,
				requestId: b.requestId,
				basis: {
					billing: 'per_video_token',
					tokens: task.tokens,
					unitPrice: b.unitPrice!,
					withRefVideo: task.withRefVideo,
					quotaPerUnit: b.quotaPerUnit,
					fee: actual,
				},
			});
		}
	} else {
		task.error =
			task.outcome === 'fail'
				? (task.error ?? 'upstream rejected the video: content moderation')
				: undefined;
		refundTask(sim, key, task, task.reserved, 'failed');
	}
}

/** The task in the family's shape; gamma rotates between the response variants real gateways send. */
export function videoBody(
	sim: SimState,
	task: VideoTask,
	moment: 'created' | 'queried' | 'queried-unknown',
): Obj {
	const now = Date.now();
	const elapsed = now - task.createdAt;
	const total = task.readyAt - task.createdAt;
	let status: 'queued' | 'in_progress' | 'completed' | 'failed' | 'unknown';
	if (moment === 'queried-unknown') status = 'unknown';
	else if (moment === 'created' || elapsed < total / 4) status = 'queued';
	else if (now < task.readyAt) status = 'in_progress';
	else {
		finishVideo(sim, task);
		status = task.outcome === 'ok' ? 'completed' : 'failed';
	}
	const progress =
		status === 'completed'
			? 100
			: status === 'in_progress'
				? Math.min(99, Math.round((elapsed / total) * 100))
				: 0;
	const origin = task.server === 'alt' ? sim.urls.alt : sim.urls.gateway;
	const resultUrl = task.resultId ? `${sim.urls.result}/v/${task.resultId}.mp4` : undefined;
	if (task.family === 'delta') {
		const body: Obj = {
			id: task.id,
			object: 'video',
			model: task.model,
			status,
			progress,
			created_at: Math.floor(task.createdAt / 1000),
			seconds: String(task.seconds),
			size: task.resolution,
		};
		if (status === 'completed') {
			if (task.tokens !== undefined)
				body.usage = { completion_tokens: task.tokens, total_tokens: task.tokens };
			body.completed_at = Math.floor(task.readyAt / 1000);
			body.result_url = resultUrl;
			body.content_url = `${origin}/v1/videos/${task.id}/content`;
		}
		if (status === 'failed' && task.error)
			body.error = { message: task.error, code: 'generation_failed' };
		return body;
	}
	const word = {
		queued: ['queued', 'PENDING', 'submitted', 'Queued', 'pending'],
		in_progress: ['processing', 'IN_PROGRESS', 'Processing', 'running', 'in_progress'],
		completed: ['completed', 'SUCCESS', 'done', 'Succeeded', 'success'],
		failed: ['failed', 'FAILURE', 'error', 'Failed', 'cancelled'],
		unknown: ['unknown', 'unknown', 'unknown', 'unknown', 'unknown'],
	}[status][task.variant];
	const fail = status === 'failed' ? (task.error ?? undefined) : undefined;
	switch (task.variant) {
		case 0:
			return {
				task_id: task.id,
				status: word,
				progress,
				...(resultUrl && status === 'completed' ? { result_url: resultUrl } : {}),
				...(fail ? { error: fail } : {}),
			};
		case 1:
			return {
				id: task.id,
				status: word,
				...(resultUrl && status === 'completed' ? { video: { url: resultUrl } } : {}),
				...(fail ? { fail_reason: fail } : {}),
			};
		case 2:
			return {
				code: 'success',
				data: {
					task_id: task.id,
					status: word,
					...(resultUrl && status === 'completed' ? { result_url: resultUrl } : {}),
					...(fail ? { error: { message: fail } } : {}),
				},
			};
		case 3:
			return {
				task_id: task.id,
				data: {
					status: word,
					...(resultUrl && status === 'completed' ? { url: resultUrl } : {}),
					...(fail ? { fail_reason: fail } : {}),
				},
			};
		default:
			return {
				data: {
					task_id: task.id,
					status: word,
					progress,
					...(resultUrl && status === 'completed' ? { video: { url: resultUrl } } : {}),
					...(fail ? { error: { message: fail } } : {}),
				},
			};
	}
}

function findVideo(ctx: Ctx, id: string, server: ServerName): VideoTask | undefined {
	const t = ctx.sim.tasks.get(id);
	if (!t || t.kind !== 'video' || t.owner !== ctx.key.name || t.server !== server) return undefined;
	return t;
}

export function videoQuery(ctx: Ctx, id: string, server: ServerName): Answer {
	ctx.log.taskId = id;
	const task = findVideo(ctx, id, server);
	// unknown, another key's or another origin's task: 404, as the spec says of task queries (some real gateways answer 400 task_not_exist: a `status` fault)
	if (!task) return taskError(404, 'task_not_exist', `task_not_exist: ${id}`);
	ctx.log.model = task.model;
	const refused = ctx.upstream.videoQueryRefused(task);
	if (refused !== undefined) return queryRefusal(refused);
	return json(
		200,
		videoBody(ctx.sim, task, ctx.upstream.videoStatusUnknown(task) ? 'queried-unknown' : 'queried'),
		undefined,
		{ kind: 'video-task', task },
	);
}

/** A refused query of an existing task: auth and permission errors in the first envelope (as on real task routes), others in the task-route one. */
function queryRefusal(status: number): Answer {
	if (status === 401)
		return openAiError(401, 'Invalid token', 'invalid_api_key', 'authentication_error');
	if (status === 403)
		return openAiError(
			403,
			'the token has no access to this model group right now',
			'access_denied',
			'permission_error',
		);
	return taskError(status, 'query_failed', `the task query failed (HTTP ${status})`);
}

export async function videoContent(ctx: Ctx, id: string, server: ServerName): Promise<Answer> {
	const { sim, req } = ctx;
	ctx.log.taskId = id;
	const task = findVideo(ctx, id, server);
	if (!task) return taskError(404, 'task_not_exist', `task not found: ${id}`);
	if (Date.now() >= task.readyAt) finishVideo(sim, task);
	if (!task.resultId) {
		await pause(req.res, sim.opts.resultTtfbMs);
		return taskError(400, 'task_not_finished', `task ${id} has no finished video`);
	}
	const refused = ctx.upstream.contentRefused(task);
	if (refused !== undefined) {
		return refused === 401 || refused === 403
			? queryRefusal(refused)
			: taskError(
					refused,
					'content_unavailable',
					`the video of task ${id} cannot be served right now (HTTP ${refused})`,
				);
	}
	return {
		kind: 'download',
		download: { kind: 'video', bytes: sim.opts.videoBytes, durationSec: task.seconds },
	};
}
