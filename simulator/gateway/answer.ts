/**
 * What a route answers, as a value: the faithful routes return an `Answer` and never write to the socket, so the
 * fault layer (../faults/) can replace or transform it before `writeAnswer` sends it.
 */
import type { ServerResponse } from 'node:http';
import type { Body } from '../media/body';
import { sendBody } from '../media/send';
import type { ImageTask, VideoTask } from '../state';

/** A result download (result host, video `/content`): sent after the result host's time to first byte, at its bandwidth. */
export type Download =
	| {
			kind: 'image';
			id: string;
			width: number;
			height: number;
			format: 'png' | 'jpeg' | 'webp';
			variant: number;
	  }
	| { kind: 'video'; bytes: number; durationSec: number };

/** What an answer is about, so that a fault can find the answers it changes (absent: nothing in particular). */
export type About =
	/** a synchronous image answer (`data[]`) */
	| { kind: 'image-answer'; width: number; height: number }
	/** the image task object, answered by its submission (`query: false`) or a task query */
	| { kind: 'image-task'; task: ImageTask; query: boolean }
	/** a native generateContent answer with its one image */
	| { kind: 'native-image'; width: number; height: number }
	/** chat completions: the stream's id, created and model, and the text the answer replies to */
	| { kind: 'chat'; id: string; created: number; model: unknown; prompt: string }
	/** responses: the final response object, its message item, and the text the answer replies to */
	| {
			kind: 'responses';
			full: Record<string, unknown>;
			item: Record<string, unknown>;
			msgId: string;
			prompt: string;
	  }
	| { kind: 'video-task'; task: VideoTask };

export type Answer = (
	| { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
	/** bytes as they are (no JSON encoding): plain-text errors, bodies cut short, empty bodies */
	| { kind: 'bytes'; status: number; headers: Record<string, string | number>; body: Body }
	/** a server-sent event stream, written event by event */
	| { kind: 'sse'; events: string[] }
	| { kind: 'download'; download: Download }
	/** written by its own writer (streams that never end, paced or broken bodies) */
	| { kind: 'custom'; write: (res: ServerResponse) => Promise<void> }
	/** the connection is dropped without an answer */
	| { kind: 'drop' }
) & { about?: About };

export const json = (
	status: number,
	body: unknown,
	headers?: Record<string, string>,
	about?: About,
): Answer => ({ kind: 'json', status, body, headers, about });

/**
 * A text answer to a request that asked `stream: true`, when the upstream ignores it (`[nostream]` in the conversation
 * or the `ignore-stream` fault): `undefined` when it streams; otherwise the headers of the plain JSON answer —
 * `[nostream=<content type>]` or the fault's `value` labels it (`[nostream=text/event-stream; charset=utf-16]`: the
 * whole UTF-8 JSON under the stream's label and a charset it was not written in).
 */
export function ignoredStream(
	text: string,
	upstream: { ignoresStream(): boolean | string },
): Record<string, string> | undefined {
	const m = /\[nostream(?:=([^\]]+))?\]/.exec(text);
	const fault = !m && upstream.ignoresStream();
	if (!m && !fault) return undefined;
	const label = m?.[1] ?? (typeof fault === 'string' ? fault : undefined);
	return label ? { 'content-type': label } : {};
}

/** OpenAI-style envelope, used on most routes (middleware errors omit `param`). */
export function openAiError(
	status: number,
	message: string,
	code: string | number,
	type = 'invalid_request_error',
	requestId?: string,
	headers: Record<string, string> = {},
): Answer {
	return json(
		status,
		{
			error: { message: requestId ? `${message} (request id: ${requestId})` : message, type, code },
		},
		headers,
	);
}

/** Task-route envelope: `{"code","message","data":null}`. */
export function taskError(status: number, code: string, message: string): Answer {
	return json(status, { code, message, data: null });
}

export const DROP: Answer = { kind: 'drop' };

/** A plain answer written as `writeHead` + `end` (no Content-Length of ours). */
export function plain(status: number, headers: Record<string, string>, text?: string): Answer {
	return {
		kind: 'custom',
		write: async (res) => {
			res.writeHead(status, headers);
			res.end(text);
		},
	};
}

/** Sends an answer as it is; `sendDownload` writes downloads (it knows the result host's pace). */
export async function writeAnswer(
	res: ServerResponse,
	a: Answer,
	sendDownload: (res: ServerResponse, d: Download) => Promise<void>,
): Promise<void> {
	switch (a.kind) {
		case 'json': {
			const text = JSON.stringify(a.body);
			res.writeHead(a.status, {
				'content-type': 'application/json',
				'content-length': Buffer.byteLength(text),
				...a.headers,
			});
			return void res.end(text);
		}
		case 'bytes':
			return sendBody(res, a.status, a.headers, a.body);
		case 'sse':
			res.writeHead(200, SSE_HEAD);
			for (const e of a.events) res.write(e);
			return void res.end();
		case 'download':
			return sendDownload(res, a.download);
		case 'custom':
			return a.write(res);
		case 'drop':
			return void res.socket?.destroy();
	}
}

export const SSE_HEAD = {
	'content-type': 'text/event-stream',
	'cache-control': 'no-cache',
	connection: 'keep-alive',
};

/** One chat completion chunk event. */
export function chatChunk(
	meta: { id?: string; created: number; model: unknown },
	choices: unknown[],
	extra: Record<string, unknown> = {},
): string {
	return `data: ${JSON.stringify({ id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices, ...extra })}\n\n`;
}

/** One responses event. */
export function responsesEvent(name: string, data: Record<string, unknown>): string {
	return `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
}
