/** The fault book: faults queued per route, consumed by matching requests. Plain JSON so the admin API can set them. */

/** Every fault kind (the fault layer, ./layer.ts, handles each; see the README for what each does). */
export const FAULT_KINDS = [
	'status',
	'rate-limit',
	'reset-before',
	'reset-after',
	'delay',
	'empty-result',
	'html-result',
	'truncate',
	'redirect',
	'foreign-poll-url',
	'expire',
	'video-unknown',
	'video-query-error',
	'content-error',
	'sse-split',
	'sse-cut',
	'malformed-json',
	'uncertain-failed',
	'failed-200',
	'ignore-stream',
	'sse-error',
	'sse-final-event',
	// hostile and broken answers
	'trickle',
	'endless',
	'oversize-json',
	'echo-key',
	'header-only-image',
	'truncated-image',
	'jpeg-no-scan',
	'padded-image',
	'b64-junk',
	'short-mp4',
	'mp4-no-moov',
	'cut-download',
	'huge-index',
	'sse-stall',
	'sse-endless-line',
	/** chat: valid content deltas for ever, never [DONE] (ends when the client leaves) */
	'sse-endless-deltas',
	'bad-poll-after',
	'oversize-b64',
	// terminal image task statuses and result forms
	'cancelled',
	'expired',
	'b64-result',
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

/** Where `echo-key` puts the caller's key. */
export type EchoWhere = 'task-error' | 'image-error' | 'stream-error' | 'headers';

export interface FaultSpec {
	/** matched against "METHOD /path" (string: substring match; `re:` prefix or RegExp: regular expression) */
	route: string | RegExp;
	kind: FaultKind;
	/** how many matching requests it applies to (default 1; -1 = forever) */
	times?: number;
	status?: number;
	body?: unknown;
	emptyBody?: boolean;
	retryAfter?: string | number;
	delayMs?: number;
	/** video-unknown: how many polls answer `unknown`; video-query-error: how many queries of the task are answered normally first (default 1) */
	polls?: number;
	/** for redirect: where to */
	location?: string;
	/** trickle: pause between bytes (default 500); sse-stall: pause between keep-alives (default 500); endless, sse-endless-line: pause between chunks (default 0) */
	intervalMs?: number;
	/** oversize-json, oversize-b64: total bytes of the JSON answer (default 200 MB) */
	bytes?: number;
	/** echo-key: where the key appears (default task-error) */
	where?: EchoWhere;
	/** cut-download: bytes sent before the connection is reset (default half of the body) */
	afterBytes?: number;
	/** bad-poll-after: the `poll_after_ms` value to carry (default the string "soon"); sse-final-event: the final event's name (default "response.done"); ignore-stream: the Content-Type of the JSON answer (default application/json) */
	value?: unknown;
}

interface Armed extends FaultSpec {
	left: number;
}

export class FaultBook {
	private armed: Armed[] = [];

	add(spec: FaultSpec | FaultSpec[]): void {
		for (const s of Array.isArray(spec) ? spec : [spec])
			this.armed.push({ ...s, left: s.times ?? 1 });
	}

	clear(): void {
		this.armed = [];
	}

	list(): FaultSpec[] {
		return this.armed.map(({ left, ...s }) => ({ ...s, times: left }));
	}

	/** Takes the first armed fault matching the request (and of one of `kinds`, and passing `accept`, when given). */
	take(
		method: string,
		path: string,
		kinds?: FaultKind[],
		accept?: (f: FaultSpec) => boolean,
	): FaultSpec | undefined {
		const line = `${method} ${path}`;
		const i = this.armed.findIndex(
			(f) => (!kinds || kinds.includes(f.kind)) && matches(f.route, line) && (!accept || accept(f)),
		);
		if (i < 0) return undefined;
		const f = this.armed[i];
		if (f.left > 0) f.left--;
		if (f.left === 0) this.armed.splice(i, 1);
		return f;
	}
}

function matches(route: string | RegExp, line: string): boolean {
	if (route instanceof RegExp) return route.test(line);
	if (route.startsWith('re:')) return new RegExp(route.slice(3)).test(line);
	return line.includes(route);
}
