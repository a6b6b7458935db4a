/**
 * The one way out to n8n. Everything the package hands to n8n passes here and is redacted here, whatever its form:
 * output items (JSON and binary metadata), execution hints, node errors (message, description, messages, context,
 * errorResponse, cause, stack), text chunks streamed to n8n's chat, what the Chat Model hands the agent and the
 * credential test's messages. The key is redacted where answers enter (the transport) and again here, where anything
 * leaves; the output contract's last guard (no state word of another state) is applied to every item here too, and
 * every item is shown in its node version's shape (the gateway's words in one object from GATEWAY_OBJECT_SINCE on).
 */
import {
	NodeApiError,
	NodeOperationError,
	type IBinaryData,
	type IDataObject,
	type INodeExecutionData,
} from 'n8n-workflow';
import type { Readable } from 'node:stream';
import { toNodeError } from '../errors';
import { shownForVersion, withoutForeignWords } from '../items/shapes';
import { REDACTED, redactorFor, type Redactor } from '../transport/redact';

/** The parts of n8n's node contexts the exit uses (an execute context, a supply-data context, a load-options one). */
export interface ExitContext {
	getNode(): import('n8n-workflow').INode;
	addExecutionHints?(...hints: import('n8n-workflow').NodeExecutionHint[]): void;
	sendChunk?(
		type: 'begin' | 'item' | 'end' | 'error',
		itemIndex: number,
		content?: IDataObject | string,
	): unknown;
	helpers?: object;
}

export type HintType = 'info' | 'warning' | 'danger';

/** Binary metadata fields that hold text the package (or the gateway) chose. */
const BINARY_TEXT_FIELDS = [
	'fileName',
	'fileExtension',
	'mimeType',
	'fileType',
	'directory',
	'fileSize',
	'fileFormat',
] as const;

export class Exit {
	private secrets: string[] = [];
	private redactor: Redactor = redactorFor([]);
	private onErrorReader?: () => boolean;

	constructor(private readonly ctx: ExitContext) {}

	/** The node's own `this.continueOnFail()`, handed over by `runNode`: the one reader of n8n's error setting. */
	readOnError(continueOnFail: () => boolean): void {
		this.onErrorReader = continueOnFail;
	}

	/** n8n's error setting: true under either Continue setting, false under Stop Workflow. */
	continueOnFail(): boolean {
		if (!this.onErrorReader) throw new Error('The node run did not enter through runNode');
		return this.onErrorReader();
	}

	/** The key and the credential's other secrets this exit redacts (added by the credential read and the transport). */
	addSecrets(secrets: Array<string | undefined>): void {
		const more = secrets.filter(
			(s): s is string => typeof s === 'string' && !!s && !this.secrets.includes(s),
		);
		if (!more.length) return;
		this.secrets = [...this.secrets, ...more];
		this.redactor = redactorFor(this.secrets);
	}

	get redactionSecrets(): string[] {
		return [...this.secrets];
	}

	text(s: string): string {
		return this.redactor.text(s);
	}

	value<T>(v: T): T {
		return this.redactor.value(v);
	}

	/** Output items: JSON redacted and held to the output contract, binary metadata redacted, pairing kept. */
	items(outputs: INodeExecutionData[][]): INodeExecutionData[][] {
		return outputs.map((items) => items.map((item) => this.item(item)));
	}

	item(item: INodeExecutionData): INodeExecutionData {
		const node = this.ctx.getNode();
		const json = this.redactor.value(
			shownForVersion(withoutForeignWords(item.json), node.type, node.typeVersion),
		);
		const out: INodeExecutionData = { ...item, json };
		if (item.binary)
			out.binary = Object.fromEntries(
				Object.entries(item.binary).map(([prop, b]) => [this.text(prop), this.binaryMeta(b)]),
			);
		if (item.error) out.error = this.scrubError(item.error);
		return out;
	}

	private binaryMeta(b: IBinaryData): IBinaryData {
		let out: IBinaryData | undefined;
		for (const f of BINARY_TEXT_FIELDS) {
			const v = (b as unknown as Record<string, unknown>)[f];
			if (typeof v !== 'string') continue;
			const clean = this.text(v);
			if (clean !== v) (out ??= { ...b })[f as 'fileName'] = clean;
		}
		return out ?? b;
	}

	/** An execution hint, redacted. */
	hint(message: string, type?: HintType): void {
		if (typeof this.ctx.addExecutionHints !== 'function' || !message) return;
		this.ctx.addExecutionHints({
			message: this.text(message),
			location: 'outputPane',
			...(type ? { type } : {}),
		});
	}

	/**
	 * How a long wait goes, while it goes: n8n's `sendMessageToUI` (manual executions: the editor's browser console,
	 * under the node's name) and n8n's log at debug level; redacted. Nothing where the context has neither.
	 */
	progress(message: string): void {
		const c = this.ctx as ExitContext & {
			sendMessageToUI?: (...args: unknown[]) => void;
			logger?: { debug?: (message: string) => void };
		};
		const text = this.text(message);
		try {
			if (typeof c.sendMessageToUI === 'function') c.sendMessageToUI(text);
			c.logger?.debug?.(text);
		} catch {
			// a report that cannot be shown never stops the wait
		}
	}

	/** Binary data stored through n8n with a redacted file name and MIME type (n8n keeps both in its binary store). */
	async binary(data: Buffer | Readable, fileName: string, mimeType: string): Promise<IBinaryData> {
		const helpers = this.ctx.helpers as
			| {
					prepareBinaryData?(
						data: Buffer | Readable,
						fileName?: string,
						mimeType?: string,
					): Promise<IBinaryData>;
			  }
			| undefined;
		const prepare = helpers?.prepareBinaryData;
		if (typeof prepare !== 'function') throw new Error('this n8n context cannot store binary data');
		const name = this.text(fileName);
		return this.binaryMeta(
			await prepare.call(
				helpers,
				data,
				name === fileName ? name : name.replace(/\*\*\*/g, 'redacted'),
				this.text(mimeType),
			),
		);
	}

	/**
	 * The n8n error for anything thrown, with every text in it redacted (message, description, context, cause, stack).
	 * An error about the whole batch (WHOLE_BATCH_ERRORS) names no item: n8n's editor would end its message in "[item 0]".
	 */
	error(err: unknown, itemIndex = 0): NodeApiError | NodeOperationError {
		const nodeError = toNodeError(
			this.ctx.getNode(),
			err,
			isWholeBatch(err) ? undefined : itemIndex,
			this.secrets,
		);
		return this.scrubError(nodeError);
	}

	/** Redacts an error object in place, deep (it keeps its class: n8n reads it), and returns it. */
	scrubError<E>(err: E): E {
		scrub(err, this.redactor, new WeakSet());
		return err;
	}

	/**
	 * Text chunks for n8n's chat stream of one item: redacted, held back only while a key could still be forming. Off
	 * where n8n does not stream this execution (n8n 1.x has no chat stream; a tool call never streams).
	 */
	chat(itemIndex: number, wanted = true): ChatOut {
		const c = this.ctx as ExitContext & {
			isStreaming?: () => boolean;
			isToolExecution?: () => boolean;
		};
		const enabled =
			wanted &&
			typeof c.isStreaming === 'function' &&
			typeof c.sendChunk === 'function' &&
			!(typeof c.isToolExecution === 'function' && c.isToolExecution()) &&
			c.isStreaming();
		return new ChatOut(this.ctx, this.redactor, itemIndex, enabled);
	}
}

/**
 * Errors that judge a whole batch rather than one of its items, by their name (the class stays where it belongs):
 * Max Expected Spend's refusal (money/cap.ts BudgetError) is about what all the items together would cost.
 */
const WHOLE_BATCH_ERRORS: ReadonlySet<string> = new Set(['BudgetError']);

function isWholeBatch(err: unknown): boolean {
	return err instanceof Error && WHOLE_BATCH_ERRORS.has(err.name);
}

/** Mutates errors (keeping their class) and plain containers in place; strings become redacted. */
function scrub(v: unknown, r: Redactor, seen: WeakSet<object>, depth = 0): unknown {
	if (typeof v === 'string') return r.text(v);
	if (!v || typeof v !== 'object' || depth > 12 || seen.has(v)) return v;
	seen.add(v);
	if (Buffer.isBuffer(v) || ArrayBuffer.isView(v)) return v;
	if (Array.isArray(v)) {
		v.forEach((x, i) => (v[i] = scrub(x, r, seen, depth + 1)));
		return v;
	}
	const o = v as Record<string, unknown>;
	const isError = v instanceof Error;
	const keys = new Set(Object.keys(o));
	if (isError) for (const k of ['message', 'stack', 'description', 'cause']) keys.add(k);
	for (const k of keys) {
		// the node the error belongs to is n8n's own object (its parameters and credentials' references), not ours
		if (isError && k === 'node') continue;
		let x: unknown;
		try {
			x = o[k];
		} catch {
			continue;
		}
		if (x === undefined) continue;
		const y = scrub(x, r, seen, depth + 1);
		if (y !== x) {
			try {
				o[k] = y;
			} catch {
				// a read-only property: leave it
			}
		}
	}
	return v;
}

/**
 * Text to n8n's chat (n8n 2.x `sendChunk`), in order, redacted as a stream: what could still be the start of a key
 * is held back until the next text shows it is not (a bounded look-behind), never longer. A failing chat never
 * breaks the node: the output item still carries the answer.
 */
export class ChatOut {
	private begun = false;
	private chain: Promise<void> = Promise.resolve();
	private readonly stream;

	constructor(
		private readonly ctx: ExitContext,
		private readonly redactor: Redactor,
		private readonly itemIndex: number,
		readonly enabled: boolean,
	) {
		this.stream = redactor.textStream();
	}

	private send(type: 'begin' | 'item' | 'end' | 'error', content?: string): void {
		this.chain = this.chain.then(async () => {
			try {
				await (this.ctx.sendChunk?.(type, this.itemIndex, content) as unknown);
			} catch {
				// the chat or webhook went away: the node's output still carries the answer
			}
		});
	}

	begin(): void {
		if (!this.enabled || this.begun) return;
		this.begun = true;
		this.send('begin');
	}

	item(text: string): void {
		if (!this.enabled || !text) return;
		this.begin();
		const out = this.stream.write(text);
		if (out) this.send('item', out);
	}

	/** The rest of the text (what was held back), then the end of the item's stream. */
	end(): void {
		if (!this.enabled) return;
		this.begin();
		const rest = this.stream.end();
		if (rest) this.send('item', rest);
		this.send('end');
	}

	/** After the gateway answered the node never fails (it may be billed), so n8n sends no error chunk: send one. */
	error(message: string): void {
		if (!this.enabled) return;
		this.begin();
		// text held back may be the start of a key: it is dropped with the stream
		this.stream.end();
		this.send('error', this.redactor.text(message));
	}

	flush(): Promise<void> {
		return this.chain;
	}
}

export { REDACTED };
