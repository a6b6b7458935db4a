/** `/v1/videos` (and `/v1/video/generations`) for delta-video and gamma-video. */
import { deltaVideoQuota, modelById, perCallQuota } from './catalog';
import { openAiError, sendJson, taskError } from './http';
import { publicUrlRefusal, type ImageCtx } from './images';
import { mp4Stream } from './media';
import type { ServerName, SimState, VideoTask } from './state';

const DELTA_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9', 'adaptive'];
const LIMITS = { reference_image: 9, reference_video: 3, reference_audio: 3 };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

function mediaUrlProblem(u: unknown): string | undefined {
	if (typeof u !== 'string' || !u) return 'missing url';
	if (!u.startsWith('https://')) return 'media addresses must be HTTPS';
	if (/[?&](key|api_key|token|access_token)=/i.test(u) || /sk-[A-Za-z0-9]{8,}/.test(u)) return 'media address must not contain an API key';
	return publicUrlRefusal(u);
}

/** Spec rules 1–11 for delta-video. Returns the first problem (the gateway reports one at a time). */
export function deltaProblem(b: Obj): string | undefined {
	if ('aspect_ratio' in b) return "Unknown parameter 'aspect_ratio': use 'ratio'";
	const meta = isObj(b.metadata) ? b.metadata : {};
	for (const k of ['seconds', 'duration', 'resolution', 'size', 'ratio', 'seed']) if (k in meta && k in b) return `'${k}' is given both at top level and in metadata`;
	if (b.seconds !== undefined && b.duration !== undefined) return "Send one of 'seconds' and 'duration', not both";
	if (b.resolution !== undefined && b.size !== undefined) return "Send one of 'resolution' and 'size', not both";
	const content = Array.isArray(meta.content) ? (meta.content as Obj[]) : undefined;
	if (content && Array.isArray(b.images)) return "Do not mix the 'images' shorthand with metadata.content";
	const texts = content?.filter((c) => c?.type === 'text') ?? [];
	if (texts.length > 1) return 'metadata.content holds at most one text item';
	if (texts.length && typeof b.prompt === 'string' && b.prompt) return "Send either 'prompt' or a text item in metadata.content, not both";
	const prompt = typeof b.prompt === 'string' ? b.prompt : texts[0] ? String((texts[0].text as string) ?? '') : '';
	if (!prompt.trim() && !content?.length && !Array.isArray(b.images)) return 'prompt must be a non-empty string';
	if (prompt.length > 6000) return `prompt is ${prompt.length} characters; the limit is 6000`;
	const counts = { reference_image: 0, reference_video: 0, reference_audio: 0, first_frame: 0, last_frame: 0 };
	for (const [i, c] of (content ?? []).entries()) {
		if (!isObj(c)) return `metadata.content[${i}] is not an object`;
		if (c.type === 'text') continue;
		const t = c.type as string;
		if (!['image_url', 'video_url', 'audio_url'].includes(t)) return `metadata.content[${i}].type '${t}' is not supported`;
		const inner = c[t];
		const problem = mediaUrlProblem(isObj(inner) ? inner.url : undefined);
		if (problem) return `metadata.content[${i}]: ${problem}`;
		const role = c.role as keyof typeof counts;
		const expected = t === 'image_url' ? ['reference_image', 'first_frame', 'last_frame'] : t === 'video_url' ? ['reference_video'] : ['reference_audio'];
		if (!expected.includes(role)) return `metadata.content[${i}].role '${String(role)}' does not fit type ${t}`;
		counts[role]++;
	}
	const images = Array.isArray(b.images) ? b.images : [];
	for (const [i, u] of images.entries()) {
		const p = mediaUrlProblem(u);
		if (p) return `images[${i}]: ${p}`;
	}
	counts.reference_image += images.length;
	for (const [k, max] of Object.entries(LIMITS)) if (counts[k as keyof typeof LIMITS] > max) return `too many ${k.replace('reference_', 'reference ')}s: at most ${max}`;
	const refs = counts.reference_image + counts.reference_video + counts.reference_audio;
	if (refs > 12) return `at most 12 references in total (got ${refs})`;
	if (refs + (prompt ? 1 : 0) > 13) return 'prompt plus materials: at most 13 items';
	const ff = typeof meta.first_frame_image === 'string' ? 1 : 0;
	const lf = typeof meta.last_frame_image === 'string' ? 1 : 0;
	const firsts = counts.first_frame + ff;
	const lasts = counts.last_frame + lf;
	if (firsts || lasts) {
		if (firsts !== 1 || lasts !== 1) return 'first and last frames must both be given, one each';
		if (refs) return 'first/last frames cannot be mixed with reference images, videos or audio';
		for (const k of ['first_frame_image', 'last_frame_image']) if (typeof meta[k] === 'string') {
			const p = mediaUrlProblem(meta[k]);
			if (p) return `metadata.${k}: ${p}`;
		}
	}
	const edit = b.omni_reference_task_type === 'edit';
	if (b.omni_reference_task_type !== undefined && !edit) return "omni_reference_task_type must be 'edit'";
	if (edit && (counts.reference_video !== 1 || counts.reference_image || counts.reference_audio)) return 'edit mode needs exactly one reference video and no other reference material';
	const secondsRaw = b.seconds ?? b.duration ?? meta.seconds ?? meta.duration;
	if (secondsRaw !== undefined) {
		const s = Number(secondsRaw);
		if (!Number.isInteger(s)) return 'seconds must be a whole number';
		if (s === -1 && !edit) return 'duration -1 is only allowed in edit mode';
		if (s !== -1 && (s < 4 || s > 15)) return `seconds ${s} is outside 4 to 15`;
	}
	const res = b.resolution ?? b.size;
	if (res !== undefined && !['480p', '720p'].includes(String(res))) return `resolution '${String(res)}' is not supported (480p or 720p; 1080p, 2K and 4K are not)`;
	const ratio = b.ratio;
	if (ratio !== undefined && !DELTA_RATIOS.includes(String(ratio))) return `ratio '${String(ratio)}' is not supported`;
	if (ratio === 'adaptive' && !(counts.reference_image || counts.reference_video || firsts)) return "ratio 'adaptive' needs at least one image or video input";
	if (b.seed !== undefined) {
		const s = Number(b.seed);
		if (!Number.isInteger(s) || s < -1 || s > 4294967295) return 'seed must be an integer from -1 to 4294967295';
	}
	for (const k of ['generate_audio', 'watermark', 'return_last_frame']) if (b[k] !== undefined && typeof b[k] !== 'boolean') return `${k} must be a boolean`;
	return undefined;
}

export function gammaProblem(b: Obj, files: number): string | undefined {
	if (typeof b.prompt !== 'string' || !b.prompt.trim()) return 'prompt must be a non-empty string';
	const s = b.seconds === undefined ? 8 : Number(b.seconds);
	if (![4, 6, 8, 10, 12, 15].includes(s)) return `seconds ${String(b.seconds)} is not supported (4, 6, 8, 10, 12, 15)`;
	const urls = b.image_urls === undefined ? [] : b.image_urls;
	if (!Array.isArray(urls)) return 'image_urls must be an array of strings';
	const refs = urls.length + files;
	if (refs > 7) return `at most 7 reference images (got ${refs})`;
	if (b.model === 'gamma-video-1.0' && refs > 1 && s > 10) return 'gamma-video-1.0 with several references allows at most 10 seconds';
	for (const [i, u] of urls.entries()) if (typeof u !== 'string' || publicUrlRefusal(u)) return `image_urls[${i}] is not a readable public address`;
	return undefined;
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
	const problem = family === 'delta' ? deltaProblem(b) : gammaProblem(b, files);
	if (problem) return taskError(req.res, 400, 'invalid_request', problem);
	if (sim.faults.take(req.method, req.path, ['reset-before'])) return void req.raw.socket.destroy();
	const meta = isObj(b.metadata) ? b.metadata : {};
	const content = Array.isArray(meta.content) ? (meta.content as Obj[]) : [];
	const withRefVideo = content.some((c) => c?.type === 'video_url');
	const seconds = Number(b.seconds ?? b.duration ?? (family === 'delta' ? 5 : 8));
	const resolution = String(b.resolution ?? b.size ?? '480p');
	const prompt = typeof b.prompt === 'string' ? b.prompt : String((content.find((c) => c.type === 'text')?.text as string) ?? '');
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
		variant: sim.sequence % 5,
		reserved: 0,
		tokens: 0,
	};
	if (family === 'delta') {
		const estimate = tokensFor(resolution, task.seconds, withRefVideo);
		task.tokens = Math.round(estimate * 0.9);
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
		task.error = task.outcome === 'fail' ? 'upstream rejected the video: content moderation' : undefined;
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
	if (!task) return taskError(ctx.req.res, 400, 'task_not_exist', `task_not_exist: ${id}`);
	ctx.log.model = task.model;
	sendJson(ctx.req.res, 200, videoBody(ctx.sim, task));
}

export function handleVideoContent(ctx: ImageCtx, id: string, server: ServerName): void {
	const { sim, req } = ctx;
	ctx.log.taskId = id;
	const task = findVideo(ctx, id, server);
	if (!task) return taskError(req.res, 404, 'task_not_exist', `task not found: ${id}`);
	if (Date.now() >= task.readyAt) finishVideo(sim, task);
	if (!task.resultId) return taskError(req.res, 400, 'task_not_finished', `task ${id} has no finished video`);
	const truncate = sim.faults.take(req.method, req.path, ['truncate']);
	const { stream, length } = mp4Stream(sim.opts.videoBytes, task.seconds, truncate ? Math.floor(sim.opts.videoBytes / 2) : undefined);
	req.res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': length });
	stream.on('error', () => req.res.socket?.destroy());
	stream.pipe(req.res);
}
