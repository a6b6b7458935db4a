/**
 * One loopback gateway, result host and foreign origin (node:http) whose answer to each request is drawn from a
 * generated script (behaviours.ts): any status, headers that may carry the key, JSON of any shape or a spec-shaped
 * answer with one field changed, bodies cut at any byte, resets, short delays. Every request is recorded with the
 * item it belongs to and what it got, so the invariants can count paid POSTs per item. A behaviour's `leak` puts a
 * generated form of the key where the key can hide (behaviours.ts `Leak`): bodies, error fields, headers, the status
 * line, task IDs, result URLs, stream deltas and error events, in a declared charset.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Behaviour, KeyForm, Leak, RouteClass, Script } from './behaviours';
import type { Media } from './media';
import {
	metaAnswer,
	paidAnswer,
	queryAnswer,
	imageOf,
	videoOf,
	type Answer,
	type Where,
} from './plausible';
import { formOf } from './redaction-forms';

export type ServerName = 'gateway' | 'result' | 'foreign';

export interface LoggedRequest {
	server: ServerName;
	method: string;
	path: string;
	authorization?: string;
	body: string;
	cls?: RouteClass;
	item?: number;
	status: number;
	delivery: Behaviour['delivery']['kind'];
	/** a paid POST whose answer may have created something: anything but a 4xx that reached the client */
	mayHaveSpent: boolean;
	/** the task ID a whole 2xx answer to a paid image/video POST gave */
	givenTaskId?: string;
}

export interface TaskInfo {
	item: number;
	kind: 'image' | 'video';
	family?: 'delta' | 'gamma';
}

const TASK_ID = /^[A-Za-z0-9_-]{1,200}$/;
/** statuses whose answer has no body on the wire, whatever the server writes */
const NO_BODY = new Set([204, 205, 304]);

export class HostileGateway {
	readonly log: LoggedRequest[] = [];
	origin = '';
	resultOrigin = '';
	foreignOrigin = '';
	private servers: Server[] = [];
	private script?: Script;
	private used = new Map<string, number>();
	private tasks = new Map<string, TaskInfo>();
	private seq = 0;

	constructor(
		readonly key: string,
		private readonly media: Media,
	) {}

	keyText(form: KeyForm): string {
		return form === 'raw'
			? this.key
			: form === 'url'
				? encodeURIComponent(this.key)
				: Buffer.from(this.key).toString('base64');
	}

	async start(): Promise<void> {
		const listen = async (name: ServerName) => {
			const s = createServer((req, res) => void this.handle(name, req, res));
			s.keepAliveTimeout = 500;
			await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
			this.servers.push(s);
			return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
		};
		this.origin = await listen('gateway');
		this.resultOrigin = await listen('result');
		this.foreignOrigin = await listen('foreign');
	}

	async stop(): Promise<void> {
		for (const s of this.servers) {
			s.closeAllConnections();
			await new Promise((r) => s.close(r));
		}
	}

	/** A new run: its script, the tasks its input items name, an empty log. */
	load(script: Script, tasks: Record<string, TaskInfo> = {}): void {
		this.script = script;
		this.used.clear();
		this.tasks = new Map(Object.entries(tasks));
		this.log.length = 0;
	}

	private next(cls: RouteClass, item: number | undefined): Behaviour | undefined {
		if (!this.script) return undefined;
		const slot = cls === 'meta' ? 0 : item;
		if (slot === undefined || slot < 0 || slot >= 8) return undefined;
		const k = `${cls}:${slot}`;
		const n = this.used.get(k) ?? 0;
		this.used.set(k, n + 1);
		const list = this.script[cls][slot];
		const last = list[list.length - 1];
		return n >= list.length && last?.repeat ? last : list[n];
	}

	/** The text of a generated form of the key (`Bearer ` before it when the leak says so). */
	leakText(l: Leak): string {
		return `${l.bearer ? 'Bearer ' : ''}${formOf(this.key, l.form)}`;
	}

	private itemOfTask(id: string): number | undefined {
		const known = this.tasks.get(id) ?? this.tasks.get(safeDecode(id));
		return known?.item ?? (/x(\d+)$/.exec(id) ? Number(/x(\d+)$/.exec(id)![1]) : undefined);
	}

	private classify(
		server: ServerName,
		method: string,
		path: string,
		body: string,
	): { cls?: RouteClass; item?: number; taskId?: string; video?: boolean } {
		if (server === 'foreign') return {};
		if (server === 'result') {
			const m = /^\/([rv])\/x(\d+)\//.exec(path);
			return m ? { cls: m[1] === 'r' ? 'result' : 'content', item: Number(m[2]) } : {};
		}
		if (method === 'POST') {
			const m = /item-(\d+)/.exec(body);
			return { cls: 'paid', item: m ? Number(m[1]) : undefined };
		}
		const content = /^\/v1\/videos\/([^/?]+)\/content/.exec(path);
		if (content)
			return { cls: 'content', item: this.itemOfTask(content[1]), taskId: content[1], video: true };
		const q = /^\/v1\/(images\/tasks|image-tasks|tasks|videos|video\/generations)\/([^/?]+)/.exec(
			path,
		);
		if (q)
			return {
				cls: 'query',
				item: this.itemOfTask(q[2]),
				taskId: q[2],
				video: q[1].startsWith('video'),
			};
		if (path.startsWith('/v1/models') || path.startsWith('/api/')) return { cls: 'meta' };
		return {};
	}

	private plausible(
		where: Where,
		cls: RouteClass,
		b: Extract<Behaviour['body'], { kind: 'plausible' }>,
		video: boolean,
	): Answer {
		switch (cls) {
			case 'paid':
				return paidAnswer(where, b);
			case 'query':
				return queryAnswer(where, b, video);
			case 'result': {
				const m = this.media.image(imageOf(b.variant));
				return { status: 200, type: m.type, bytes: m.bytes };
			}
			case 'content': {
				const m = this.media.video(videoOf(b.variant));
				return { status: 200, type: m.type, bytes: m.bytes };
			}
			default:
				return metaAnswer(where, b);
		}
	}

	private async handle(
		server: ServerName,
		req: IncomingMessage,
		res: ServerResponse,
	): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const c of req) chunks.push(c as Buffer);
		const raw = Buffer.concat(chunks).toString('latin1');
		const path = req.url ?? '/';
		const method = req.method ?? 'GET';
		const { cls, item, taskId: queried, video } = this.classify(server, method, path, raw);
		const entry: LoggedRequest = {
			server,
			method,
			path,
			authorization: req.headers.authorization,
			body: raw.slice(0, 4096),
			cls,
			item,
			status: 0,
			delivery: 'whole',
			mayHaveSpent: false,
		};
		this.log.push(entry);
		if (!cls) {
			entry.status = 404;
			res
				.writeHead(404, { 'content-type': 'application/json' })
				.end('{"error":{"message":"not found"}}');
			return;
		}
		const b = this.next(cls, item) ?? {
			status: 'normal',
			body: { kind: 'plausible', variant: 0 },
			delivery: { kind: 'whole', chunked: false },
			delayMs: 0,
		};
		let request: Record<string, unknown> | undefined;
		try {
			const parsed = JSON.parse(raw) as unknown;
			if (parsed && typeof parsed === 'object') request = parsed as Record<string, unknown>;
		} catch {
			/* multipart or empty */
		}
		let taskId = queried;
		let family = queried
			? (this.tasks.get(queried) ?? this.tasks.get(safeDecode(queried)))?.family
			: undefined;
		const leak = b.leak;
		const leakText = leak ? this.leakText(leak) : '';
		if (
			cls === 'paid' &&
			item !== undefined &&
			(path.startsWith('/v1/images') || path === '/v1/videos')
		) {
			++this.seq;
			taskId = leak?.place === 'task-id' ? `${leakText}x${item}` : `t${this.seq}x${item}`;
			family =
				path === '/v1/videos'
					? String(request?.model ?? '').startsWith('gamma-')
						? 'gamma'
						: 'delta'
					: undefined;
			this.tasks.set(taskId, { item, kind: path === '/v1/videos' ? 'video' : 'image', family });
		}
		if (queried && video && !family) family = 'delta';
		const media = cls === 'result' || cls === 'content';
		const streamed =
			cls === 'paid' &&
			(path === '/v1/chat/completions' || path === '/v1/responses') &&
			request?.stream === true;
		// where the form goes: a place this answer has not (a media file's body, a model list) becomes a file name
		let place = leak?.place;
		if (place === 'sse-error' && !streamed) place = 'error-message';
		if (
			(media &&
				place !== 'error-message' &&
				place !== 'error-code' &&
				place !== 'header' &&
				place !== 'reason') ||
			(cls === 'meta' &&
				(place === 'body' || place === 'deltas' || place === 'task-id' || place === 'result-url'))
		)
			place = 'header';
		const where: Where = {
			origin: this.origin,
			resultOrigin: this.resultOrigin,
			item: item ?? 0,
			taskId,
			family,
			path,
			request,
			keyText: (f) => this.keyText(f),
			media: this.media,
			...(leak && place ? { leak: { text: leakText, place, cuts: leak.cuts } } : {}),
			...(place === 'task-id' && cls === 'query' ? { answerTaskId: leakText } : {}),
		};

		let answer: Answer;
		if (leak && (place === 'error-message' || place === 'error-code'))
			answer = errorAnswer(where, leak, place, leakText, cls, !!video);
		else if (b.body.kind === 'plausible') answer = this.plausible(where, cls, b.body, !!video);
		else if (b.body.kind === 'json') {
			const value =
				place === 'body' || place === 'deltas' ? withEcho(b.body.value, leakText) : b.body.value;
			answer = {
				status: 200,
				type: 'application/json',
				bytes: Buffer.from(JSON.stringify(value) ?? 'null'),
				json: value,
			};
		} else
			answer = {
				status: 200,
				type: 'text/plain',
				bytes: Buffer.from(
					place === 'body' || place === 'deltas' ? `${b.body.text} ${leakText}` : b.body.text,
				),
			};
		const status =
			leak && (place === 'error-message' || place === 'error-code')
				? answer.status
				: b.status === 'normal'
					? answer.status
					: b.status;
		const headers: Record<string, string> = {};
		let type = b.contentType === undefined ? answer.type : b.contentType;
		if (leak && !media) {
			if (leak.uShare && answer.type !== 'text/plain')
				answer = { ...answer, bytes: uEscaped(answer.bytes, leakText, leak) };
			if (leak.charset) {
				answer = { ...answer, bytes: encodeIn(answer.bytes.toString('utf8'), leak.charset) };
				type = `${(type ?? answer.type).split(';')[0]}; charset=${leak.charset}`;
			}
		}
		if (type !== null) headers['content-type'] = type;
		if (b.retryAfter !== undefined) headers['retry-after'] = b.retryAfter;
		if (b.echoKey) headers['x-echo-authorization'] = `Bearer ${this.keyText(b.echoKey)}`;
		if (b.location) headers.location = this.location(b.location, item ?? 0, path, cls);
		// HTTP carries no NUL or other control character in a header or the status line: those of the form are left out
		if (leak && place === 'header')
			headers[leak.header] = onTheWire(
				leak.header === 'content-disposition' ? `attachment; filename="${leakText}.png"` : leakText,
			);
		const reason = leak && place === 'reason' ? onTheWire(`Refused ${leakText}`) : undefined;

		entry.status = status;
		entry.delivery = b.delivery.kind;
		if (cls === 'paid') {
			entry.mayHaveSpent = b.delivery.kind === 'reset' || !(status >= 400 && status < 500);
			const j = answer.json as Record<string, unknown> | undefined;
			const given =
				j && typeof j === 'object' && !Array.isArray(j) ? (j.task_id ?? j.id) : undefined;
			if (
				b.delivery.kind === 'whole' &&
				status >= 200 &&
				status < 300 &&
				!NO_BODY.has(status) &&
				typeof given === 'string' &&
				TASK_ID.test(given) &&
				taskId &&
				given === taskId
			)
				entry.givenTaskId = given;
		}
		if (b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
		if (res.destroyed) return;
		await deliver(req, res, status, headers, answer.bytes, b.delivery, reason);
	}

	private location(
		l: NonNullable<Behaviour['location']>,
		item: number,
		path: string,
		cls: RouteClass,
	): string {
		const key = l.keyIn ? this.keyText(l.keyIn.form) : '';
		const seg = key && l.keyIn!.where === 'path' ? `/k-${key}` : '';
		const query = key && l.keyIn!.where === 'query' ? `?token=${key}` : '';
		const file =
			cls === 'content'
				? `/v/x${item}${seg}/moved.mp4${query}`
				: `/r/x${item}${seg}/moved/0.png${query}`;
		switch (l.target) {
			case 'result':
				return `${this.resultOrigin}${file}`;
			case 'gateway':
				return `${this.origin}${path.split('?')[0]}${seg}${query}`;
			case 'relative':
				return file;
			default:
				return `${this.foreignOrigin}/elsewhere${seg}${query}`;
		}
	}
}

async function deliver(
	req: IncomingMessage,
	res: ServerResponse,
	status: number,
	headers: Record<string, string>,
	bytes: Buffer,
	d: Behaviour['delivery'],
	reason?: string,
): Promise<void> {
	if (d.kind === 'reset') {
		req.socket.destroy();
		return;
	}
	const chunked = d.kind === 'whole' ? d.chunked : false;
	try {
		if (!chunked) headers['content-length'] = String(bytes.length);
		if (reason === undefined) res.writeHead(status, headers);
		else res.writeHead(status, reason, headers);
	} catch {
		// a header value (or reason phrase) Node refuses to send: the connection breaks instead
		req.socket.destroy();
		return;
	}
	if (d.kind === 'cut') {
		const at = Math.floor(bytes.length * d.at);
		res.write(bytes.subarray(0, at), () => req.socket.destroy());
		return;
	}
	if (!chunked || bytes.length > 1 << 20) {
		res.end(bytes);
		return;
	}
	// small pieces, so a key in the body is split across chunks
	for (let i = 0; i < bytes.length; i += 7) {
		if (res.destroyed) return;
		res.write(bytes.subarray(i, i + 7));
		if (i % 70 === 0) await new Promise((r) => setImmediate(r));
	}
	res.end();
}

/**
 * An error answer with the form in its message or code: `{"error":{message,type,code}}` or the flat `{code,message}`
 * envelope; a task query answered 200 gets a failed task whose error (gamma: fail_reason) holds it.
 */
function errorAnswer(
	w: Where,
	l: Leak,
	place: 'error-message' | 'error-code',
	text: string,
	cls: RouteClass,
	video: boolean,
): Answer {
	const message = place === 'error-message' ? `refused: ${text}` : 'refused';
	const code: unknown = place === 'error-code' ? text : l.numericCode ? 40_013 : 'bad_key';
	let value: unknown;
	if (l.status < 300 && cls === 'query') {
		const id = w.taskId ?? 'unknown';
		if (video && w.family === 'gamma')
			value = { task_id: id, status: 'failed', fail_reason: message, code };
		else if (video)
			value = { id, object: 'video', status: 'failed', progress: 10, error: { message, code } };
		else
			value = {
				task_id: id,
				id,
				object: 'image.generation.task',
				status: 'failed',
				state: 'running',
				data: [],
				error: { message, code },
			};
	} else
		value =
			l.envelope === 'flat'
				? { code, message, data: null }
				: { error: { message, type: 'invalid_request_error', code } };
	return {
		status: l.status,
		type: 'application/json',
		bytes: Buffer.from(JSON.stringify(value)),
		json: value,
	};
}

/** A JSON value with the form echoed beside it (an object gains `echo`; anything else is left as it is). */
function withEcho(value: unknown, text: string): unknown {
	return value && typeof value === 'object' && !Array.isArray(value)
		? { ...(value as object), echo: { authorization: text } }
		: value;
}

/** The body with the form's JSON text written with `\u` escapes (`uShare` per cent of its characters, by `cuts`). */
function uEscaped(bytes: Buffer, text: string, l: Leak): Buffer {
	const inJson = JSON.stringify(text).slice(1, -1);
	const body = bytes.toString('utf8');
	if (!inJson || !body.includes(inJson)) return bytes;
	const pick = (i: number) => l.cuts[i % l.cuts.length] ?? 0;
	const escaped = [...text]
		.map((c, i) => {
			if (l.uShare === 100 || (pick(i) + i * 37) % 100 < l.uShare)
				return [...Array(c.length).keys()]
					.map((k) => `\\u${c.charCodeAt(k).toString(16).padStart(4, '0')}`)
					.join('');
			return JSON.stringify(c).slice(1, -1);
		})
		.join('');
	return Buffer.from(body.split(inJson).join(escaped));
}

/** A text in the charset a Content-Type declares (`utf-16`: little-endian after a byte order mark). */
function encodeIn(text: string, charset: NonNullable<Leak['charset']>): Buffer {
	switch (charset) {
		case 'utf-16le':
			return Buffer.from(text, 'utf16le');
		case 'utf-16be':
			return Buffer.from(text, 'utf16le').swap16();
		case 'utf-16':
			return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
		default:
			return Buffer.from(text, 'latin1');
	}
}

/** A header value or reason phrase as HTTP can carry it: tab, printable ASCII and Latin-1 (Node refuses the rest). */
function onTheWire(s: string): string {
	return s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
}

function safeDecode(s: string): string {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
}
