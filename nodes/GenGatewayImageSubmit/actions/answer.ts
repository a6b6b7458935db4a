/**
 * Image Submit's part of the item pipeline: read and check an item, send it once in the chosen mode, and shape what
 * came back: a task item (optionally waited for and downloaded), the images of a synchronous or native answer, an
 * uncertain item, or a failure that keeps the task ID.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { exitOf } from '../../shared/exit';
import type { PaidOperation } from '../../shared/runners/paid';
import { completedItem, submittedItem, uncertainItem, userFields } from '../../shared/items/shapes';
import { failure, type PaidFailure } from '../../shared/runners/failures';
import { ResultInvalidError, storeImageResult } from '../../shared/media/store';
import { normaliseImageTask, type NormalisedTask } from '../../shared/tasks/phases';
import type { GatewayTransport } from '../../shared/transport';
import { itemOf, WaitAndEmit } from '../../shared/tasks/emit';
import {
	loadSubmitInput,
	prepareImageItem,
	type ImageSubmitOperation,
	type PreparedImage,
} from './input';
import { partialImagesWarning } from '../../shared/items/shapes';
import { normalisedSize, sizeNote, unknownModelNote } from './rules';
import {
	explainNoImage,
	readImageAnswer,
	sendImage,
	type ImageAnswer,
	type ImageMode,
	type SubmitResult,
} from './request';

/** the longest an AI agent's call of the tool waits for its images */
export const TOOL_WAIT_MINUTES = 5;
/** price look-ups for the execution hint: one per model, a few models at most */
const HINTED_MODELS = 3;

/** What the gateway will deliver for the requested size, where the spec says (alpha-image-2 normalises it). */
function expectedSize(p: PreparedImage): IDataObject {
	const n = normalisedSize(p.input.req.model, p.input.req.size);
	return n ? { requested_size: n.requested, expected_size: n.size } : {};
}

function taskJson(
	t: NormalisedTask,
	body: Record<string, unknown>,
	transport: GatewayTransport,
	p: PreparedImage,
	mode: ImageMode,
): IDataObject {
	const now = Date.now();
	return submittedItem(
		{
			task_id: t.taskId ?? null,
			kind: 'image',
			model: p.input.req.model,
			prompt: p.input.req.prompt,
			mode,
			n: p.input.req.n,
			...expectedSize(p),
			poll_path: t.pollPath ?? `/v1/images/tasks/${t.taskId}`,
			poll_after_ms: t.pollAfterMs ?? 3000,
			request_id: t.requestId ?? null,
			billing_status: t.billingStatus ?? null,
			origin: 'base',
			origin_url: transport.root('base').root,
			submitted_at: now,
			submitted_at_iso: new Date(now).toISOString(),
		},
		{ status: body.status, state: body.state ?? null },
	);
}

function uncertainJson(
	sent: Extract<SubmitResult, { kind: 'uncertain' }>,
	model: string,
	prompt: string,
): IDataObject {
	const body =
		sent.body && typeof sent.body === 'object' && !Array.isArray(sent.body)
			? (sent.body as Record<string, unknown>)
			: undefined;
	const t = body ? normaliseImageTask(body) : undefined;
	return uncertainItem(
		{
			task_id: t?.taskId ?? null,
			request_id: t?.requestId ?? null,
			kind: 'image',
			model,
			prompt,
			mode: sent.mode,
		},
		sent.reason,
	);
}

interface ImageOptions {
	asTool: boolean;
	binaryProperty: string;
}

/** what one execution of the node remembers across its items: the waiter it shares, whether the partial hint was given */
interface RunState {
	waiter?: WaitAndEmit;
	partialHinted: boolean;
}

/** The images of an answer (synchronous, native, or a task that already ended): stored as binary, or a failure. */
async function imagesItem(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	o: ImageOptions,
	run: RunState,
	p: PreparedImage,
	sent: Extract<SubmitResult, { kind: 'images' }>,
	i: number,
): Promise<INodeExecutionData | PaidFailure> {
	const prop = (k: number) => (k ? `${o.binaryProperty}_${k}` : o.binaryProperty);
	const model = p.input.req.model;
	const fields = { model, prompt: p.input.req.prompt, mode: sent.mode, ...expectedSize(p) };
	if (!sent.refs.length) {
		const why =
			sent.mode === 'native'
				? explainNoImage(sent.body)
				: `HTTP 200 but no image in the answer${sent.body.error ? `: ${JSON.stringify(sent.body.error)}` : ''}; treated as a failure`;
		return failure(new ResultInvalidError(why), 'answer', true, { fields });
	}
	const binary: NonNullable<INodeExecutionData['binary']> = {};
	const files: IDataObject[] = [];
	try {
		for (const [k, ref] of sent.refs.entries()) {
			const stored = await storeImageResult(ctx, transport, ref, `image_${i}${k ? `_${k}` : ''}`);
			if (!o.asTool) binary[prop(k)] = stored.binary;
			files.push({ ...stored.meta, binaryProperty: o.asTool ? null : prop(k) });
		}
	} catch (err) {
		return failure(err, 'download', true, {
			fields: { ...fields, result_urls: sent.refs.map((r) => r.url ?? null) },
		});
	}
	const partial = partialImagesWarning(p.input.req.n, files.length);
	if (partial.warning && !run.partialHinted) {
		run.partialHinted = true;
		exitOf(ctx).hint(
			`Fewer images than asked arrived (n > 1): see images_expected, images_received and warning on the items. ${partial.warning}`,
			'warning',
		);
	}
	return {
		json: completedItem({
			...fields,
			files,
			...partial,
			...(sent.text ? { text: sent.text } : {}),
		}),
		...(o.asTool ? {} : { binary }),
	};
}

/** The execution hint's notes on the batch's models and sizes (unknown model, a size the model normalises). */
function hintModelNotes(ctx: IExecuteFunctions, prepared: Array<PreparedImage | undefined>): void {
	const notes = new Set(
		prepared
			.flatMap((p) =>
				p
					? [unknownModelNote(p.input.req.model), sizeNote(p.input.req.model, p.input.req.size)]
					: [],
			)
			.filter((n): n is string => !!n),
	);
	for (const message of [...notes].slice(0, HINTED_MODELS)) exitOf(ctx).hint(message);
}

/** A task item waited for (Wait for Result, or always as an AI agent's tool, bounded): one item, built once. */
async function waitedItem(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	o: ImageOptions,
	run: RunState,
	p: PreparedImage,
	task: { json: IDataObject; body: Record<string, unknown> },
	i: number,
): Promise<INodeExecutionData | PaidFailure> {
	const { json, body } = task;
	const taskId = json.task_id as string;
	const minutes = o.asTool
		? Math.min(p.options.deadlineMinutes ?? TOOL_WAIT_MINUTES, TOOL_WAIT_MINUTES)
		: (p.options.deadlineMinutes ?? 30);
	run.waiter ??= new WaitAndEmit(ctx, transport);
	const waited = await run.waiter.run(
		{
			index: i,
			taskId,
			kind: 'image',
			origin: 'base',
			pollPath: json.poll_path as string,
			pollUrl: typeof body.poll_url === 'string' ? body.poll_url : undefined,
			pollAfterMs: json.poll_after_ms as number,
			deadline: Date.now() + minutes * 60_000,
			initialDelayMs: json.poll_after_ms as number,
		},
		{
			binaryProperty: o.binaryProperty,
			download: true,
			model: p.input.req.model,
			imagesExpected: p.input.req.n,
		},
	);
	// the submit's facts (never its state words), then what the wait found: one item, built once
	const facts = userFields(json);
	if (waited.state === 'failed' && !waited.uncertain)
		return failure(waited.failure.error, waited.failure.failedAt, true, {
			taskId,
			fields: { ...facts, ...waited.fields },
		});
	const done = itemOf(waited, facts);
	if (!o.asTool) return done;
	// an agent reads JSON only: the files' addresses, types and real sizes, no binary
	const files = Array.isArray(done.json.files)
		? (done.json.files as IDataObject[]).map((f) => ({ ...f, binaryProperty: null }))
		: done.json.files;
	return { json: { ...done.json, ...(files ? { files } : {}) } };
}

/** What came back for one item, as its output: uncertain, the images, a task that already ended, or the task item. */
async function finishImage(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	o: ImageOptions,
	run: RunState,
	p: PreparedImage,
	answer: ImageAnswer,
	i: number,
): Promise<INodeExecutionData | PaidFailure> {
	const sent = readImageAnswer(answer);
	const model = p.input.req.model;
	if (sent.kind === 'uncertain') return { json: uncertainJson(sent, model, p.input.req.prompt) };
	if (sent.kind === 'images') return imagesItem(ctx, transport, o, run, p, sent, i);
	const json = taskJson(sent.task, sent.body, transport, p, sent.mode);
	const ended = sent.mode === 'async' ? undefined : sent.task;
	// a synchronous 200 that is a task object which already ended: its images now, or a failure that reached the gateway
	if (ended?.phase === 'succeeded')
		return imagesItem(
			ctx,
			transport,
			o,
			run,
			p,
			{ kind: 'images', refs: ended.results, body: sent.body, mode: sent.mode },
			i,
		);
	if (ended?.phase === 'failed') {
		return failure(
			new ResultInvalidError(`HTTP 200: ${ended.error ?? 'the task failed'}`),
			'answer',
			true,
			{
				taskId: json.task_id as string,
				fields: { model, mode: sent.mode, billing_status: ended.billingStatus ?? null },
			},
		);
	}
	// an AI agent cannot use a task ID: as a tool the node waits (bounded) and returns the images' addresses and sizes
	if (!p.options.waitForResult && !o.asTool) return { json };
	return waitedItem(ctx, transport, o, run, p, { json, body: sent.body }, i);
}

/** An Image Submit operation (Generate or Edit) in the paid pipeline: check, price, send once, finish (phases above). */
export function imageOperation(
	ctx: IExecuteFunctions,
	transport: GatewayTransport,
	operation: ImageSubmitOperation,
	o: ImageOptions,
): PaidOperation<PreparedImage, ImageAnswer> {
	const run: RunState = { partialHinted: false };
	return {
		prepare: (i) => prepareImageItem(ctx, i, operation, (text) => transport.redact(text) !== text),
		beforeSend: async (prepared) => hintModelNotes(ctx, prepared),
		pricedAs: (p) => ({ model: p.input.req.model, calls: p.input.req.n ?? 1 }),
		quoteFields: (p) => ({
			kind: 'image',
			model: p.input.req.model,
			prompt: p.input.req.prompt,
			n: p.input.req.n ?? 1,
			...expectedSize(p),
		}),
		send: async (p) => sendImage(transport, await loadSubmitInput(p)),
		taskIdOf: (answer) => (answer.out.kind === 'accepted' ? answer.out.taskId : undefined),
		finish: (p, answer, i) => finishImage(ctx, transport, o, run, p, answer, i),
	};
}
