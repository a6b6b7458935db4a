/** Joins chat-completions SSE chunks into the final message. */
import type { EventSourceMessage } from 'eventsource-parser';
import { StreamError } from './sse';

export interface ChatResult {
	id?: string;
	model?: string;
	content: string;
	finishReason?: string | null;
	usage?: Record<string, unknown>;
	done: boolean;
	chunks: number;
}

export class ChatStreamAccumulator {
	readonly result: ChatResult = { content: '', done: false, chunks: 0 };

	/** Returns the text delta this event adds ('' for none), or 'done' at `[DONE]`. */
	feed(e: EventSourceMessage): string | 'done' {
		const data = e.data.trim();
		if (data === '[DONE]') {
			this.result.done = true;
			return 'done';
		}
		if (!data) return '';
		let json: Record<string, unknown>;
		try {
			json = JSON.parse(data);
		} catch {
			throw new StreamError(`stream carried an unreadable event: ${data.slice(0, 80)}`);
		}
		if (json.error) {
			const err = json.error as Record<string, unknown>;
			throw new StreamError(`gateway reported an error mid-stream: ${typeof err === 'object' ? String(err.message ?? JSON.stringify(err)) : String(err)}`);
		}
		this.result.chunks++;
		this.result.id ??= json.id as string | undefined;
		this.result.model ??= json.model as string | undefined;
		if (json.usage && typeof json.usage === 'object') this.result.usage = json.usage as Record<string, unknown>;
		let delta = '';
		for (const c of (json.choices as Array<Record<string, unknown>> | undefined) ?? []) {
			if ((c.index ?? 0) !== 0) continue;
			const d = (c.delta ?? {}) as Record<string, unknown>;
			if (typeof d.content === 'string') delta += d.content;
			if (c.finish_reason) this.result.finishReason = c.finish_reason as string;
		}
		this.result.content += delta;
		return delta;
	}
}

/** Reads a non-streaming chat completion. */
export function chatFromJson(body: Record<string, unknown>): ChatResult {
	const choice = ((body.choices as Array<Record<string, unknown>>) ?? [])[0] ?? {};
	const msg = (choice.message ?? {}) as Record<string, unknown>;
	const content = typeof msg.content === 'string' ? msg.content : Array.isArray(msg.content) ? (msg.content as Array<Record<string, unknown>>).map((p) => (typeof p.text === 'string' ? p.text : '')).join('') : '';
	return { id: body.id as string, model: body.model as string, content, finishReason: (choice.finish_reason as string) ?? null, usage: body.usage as Record<string, unknown>, done: true, chunks: 0 };
}
