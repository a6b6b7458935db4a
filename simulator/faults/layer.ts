/**
 * The fault layer, in front of the faithful gateway (../gateway/). Per request it
 * 1. decides before the gateway: answers of its own (`status`, `rate-limit`, `redirect`, `oversize-json` with a
 *    status), a `delay`, and what every JSON answer of the request will suffer (`trickle`, `oversize-json`,
 *    `echo-key` in the headers);
 * 2. answers the gateway's `Upstream` questions from the armed faults (lost connections, upstream errors, task
 *    outcomes, refused queries, ignored streams);
 * 3. transforms the answer the gateway produced: broken downloads, hostile or cut streams, broken or oversize
 *    `b64_json`, poll fields, truncated JSON, and then the JSON modes of step 1.
 * Faults are chosen the same way everywhere: the first armed fault of the kind whose route matches "METHOD /path".
 */
import type { IncomingMessage } from 'node:http';
import { headerOnlyPng, pngHeaderThenJunk } from '../media/broken-media';
import { chatChunk, json, plain, responsesEvent, type About, type Answer } from '../gateway/answer';
import type { Upstream } from '../gateway/upstream';
import { bufferBody } from '../media/body';
import { sendBody } from '../media/send';
import type { ImageTask, ServerName, SimState, VideoTask } from '../state';
import type { FaultKind, FaultSpec } from './book';
import { brokenDownload, DOWNLOAD_FAULTS } from './downloads';
import { endlessDeltas, endlessLine, stalledStream, writeSse } from './hostile-streams';
import { OVERSIZE_B64_MARK, oversizeB64, oversizeJson, paddingAround } from './json';

const VIDEO_CONTENT = /^\/v1\/videos\/([A-Za-z0-9_-]+)\/content$/;

/** Index of the tool-call delta (chat) and output item (responses) under `huge-index`. */
const HUGE_INDEX = 100_000_000;

/** What faults did to an image task when it was created; they show in every answer about it. */
interface ImageTaskFaults {
	b64Junk?: boolean;
	/** the first data item's b64_json grows the answer to this many bytes */
	b64Oversize?: number;
	pollAfter?: { value: unknown };
	foreignPollUrl?: boolean;
	/** the gateway forgets the task at this time */
	forgetAt?: number;
}

interface VideoTaskFaults {
	/** queries still answered `unknown` */
	unknownPolls: number;
	/** status queries answered so far (`video-query-error` counts them) */
	queries: number;
}

const imageTaskFaults = new WeakMap<ImageTask, ImageTaskFaults>();
const videoTaskFaults = new WeakMap<VideoTask, VideoTaskFaults>();

function videoFaults(task: VideoTask): VideoTaskFaults {
	let f = videoTaskFaults.get(task);
	if (!f) videoTaskFaults.set(task, (f = { unknownPolls: 0, queries: 0 }));
	return f;
}

/** A JSON mode: what every JSON answer of the request suffers. */
type JsonMode =
	| { kind: 'trickle'; intervalMs: number }
	| { kind: 'oversize'; bytes: number }
	| { kind: 'echo-headers'; headers: Record<string, unknown> };

type DataItem = Record<string, string>;

export class FaultLayer {
	private readonly method: string;
	private readonly path: string;
	private jsonMode?: JsonMode;
	/** sync image or native: their b64_json is junk after a valid header, or grows the answer */
	private b64Junk = false;
	private b64Oversize?: FaultSpec;
	/** chat/responses: the stream that replaces the route's */
	private hostileStream?: FaultSpec;

	constructor(
		private readonly sim: SimState,
		private readonly server: ServerName,
		private readonly raw: IncomingMessage,
	) {
		this.method = raw.method ?? 'GET';
		this.path = new URL(raw.url ?? '/', 'http://x').pathname;
	}

	private take(kinds: FaultKind[], accept?: (f: FaultSpec) => boolean): FaultSpec | undefined {
		return this.sim.faults.take(this.method, this.path, kinds, accept);
	}

	/** Gateway text carrying the caller's own key, as a leaky upstream error does. */
	private leakedKeyText(): string {
		return `upstream rejected the request: Authorization: ${String(this.raw.headers.authorization ?? '')} is not valid for this channel`;
	}

	/** Step 1 (gateway and video origin): an answer instead of the gateway's, or undefined to let the gateway answer. */
	async beforeGateway(): Promise<Answer | undefined> {
		const hostile = this.take(['trickle', 'oversize-json', 'echo-key'], (x) =>
			x.kind === 'echo-key'
				? x.where === 'headers'
				: x.kind !== 'trickle' || !VIDEO_CONTENT.test(this.path),
		);
		if (hostile?.kind === 'echo-key')
			this.jsonMode = { kind: 'echo-headers', headers: { ...this.raw.headers } };
		else if (hostile?.kind === 'trickle')
			this.jsonMode = { kind: 'trickle', intervalMs: hostile.intervalMs ?? 500 };
		else if (hostile?.kind === 'oversize-json') {
			if (hostile.status !== undefined)
				return {
					kind: 'bytes',
					status: hostile.status,
					headers: { 'content-type': 'application/json' },
					body: oversizeJson(
						`{"error":{"type":"upstream_error","code":${hostile.status},"message":"`,
						'"}}',
						hostile.bytes ?? 200_000_000,
					),
				};
			this.jsonMode = { kind: 'oversize', bytes: hostile.bytes ?? 200_000_000 };
		}
		const f = this.take(['status', 'rate-limit', 'delay', 'redirect']);
		if (!f) return undefined;
		if (f.kind === 'delay') {
			await new Promise((r) => setTimeout(r, f.delayMs ?? 5000));
			return undefined;
		}
		if (f.kind === 'redirect')
			return plain(f.status ?? 302, {
				location: f.location ?? `${this.sim.urls.result}/elsewhere${this.path}`,
			});
		const status = f.kind === 'rate-limit' ? 429 : (f.status ?? 500);
		const headers: Record<string, string> = {};
		if (f.retryAfter !== undefined) headers['retry-after'] = String(f.retryAfter);
		if (f.emptyBody) return plain(status, headers);
		if (f.body !== undefined) return json(status, f.body, headers);
		return json(
			status,
			{
				error: {
					message: status === 429 ? 'Too many requests' : 'upstream error',
					type: status === 429 ? 'rate_limit_error' : 'upstream_error',
					code: status,
				},
			},
			headers,
		);
	}

	/** Step 2: the gateway's questions, answered from the armed faults. */
	readonly upstream: Upstream = {
		lostBeforeCommit: () => !!this.take(['reset-before']),
		lostAfterCommit: () => !!this.take(['reset-after']),
		generationError: (what) => {
			const echo = this.take(['echo-key'], (x) => x.where === 'image-error');
			if (what === 'native') {
				if (echo) return this.leakedKeyText();
				this.b64Junk = !!this.take(['b64-junk']);
				return undefined;
			}
			this.b64Junk = !!this.take(['b64-junk']);
			this.b64Oversize = this.take(['oversize-b64']);
			return echo ? this.leakedKeyText() : undefined;
		},
		imageTaskCreated: (task) => {
			const marks: ImageTaskFaults = {};
			if (this.take(['empty-result'])) task.outcome = 'empty';
			if (this.take(['uncertain-failed'])) task.outcome = 'uncertain-fail';
			if (this.take(['failed-200'])) task.outcome = 'fail';
			if (this.take(['cancelled'])) task.outcome = 'cancelled';
			if (this.take(['expired'])) task.outcome = 'expired';
			if (this.take(['echo-key'], (x) => (x.where ?? 'task-error') === 'task-error')) {
				task.outcome = 'fail';
				task.error = this.leakedKeyText();
			}
			if (this.take(['b64-result'])) task.b64 = true;
			if (this.take(['b64-junk'])) marks.b64Junk = true;
			const big = this.take(['oversize-b64']);
			if (big) marks.b64Oversize = big.bytes ?? 200_000_000;
			const bad = this.take(['bad-poll-after']);
			if (bad) marks.pollAfter = { value: 'value' in bad ? bad.value : 'soon' };
			if (this.take(['foreign-poll-url'])) marks.foreignPollUrl = true;
			const expire = this.take(['expire']);
			if (expire) marks.forgetAt = task.createdAt + (expire.delayMs ?? 0);
			imageTaskFaults.set(task, marks);
		},
		imageTaskForgotten: (task) => {
			const forgetAt = imageTaskFaults.get(task)?.forgetAt;
			return forgetAt !== undefined && Date.now() >= forgetAt;
		},
		videoTaskCreated: (task) => {
			const unknown = this.take(['video-unknown']);
			videoFaults(task).unknownPolls = unknown ? (unknown.polls ?? 2) : 0;
			if (this.take(['echo-key'], (x) => (x.where ?? 'task-error') === 'task-error')) {
				task.outcome = 'fail';
				task.error = this.leakedKeyText();
			}
		},
		videoQueryRefused: (task) => {
			const marks = videoFaults(task);
			const fault = this.take(['video-query-error'], (f) => marks.queries >= (f.polls ?? 1));
			marks.queries++;
			return fault ? (fault.status ?? 403) : undefined;
		},
		videoStatusUnknown: (task) => {
			const marks = videoFaults(task);
			if (marks.unknownPolls <= 0) return false;
			marks.unknownPolls--;
			return true;
		},
		contentRefused: () => {
			const refused = this.take(['content-error']);
			return refused ? (refused.status ?? 404) : undefined;
		},
		ignoresStream: () => {
			const f = this.take(['ignore-stream']);
			return f ? (typeof f.value === 'string' && f.value ? f.value : true) : false;
		},
		streamError: () => {
			this.hostileStream = this.take([
				'sse-stall',
				'sse-endless-line',
				'sse-endless-deltas',
				'huge-index',
			]);
			return this.take(['echo-key'], (x) => x.where === 'stream-error')
				? this.leakedKeyText()
				: undefined;
		},
		// a hostile stream replaces the route's: what it would have ended with is never asked
		streamFails: () => !this.hostileStream && !!this.take(['sse-error']),
		finalEvent: () => {
			if (this.hostileStream) return undefined;
			const renamed = this.take(['sse-final-event']);
			if (!renamed) return undefined;
			return {
				name: typeof renamed.value === 'string' ? renamed.value : 'response.done',
				response:
					renamed.body && typeof renamed.body === 'object'
						? (renamed.body as Record<string, unknown>)
						: {},
			};
		},
	};

	/** Step 3: the answer as the faults make it. */
	answer(a: Answer): Answer {
		const changed = this.answerFaults(a);
		return changed.kind === 'json' ? this.withJsonMode(changed) : changed;
	}

	private answerFaults(a: Answer): Answer {
		if (a.kind === 'download') {
			// the result host: one fault of any of these kinds; `/content`: its download faults (its refusals were asked)
			const f =
				this.server === 'result'
					? this.take([...DOWNLOAD_FAULTS, 'redirect', 'status', 'rate-limit'])
					: this.take(DOWNLOAD_FAULTS);
			if (!f) return a;
			if (f.kind === 'status' || f.kind === 'rate-limit')
				return plain(
					f.kind === 'rate-limit' ? 429 : (f.status ?? 500),
					f.retryAfter !== undefined ? { 'retry-after': String(f.retryAfter) } : {},
				);
			if (f.kind === 'redirect')
				return plain(302, { location: f.location ?? `${this.sim.urls.result}${this.path}` });
			return brokenDownload(this.sim, a.download, f);
		}
		if (a.kind === 'sse') return this.stream(a.events, a.about);
		if (a.kind !== 'json' || !a.about) return a;
		const about = a.about;
		if (about.kind === 'image-answer' && a.status === 200)
			return this.syncImage(a.body as { data: DataItem[] }, about.width, about.height);
		if (about.kind === 'native-image' && this.b64Junk)
			return json(
				a.status,
				withInlineData(a.body, pngHeaderThenJunk(about.width, about.height).toString('base64')),
			);
		if (about.kind === 'image-task' && a.status >= 200 && a.status < 300)
			return this.imageTask(a.status, a.body as Record<string, unknown>, about.task, about.query);
		return a;
	}

	private syncImage(body: { data: DataItem[] }, width: number, height: number): Answer {
		const big = this.b64Oversize;
		if (!big && !this.b64Junk) return json(200, body);
		const data = body.data.map(() =>
			big
				? { b64_json: OVERSIZE_B64_MARK }
				: { b64_json: pngHeaderThenJunk(width, height).toString('base64') },
		);
		const answer = { ...body, data };
		if (big && data.length)
			return oversizeB64Answer(answer, width, height, big.bytes ?? 200_000_000);
		return json(200, answer);
	}

	private imageTask(
		status: number,
		body: Record<string, unknown>,
		task: ImageTask,
		query: boolean,
	): Answer {
		const marks = imageTaskFaults.get(task) ?? {};
		const out: Record<string, unknown> = { ...body };
		if (marks.foreignPollUrl)
			out.poll_url = `${this.sim.urls.result}/steal${String(body.poll_path)}`;
		const queried = query ? this.take(['bad-poll-after']) : undefined;
		const pollAfter = queried
			? { value: 'value' in queried ? queried.value : 'soon' }
			: marks.pollAfter;
		if (pollAfter) out.poll_after_ms = pollAfter.value;
		const data = body.data;
		if (Array.isArray(data) && (marks.b64Junk || marks.b64Oversize)) {
			const items = data.map(() =>
				marks.b64Junk
					? { b64_json: pngHeaderThenJunk(task.width, task.height).toString('base64') }
					: { b64_json: OVERSIZE_B64_MARK },
			);
			out.data = items;
			if (out.result && typeof out.result === 'object')
				out.result = { ...(out.result as object), data: items };
		}
		if (!query) return json(status, out);
		if (this.take(['malformed-json']))
			return plain(
				200,
				{ 'content-type': 'application/json' },
				'{"id":"' + task.id + '","status":',
			);
		if (marks.b64Oversize && Array.isArray(out.data) && out.data.length)
			return oversizeB64Answer(out, task.width, task.height, marks.b64Oversize);
		return json(status, out);
	}

	private stream(events: string[], about: About | undefined): Answer {
		const f = this.hostileStream;
		if (f?.kind === 'sse-stall')
			return { kind: 'custom', write: (res) => stalledStream(res, f.intervalMs ?? 500) };
		if (f?.kind === 'sse-endless-line')
			return { kind: 'custom', write: (res) => endlessLine(res, f.intervalMs ?? 0) };
		if (f?.kind === 'sse-endless-deltas')
			return { kind: 'custom', write: (res) => endlessDeltas(res) };
		if (f?.kind === 'huge-index' && about) return { kind: 'sse', events: hugeIndexEvents(about) };
		const prompt = about && 'prompt' in about ? about.prompt : '';
		const split = prompt.includes('[split]') || !!this.take(['sse-split']);
		const cut = prompt.includes('[cut]') || !!this.take(['sse-cut']);
		if (!split && !cut) return { kind: 'sse', events };
		const seed = this.sim.sequence;
		return { kind: 'custom', write: (res) => writeSse(res, events, { split, cut, seed }) };
	}

	private withJsonMode(a: Extract<Answer, { kind: 'json' }>): Answer {
		const mode = this.jsonMode;
		if (!mode) return a;
		if (mode.kind === 'echo-headers') {
			const v = a.body;
			return {
				...a,
				body:
					v && typeof v === 'object' && !Array.isArray(v)
						? { ...v, request_headers: mode.headers }
						: { value: v, request_headers: mode.headers },
			};
		}
		const text = JSON.stringify(a.body);
		const headers = { 'content-type': 'application/json', ...a.headers };
		if (mode.kind === 'oversize') {
			const [prefix, suffix] = paddingAround(text);
			return {
				kind: 'bytes',
				status: a.status,
				headers,
				body: oversizeJson(prefix, suffix, mode.bytes),
			};
		}
		return {
			kind: 'custom',
			write: (res) =>
				sendBody(res, a.status, headers, bufferBody([Buffer.from(text, 'utf8')]), {
					trickleMs: mode.intervalMs,
				}),
		};
	}
}

/** An image answer whose first `b64_json` (a placeholder in `body`) is grown to make the answer `bytes` long, sent chunked. */
function oversizeB64Answer(body: unknown, width: number, height: number, bytes: number): Answer {
	return {
		kind: 'bytes',
		status: 200,
		headers: { 'content-type': 'application/json' },
		body: oversizeB64(JSON.stringify(body), headerOnlyPng(width, height).toString('base64'), bytes),
	};
}

/** A native answer whose image part carries `data` instead. */
function withInlineData(body: unknown, data: string): unknown {
	const b = body as {
		candidates: Array<{ content: { parts: Array<Record<string, Record<string, string>>> } }>;
	};
	const parts = b.candidates[0].content.parts.map((p) => {
		const key = 'inlineData' in p ? 'inlineData' : 'inline_data' in p ? 'inline_data' : undefined;
		return key ? { [key]: { ...p[key], data } } : p;
	});
	return {
		...b,
		candidates: [{ ...b.candidates[0], content: { ...b.candidates[0].content, parts } }],
	};
}

/** `huge-index`: a tool-call delta (chat) or an output item (responses) at index 100000000, then the end. */
function hugeIndexEvents(about: About): string[] {
	if (about.kind === 'chat') {
		const call = {
			index: HUGE_INDEX,
			id: 'call_1',
			type: 'function',
			function: { name: 'f', arguments: '{}' },
		};
		return [
			chatChunk(about, [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }]),
			chatChunk(about, [{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
			'data: [DONE]\n\n',
		];
	}
	if (about.kind !== 'responses') return [];
	const { full, item, msgId } = about;
	return [
		responsesEvent('response.created', {
			response: { ...full, status: 'in_progress', output: [], usage: null },
		}),
		responsesEvent('response.output_item.added', {
			output_index: HUGE_INDEX,
			item: { ...item, status: 'in_progress', content: [] },
		}),
		responsesEvent('response.output_text.delta', {
			item_id: msgId,
			output_index: HUGE_INDEX,
			content_index: 0,
			delta: 'x',
		}),
		responsesEvent('response.completed', { response: full }),
	];
}
