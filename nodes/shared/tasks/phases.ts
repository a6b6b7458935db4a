/** One place that turns the gateway's many status shapes into a single phase. */
import { isObj, type Obj } from '../jsonObject';
import { taskIdIn } from '../rules/taskId';
export type TaskPhase = 'pending' | 'succeeded' | 'failed';

export interface ResultRef {
	url?: string;
	b64?: string;
	mimeType?: string;
}

export interface NormalisedTask {
	taskId?: string;
	phase: TaskPhase;
	/** the status word as the gateway sent it */
	rawStatus?: string;
	progress?: number;
	results: ResultRef[];
	error?: string;
	billingStatus?: string;
	submissionUncertain?: boolean;
	pollAfterMs?: number;
	pollPath?: string;
	pollUrl?: string;
	requestId?: string;
	usage?: { completionTokens?: number; totalTokens?: number };
	expiresAt?: number;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown) =>
	typeof v === 'number' && Number.isFinite(v)
		? v
		: typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
			? Number(v)
			: undefined;

function errorText(v: unknown): string | undefined {
	if (typeof v === 'string') return v || undefined;
	if (isObj(v))
		return (
			str(v.message) ??
			str(v.msg) ??
			str(v.code) ??
			(Object.keys(v).length ? JSON.stringify(v) : undefined)
		);
	return undefined;
}

function imageResults(list: unknown): ResultRef[] {
	if (!Array.isArray(list)) return [];
	const out: ResultRef[] = [];
	for (const item of list) {
		if (!isObj(item)) continue;
		const url = str(item.url);
		const b64 = str(item.b64_json);
		if (url || b64) out.push({ url, b64 });
	}
	return out;
}

const IMAGE_SUCCESS = new Set(['completed', 'succeeded', 'success']);
const IMAGE_FAILURE = new Set(['failed', 'cancelled', 'canceled', 'expired', 'error']);
const IMAGE_PENDING = new Set([
	'processing',
	'queued',
	'pending',
	'submitted',
	'running',
	'in_progress',
]);
/** The spec's `status` words of an image task: when `status` holds one, it alone decides. */
const IMAGE_SPEC_STATUS: Readonly<Record<string, TaskPhase>> = {
	processing: 'pending',
	completed: 'succeeded',
	failed: 'failed',
	cancelled: 'failed',
	expired: 'failed',
};

function imageWordPhase(w: string | undefined): TaskPhase | undefined {
	if (!w) return undefined;
	if (IMAGE_SUCCESS.has(w)) return 'succeeded';
	if (IMAGE_FAILURE.has(w)) return 'failed';
	return IMAGE_PENDING.has(w) ? 'pending' : undefined;
}

/**
 * The phase an image task object shows. `status` speaks first: a word the spec lists decides alone. The compatibility
 * fields (`state`, `provider_status`, whose mapping the spec leaves open) decide only where `status` is missing or not
 * a word the spec lists, in that order, and `status`'s own word last.
 */
export function imageTaskPhase(
	status: string | undefined,
	state: string | undefined,
	provider: string | undefined,
): { phase: TaskPhase; word?: string } | undefined {
	if (status && Object.prototype.hasOwnProperty.call(IMAGE_SPEC_STATUS, status))
		return { phase: IMAGE_SPEC_STATUS[status], word: status };
	for (const w of [state, provider, status]) {
		const phase = imageWordPhase(w);
		if (phase) return { phase, word: w };
	}
	return undefined;
}

/** Image task object (`/v1/images/tasks/{id}` and aliases, or a submit answer). */
export function normaliseImageTask(body: unknown): NormalisedTask {
	const b: Obj = isObj(body) ? body : {};
	const status = str(b.status)?.toLowerCase();
	const state = str(b.state)?.toLowerCase();
	const provider = str(b.provider_status)?.toLowerCase();
	let results = imageResults(b.data);
	if (!results.length && isObj(b.result)) results = imageResults(b.result.data);
	const billing = isObj(b.billing) ? str(b.billing.status) : undefined;
	const base: NormalisedTask = {
		taskId: taskIdIn(b),
		phase: 'pending',
		rawStatus: str(b.status) ?? str(b.state),
		results,
		billingStatus: billing,
		submissionUncertain: b.submission_uncertain === true,
		pollAfterMs: num(b.poll_after_ms),
		pollPath: str(b.poll_path),
		pollUrl: str(b.poll_url),
		requestId: str(b.request_id),
		expiresAt: num(b.expires_at),
		error: errorText(b.error),
	};
	const read = imageTaskPhase(status, state, provider);
	if (read?.phase === 'failed')
		return { ...base, phase: 'failed', error: base.error ?? `Task ${read.word}` };
	if (read?.phase === 'succeeded') {
		if (!results.length) {
			return {
				...base,
				phase: 'failed',
				error:
					base.error ??
					'Task reported completed but returned no image (empty data); treated as a failure',
			};
		}
		return { ...base, phase: 'succeeded' };
	}
	// A synchronous answer: no status at all, just `created` + `data` (HTTP 200 does not guarantee an image).
	if (!status && !state && (Array.isArray(b.data) || b.created !== undefined)) {
		if (results.length) return { ...base, phase: 'succeeded' };
		return {
			...base,
			phase: 'failed',
			error: base.error ?? 'The answer held no image (empty data); treated as a failure',
		};
	}
	return base;
}

/**
 * The video status vocabulary, one place for every reader (polling, settlement): delta's and gamma's words, `unknown`
 * (not handed upstream yet), `running` (upstream and Task Wait's own word), and `expired` (a cleaned-up task).
 */
export const VIDEO_STATUS_WORDS: Readonly<Record<TaskPhase, readonly string[]>> = {
	pending: ['queued', 'pending', 'submitted', 'processing', 'in_progress', 'running', 'unknown'],
	succeeded: ['completed', 'done', 'succeeded', 'success'],
	failed: ['failed', 'failure', 'error', 'cancelled', 'canceled', 'expired'],
};

/** The phase of a video status word (any case), or undefined for a word outside the vocabulary. */
export function videoStatusPhase(word: unknown): TaskPhase | undefined {
	const w = typeof word === 'string' ? word.trim().toLowerCase() : '';
	return (Object.keys(VIDEO_STATUS_WORDS) as TaskPhase[]).find((p) =>
		VIDEO_STATUS_WORDS[p].includes(w),
	);
}

/** Video task object: delta (`status`, `progress`, `usage`) and every gamma variant. */
export function normaliseVideoTask(body: unknown): NormalisedTask {
	const b: Obj = isObj(body) ? body : {};
	const data = isObj(b.data) ? b.data : {};
	const rawStatus = str(b.status) ?? str(data.status);
	const s = (rawStatus ?? '').toLowerCase();
	const video = isObj(b.video) ? b.video : {};
	const dataVideo = isObj(data.video) ? data.video : {};
	const url =
		str(b.result_url) ??
		str(video.url) ??
		str(data.result_url) ??
		str(data.url) ??
		str(dataVideo.url) ??
		str(b.video_url);
	const usage = isObj(b.usage) ? b.usage : isObj(data.usage) ? data.usage : undefined;
	const error =
		errorText(b.error) ?? str(b.fail_reason) ?? errorText(data.error) ?? str(data.fail_reason);
	const progress = num(b.progress) ?? num(data.progress);
	const base: NormalisedTask = {
		taskId: taskIdIn(b),
		phase: 'pending',
		rawStatus,
		progress,
		results: url ? [{ url }] : [],
		error,
		usage: usage
			? { completionTokens: num(usage.completion_tokens), totalTokens: num(usage.total_tokens) }
			: undefined,
	};
	const phase = videoStatusPhase(s);
	if (phase === 'failed')
		return {
			...base,
			phase: 'failed',
			error: error ?? `Task ${s} without an error message (for example a gateway-side timeout)`,
		};
	if (phase === 'succeeded') return { ...base, phase: 'succeeded' };
	return base; // pending, `unknown` and any word not seen before keep polling until the deadline
}
