/** Small HTTP helpers for the simulator's servers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonModesOf, oversizeJson, paddingAround, sendBody, type JsonMode } from './delivery';
import { bufferBody } from './media';

export interface Req {
	method: string;
	path: string;
	query: URLSearchParams;
	headers: IncomingMessage['headers'];
	raw: IncomingMessage;
	body: Buffer;
	/** parsed JSON body, or undefined */
	json?: unknown;
	/** parsed multipart body, or undefined */
	form?: FormData;
	res: ServerResponse;
}

export async function readBody(req: IncomingMessage, cap = 64 * 1024 * 1024): Promise<Buffer | 'too-large'> {
	const chunks: Buffer[] = [];
	let total = 0;
	for await (const c of req) {
		total += (c as Buffer).length;
		if (total > cap) return 'too-large';
		chunks.push(c as Buffer);
	}
	return Buffer.concat(chunks);
}

export async function parseForm(body: Buffer, contentType: string): Promise<FormData | undefined> {
	try {
		return await new Response(body, { headers: { 'content-type': contentType } }).formData();
	} catch {
		return undefined;
	}
}

/** Sends JSON; a fault may have asked for it to echo the request headers, trickle, or grow to an oversize body. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	let value = body;
	const modes = jsonModesOf(res);
	for (const m of modes) if (m.kind === 'echo-headers') value = value && typeof value === 'object' && !Array.isArray(value) ? { ...value, request_headers: m.headers } : { value, request_headers: m.headers };
	const text = JSON.stringify(value);
	const oversize = modes.find((m): m is Extract<JsonMode, { kind: 'oversize' }> => m.kind === 'oversize');
	const trickle = modes.find((m): m is Extract<JsonMode, { kind: 'trickle' }> => m.kind === 'trickle');
	if (oversize) {
		const [prefix, suffix] = paddingAround(text);
		return void sendBody(res, status, { 'content-type': 'application/json', ...headers }, oversizeJson(prefix, suffix, oversize.bytes));
	}
	if (trickle) return void sendBody(res, status, { 'content-type': 'application/json', ...headers }, bufferBody([Buffer.from(text, 'utf8')]), { trickleMs: trickle.intervalMs });
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
	res.end(text);
}

/** OpenAI-style envelope, used on most routes (middleware errors omit `param`). */
export function openAiError(res: ServerResponse, status: number, message: string, code: string | number, type = 'invalid_request_error', requestId?: string, headers: Record<string, string> = {}): void {
	sendJson(res, status, { error: { message: requestId ? `${message} (request id: ${requestId})` : message, type, code } }, headers);
}

/** Task-route envelope: `{"code","message","data":null}`. */
export function taskError(res: ServerResponse, status: number, code: string, message: string): void {
	sendJson(res, status, { code, message, data: null });
}
