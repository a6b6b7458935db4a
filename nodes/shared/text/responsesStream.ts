/** Reads `/v1/responses` results: walks output[].content[] (never a top-level output_text), and its SSE events. */
import type { EventSourceMessage } from 'eventsource-parser';
import { StreamError } from './sse';

export interface ResponsesResult {
	id?: string;
	model?: string;
	text: string;
	status?: string;
	usage?: Record<string, unknown>;
	done: boolean;
	incompleteReason?: string;
}

export function textFromOutput(output: unknown): string {
	if (!Array.isArray(output)) return '';
	let text = '';
	for (const item of output as Array<Record<string, unknown>>) {
		if (!item || !Array.isArray(item.content)) continue;
		for (const part of item.content as Array<Record<string, unknown>>) {
			if ((part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string') text += part.text;
		}
	}
	return text;
}

export function responsesFromJson(body: Record<string, unknown>): ResponsesResult {
	const incomplete = body.incomplete_details as Record<string, unknown> | undefined;
	return { id: body.id as string, model: body.model as string, text: textFromOutput(body.output), status: body.status as string, usage: body.usage as Record<string, unknown>, done: true, incompleteReason: incomplete?.reason as string | undefined };
}

export class ResponsesStreamAccumulator {
	readonly result: ResponsesResult = { text: '', done: false };
	private deltas = '';

	/** Returns the text delta of this event, or 'done' at the completion event. */
	feed(e: EventSourceMessage): string | 'done' {
		if (!e.data.trim()) return '';
		let json: Record<string, unknown>;
		try {
			json = JSON.parse(e.data);
		} catch {
			throw new StreamError(`stream carried an unreadable event: ${e.data.slice(0, 80)}`);
		}
		const type = (e.event ?? json.type) as string | undefined;
		switch (type) {
			case 'response.output_text.delta':
				if (typeof json.delta === 'string') {
					this.deltas += json.delta;
					return json.delta;
				}
				return '';
			case 'response.completed':
			case 'response.incomplete': {
				const resp = (json.response ?? {}) as Record<string, unknown>;
				const final = responsesFromJson(resp);
				Object.assign(this.result, final, { text: final.text || this.deltas, done: true });
				return 'done';
			}
			case 'response.failed':
			case 'error': {
				const err = (json.error ?? (json.response as Record<string, unknown>)?.error ?? json) as Record<string, unknown>;
				throw new StreamError(`gateway reported an error mid-stream: ${String(err.message ?? JSON.stringify(err))}`);
			}
			case 'response.created': {
				const resp = (json.response ?? {}) as Record<string, unknown>;
				this.result.id = resp.id as string;
				this.result.model = resp.model as string;
				return '';
			}
			default:
				return '';
		}
	}
}
