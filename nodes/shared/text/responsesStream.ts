/**
 * The Responses stream parser (`POST /v1/responses` with `stream: true`): `event: <name>` + `data: {json}`
 * pairs, no `[DONE]`; the stream is complete at `response.completed` or `response.incomplete`, or at any other
 * `response.*` event whose response object has ended (the spec does not name the event types). Text is read
 * by walking `output[].content[]` (never a top-level `output_text`). Gateways that send a reduced set of
 * events (no content_part events, no sequence numbers, output only in `output_item.done`) are handled.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import {
	SseByteParser,
	StreamError,
	errorEventText,
	eventJson,
	upstreamError,
	type EventInterpreter,
	type SseLimits,
} from './sse';

export const RESPONSES_END = 'response.completed';

/**
 * Output items and text parts are kept by their indices in maps (never arrays sized by a number from the gateway);
 * more distinct ones than this end the answer as unreadable.
 */
export const MAX_OUTPUT_PARTS = 1024;

const TERMINAL_FAILURES = new Set(['failed', 'cancelled', 'canceled']);

const USED_EVENTS = new Set([
	'response.created',
	'response.in_progress',
	'response.output_text.delta',
	'response.output_text.done',
	'response.output_item.done',
	'response.completed',
	'response.incomplete',
	'response.failed',
	'error',
]);

export interface ResponsesResult {
	id?: string;
	model?: string;
	text: string;
	/** `completed`, `incomplete`, … */
	status?: string;
	incompleteReason?: string;
	usage?: Record<string, unknown>;
	/** the completion event (or completion event) was read */
	done: boolean;
	/** the final response object (from the completion event, completed from the streamed items) */
	response?: Record<string, unknown>;
}

/** Joins the text parts of `output[].content[]` (`output_text`, or `text` from some gateways). */
export function textFromOutput(output: unknown): string {
	if (!Array.isArray(output)) return '';
	let text = '';
	for (const item of output as Array<Record<string, unknown>>) {
		if (!item || typeof item !== 'object' || !Array.isArray(item.content)) continue;
		for (const part of item.content as Array<Record<string, unknown>>) {
			if (
				part &&
				(part.type === 'output_text' || part.type === 'text') &&
				typeof part.text === 'string'
			)
				text += part.text;
		}
	}
	return text;
}

/** Reads a non-streaming Responses answer (also what a gateway sends when it ignores `stream: true`). */
export function responsesFromJson(body: Record<string, unknown>): ResponsesResult {
	if (
		body.status === 'failed' ||
		(body.error !== undefined && body.error !== null && body.error !== false)
	)
		throw upstreamError(body, '');
	if (!Array.isArray(body.output)) {
		throw new StreamError(
			`the answer holds no output list (${Object.keys(body).slice(0, 8).join(', ') || 'an empty object'})`,
			'unreadable',
		);
	}
	const incomplete = body.incomplete_details as Record<string, unknown> | undefined;
	return {
		id: typeof body.id === 'string' ? body.id : undefined,
		model: typeof body.model === 'string' ? body.model : undefined,
		text: textFromOutput(body.output),
		status: typeof body.status === 'string' ? body.status : undefined,
		incompleteReason:
			incomplete && typeof incomplete.reason === 'string' ? incomplete.reason : undefined,
		usage:
			body.usage && typeof body.usage === 'object'
				? (body.usage as Record<string, unknown>)
				: undefined,
		done: true,
		response: body,
	};
}

/** Interprets Responses SSE events (the event layer; `ResponsesStreamParser` adds bytes and SSE framing). */
export class ResponsesStreamAccumulator implements EventInterpreter {
	private deltas = '';
	private created: Record<string, unknown> = {};
	private final?: Record<string, unknown>;
	private finalType?: string;
	/** items from `response.output_item.done`, by output_index */
	private readonly items = new Map<number, Record<string, unknown>>();
	/** texts from `response.output_text.done`, by "output_index:content_index" */
	private readonly doneTexts = new Map<string, string>();

	get finished(): boolean {
		return this.final !== undefined;
	}

	get receivedText(): string {
		return this.deltas;
	}

	get result(): ResponsesResult {
		if (!this.final) {
			return {
				id: str(this.created.id),
				model: str(this.created.model),
				text: this.deltas,
				done: false,
			};
		}
		const response = this.finalResponse();
		const incomplete = response.incomplete_details as Record<string, unknown> | undefined;
		return {
			id: str(response.id),
			model: str(response.model),
			text: this.finalText(),
			status:
				str(response.status) ??
				(this.finalType === 'response.incomplete' ? 'incomplete' : 'completed'),
			incompleteReason:
				incomplete && typeof incomplete.reason === 'string' ? incomplete.reason : undefined,
			usage:
				response.usage && typeof response.usage === 'object'
					? (response.usage as Record<string, unknown>)
					: undefined,
			done: true,
			response,
		};
	}

	/** One event: read (or skipped), then applied by its type; returns the text delta it adds. */
	onEvent(e: EventSourceMessage, atEnd: boolean): string {
		if (this.final) return '';
		const read = this.read(e, atEnd);
		return read ? this.apply(read.type, read.json) : '';
	}

	/** The event's type and JSON, or nothing for an event this parser does not use. Throws for an error event. */
	private read(
		e: EventSourceMessage,
		atEnd: boolean,
	): { type: string | undefined; json: Record<string, unknown> } | undefined {
		const data = e.data.trim();
		// no [DONE] in this protocol; a gateway that appends one anyway is not an answer
		if (!data || data === '[DONE]') return undefined;
		const errorEvent = errorEventText(e, this.deltas);
		if (errorEvent) throw errorEvent;
		const named = e.event && e.event !== 'message' ? e.event : undefined;
		// named events this parser does not use (content_part, reasoning, ping, …) are not parsed, unless a `response.*`
		// event may carry the response object's status (the spec names no completion event)
		if (
			named &&
			!USED_EVENTS.has(named) &&
			!(named.startsWith('response.') && data.includes('"status"'))
		)
			return undefined;
		const json = eventJson(e, atEnd, { receivedText: this.deltas, marker: RESPONSES_END });
		return { type: named ?? str(json.type), json };
	}

	private apply(type: string | undefined, json: Record<string, unknown>): string {
		switch (type) {
			case 'response.created':
			case 'response.in_progress':
				if (json.response && typeof json.response === 'object')
					this.created = { ...this.created, ...(json.response as Record<string, unknown>) };
				return '';
			case 'response.output_text.delta':
				if (typeof json.delta !== 'string') return '';
				this.deltas += json.delta;
				return json.delta;
			case 'response.output_text.done':
				this.textDone(json);
				return '';
			case 'response.output_item.done':
				this.itemDone(json);
				return '';
			case 'response.completed':
			case 'response.incomplete':
				this.finalType = type;
				this.final =
					json.response && typeof json.response === 'object'
						? (json.response as Record<string, unknown>)
						: {};
				return '';
			case 'response.failed': {
				const resp = (json.response ?? {}) as Record<string, unknown>;
				throw upstreamError(resp.error ? resp : json, this.deltas);
			}
			case 'error':
				throw upstreamError(json, this.deltas);
			default:
				if (type?.startsWith('response.')) this.endByStatus(type, json);
				return '';
		}
	}

	/** `response.output_text.done`: a text part's whole text, by "output_index:content_index". */
	private textDone(json: Record<string, unknown>): void {
		if (typeof json.text !== 'string') return;
		const key = `${this.index(json.output_index, 0)}:${this.index(json.content_index, 0)}`;
		if (!this.doneTexts.has(key)) this.checkCount(this.doneTexts.size, 'text parts');
		this.doneTexts.set(key, json.text);
	}

	/** `response.output_item.done`: an output item, by output_index. */
	private itemDone(json: Record<string, unknown>): void {
		if (!json.item || typeof json.item !== 'object') return;
		const i = this.index(json.output_index, this.items.size);
		if (!this.items.has(i)) this.checkCount(this.items.size, 'output items');
		this.items.set(i, json.item as Record<string, unknown>);
	}

	/** Any `response.*` event whose response object says it ended: completed or incomplete ends the answer; failed or cancelled fails it. */
	private endByStatus(type: string, json: Record<string, unknown>): void {
		const resp =
			json.response && typeof json.response === 'object' && !Array.isArray(json.response)
				? (json.response as Record<string, unknown>)
				: undefined;
		const status = str(resp?.status)?.toLowerCase();
		if (!resp || !status) return;
		if (status === 'completed' || status === 'incomplete') {
			this.finalType = status === 'incomplete' ? 'response.incomplete' : RESPONSES_END;
			this.final = resp;
		} else if (TERMINAL_FAILURES.has(status)) {
			if (resp.error) throw upstreamError(resp, this.deltas);
			throw new StreamError(
				`the gateway ended the answer with status "${status}" (event ${type.slice(0, 80)})`,
				'upstream',
				this.deltas,
			);
		}
	}

	/** An index the gateway sent: a whole number from 0; anything else makes the answer unreadable. */
	private index(v: unknown, fallback: number): number {
		if (v === undefined || v === null) return fallback;
		if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
		throw new StreamError(
			`the stream carried the index ${JSON.stringify(v)?.slice(0, 40)}, which is not a valid index: the answer cannot be read`,
			'unreadable',
			this.deltas,
		);
	}

	private checkCount(size: number, what: string): void {
		if (size >= MAX_OUTPUT_PARTS)
			throw new StreamError(
				`the stream carried more than ${MAX_OUTPUT_PARTS} ${what}: the answer cannot be read`,
				'unreadable',
				this.deltas,
			);
	}

	/** The completion event's response, its output filled from the streamed items when a gateway left it out. */
	private finalResponse(): Record<string, unknown> {
		const base = { ...this.created, ...this.final };
		const output = Array.isArray(base.output) ? base.output : [];
		if (output.length === 0 && this.items.size)
			base.output = [...this.items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
		return base;
	}

	private finalText(): string {
		const fromOutput = textFromOutput(this.finalResponse().output);
		if (fromOutput) return fromOutput;
		if (this.doneTexts.size)
			return [...this.doneTexts.entries()]
				.sort(([a], [b]) => cmpKey(a, b))
				.map(([, t]) => t)
				.join('');
		return this.deltas;
	}
}

/** Bytes in, deltas out: the Responses stream parser. `onDelta` gets each `output_text.delta`. */
export class ResponsesStreamParser extends SseByteParser {
	readonly accumulator: ResponsesStreamAccumulator;

	constructor(
		onDelta?: (text: string) => void,
		accumulator = new ResponsesStreamAccumulator(),
		limits: Partial<SseLimits> = {},
	) {
		super(accumulator, `${RESPONSES_END} (or response.incomplete)`, onDelta, limits);
		this.accumulator = accumulator;
	}

	get result(): ResponsesResult {
		return this.accumulator.result;
	}
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function cmpKey(a: string, b: string): number {
	const [a1, a2] = a.split(':').map(Number);
	const [b1, b2] = b.split(':').map(Number);
	return a1 - b1 || a2 - b2;
}
