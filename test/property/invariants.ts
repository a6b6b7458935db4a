/**
 * What must hold after every generated run, whatever the gateway did. Each check returns the violations it found
 * (empty: it holds), so one failing run names every invariant it broke.
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { FAILED_AT, ITEM_STATUSES } from '../../nodes/shared/items/vocabulary';
import { Redactor } from '../../nodes/shared/transport/redact';
import type { RunResult } from '../harness/workflow';
import type { HostileGateway, LoggedRequest } from './hostile-gateway';
import { ROUTE_CLASSES } from './behaviours';
import { contradictions } from './contract';
import { KEY } from './key';
import { findKey } from './key-oracle';
import { undecodable } from './oracle';
import { FORM_DEPTH } from './redaction-forms';
import { PAID, inputTaskId, type RunCase } from './runs';
import { oneWaitPerTask, taskWordsTrue } from './task-oracles';

/** A hang, not a speed test: the run's options bound every wait to a few seconds, GET back-off included. */
export const WALL_BOUND_MS = 20_000;
/** RSS growth during one run; images are held whole up to 100 MiB, the 5 MB streams are bounded well below. */
export const RSS_BOUND_MIB = 300;
/** The lead caps a stream's kept partial text at 1 MiB. */
export const PARTIAL_TEXT_BOUND = 1024 * 1024;

/** A chunk n8n received from a node while it streamed the execution (its chat or webhook stream). */
export interface Chunk {
	type: string;
	content?: unknown;
	metadata: { nodeName: string; itemIndex: number };
}

/** A file n8n's binary store wrote during the run (its path under the store, its text). */
export interface StoredFile {
	path: string;
	text: string;
}

export interface Measures {
	wallMs: number;
	rssGrowthMiB: number;
	logs: string[];
	/** the chunks n8n received, in order (runs where n8n streams) */
	chunks?: Chunk[];
	/** the binary store's metadata files written during the run */
	stored?: StoredFile[];
}

interface Out {
	output: number;
	index: number | undefined;
	item: INodeExecutionData;
}

function pairedIndex(item: INodeExecutionData): number | undefined {
	const p = item.pairedItem;
	if (typeof p === 'number') return p;
	if (Array.isArray(p)) return p.length === 1 ? p[0].item : undefined;
	return p?.item;
}

export function outputsOf(r: RunResult): Out[] {
	return r
		.outputs('Node')
		.flatMap((items, output) => items.map((item) => ({ output, index: pairedIndex(item), item })));
}

export const threw = (r: RunResult) =>
	r.run.status === 'error' || r.run.data.resultData.error !== undefined;

/** A task ID as the docs define one: 1 to 200 characters of A-Z a-z 0-9 _ - (docs/configuration.md). */
const TASK_ID_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

// ---- options drawn from the node's description (runs.ts DescribedOptions), read as the docs read them -------------

export const unset = (v: unknown) =>
	v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/**
 * docs/configuration.md, "Numbers and switches in options": what a switch reads as — `true`/`false`, `1`/`0`, that
 * text in any case and padding; undefined when left empty; anything else is refused.
 */
export function switchOf(v: unknown): boolean | undefined | 'refused' {
	if (unset(v)) return undefined;
	if (typeof v === 'boolean') return v;
	if (v === 1 || v === 0) return v === 1;
	if (typeof v === 'string' && /^(true|false|1|0)$/i.test(v.trim()))
		return /^(true|1)$/i.test(v.trim());
	return 'refused';
}

/** Whether a run's generated options set option `name` (a path under `options`), and what it hands item `i`. */
export function optionOn(c: RunCase, name: string, i: number): { set: boolean; value?: unknown } {
	const g = c.described?.given[`options.${name}`];
	if (!g) return { set: false };
	return { set: true, value: g.how === 'per item' ? g.values[i] : g.value };
}

/**
 * README *A quote before paying*: Quote Only is "switched on when added; from an expression `true`, `"true"` in any
 * case or `1` quote" (and, added but left empty, on: its default).
 */
const quotes = (c: RunCase, i: number): boolean => {
	const q = optionOn(c, 'quoteOnly', i);
	if (!q.set) return false;
	const read = switchOf(q.value);
	return read === true || read === undefined;
};

/**
 * The Chat node's Response Format in a run with generated options (README *Structured output*: version 1's own
 * option, version 1.1's *Response Format* collection, which "starts at JSON Schema"): 'json_schema', 'json_object',
 * or undefined (text, or not the Chat node).
 */
export function checkedFormat(c: RunCase): string | undefined {
	if (c.node.node !== 'chat' || !c.described) return undefined;
	const o = c.described.options;
	const format = o.format as { values?: { responseFormat?: unknown } } | undefined;
	const type = format ? (format.values?.responseFormat ?? 'json_schema') : o.responseFormat;
	return type === 'json_schema' || type === 'json_object' ? type : undefined;
}

/**
 * (1) POSTs per item that got a 2xx or an unknown outcome, across all tries: at most one. README *Structured output*:
 * a JSON Schema answer that does not validate "gets **one** repair request … never a second": with a JSON Schema, a
 * second POST is allowed after a first the gateway answered whole with a 2xx (an answer to check), never a third.
 */
export function onePaidPostPerItem(log: LoggedRequest[], c?: RunCase): string[] {
	const per = new Map<number, LoggedRequest[]>();
	for (const l of log)
		if (l.cls === 'paid' && l.mayHaveSpent && l.item !== undefined)
			per.set(l.item, [...(per.get(l.item) ?? []), l]);
	const repaired = (ls: LoggedRequest[]) =>
		!!c &&
		checkedFormat(c) === 'json_schema' &&
		ls.length === 2 &&
		ls[0].status >= 200 &&
		ls[0].status < 300 &&
		ls[0].delivery === 'whole';
	return [...per]
		.filter(([, ls]) => ls.length > 1 && !repaired(ls))
		.map(
			([item, ls]) =>
				`[posts-per-item] item ${item}: ${ls.length} POSTs that may have spent (${ls.map((l) => `${l.status}/${l.delivery}`).join(', ')})`,
		);
}

/** (2) a throw only before any spend; otherwise every input item exactly once, paired, with its task ID. */
export function everyItemOnce(c: RunCase, r: RunResult, log: LoggedRequest[]): string[] {
	const spent = log.filter((l) => l.cls === 'paid' && l.mayHaveSpent);
	if (threw(r)) {
		const why = r.run.data.resultData.error?.message ?? r.run.status;
		if (PAID.has(c.node.node))
			return spent.length
				? [
						`[threw-after-spend] the node threw after ${spent.length} POST(s) that may have spent: ${why}`,
					]
				: [];
		if (c.node.node === 'download' && c.onError === 'stopWorkflow') return [];
		// Stop Workflow and an input task ID the rule refuses (a generated form of the key): refused before any query
		const refused = Array.from({ length: c.items }, (_, i) => inputTaskId(c, i)).some(
			(id) => id !== undefined && !TASK_ID_PATTERN.test(id),
		);
		if (refused && c.onError === 'stopWorkflow')
			return log.some((l) => l.cls === 'query')
				? [`[threw-after-query] the node refused an item after querying: ${why}`]
				: [];
		return [`[threw] the node threw instead of giving each item its output: ${why}`];
	}
	const outs = outputsOf(r);
	const problems: string[] = [];
	const seen = outs.map((o) => o.index).sort((a, b) => (a ?? -1) - (b ?? -1));
	const expected = Array.from({ length: c.items }, (_, i) => i);
	if (seen.join() !== expected.join())
		problems.push(
			`[items-out] items out (paired indexes) ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`,
		);
	for (const o of outs) {
		if (o.index === undefined) continue;
		const text = JSON.stringify(o.item.json);
		const given =
			log.find((l) => l.item === o.index && l.givenTaskId)?.givenTaskId ?? inputTaskId(c, o.index);
		// a task ID that is a form of the key is redacted like any other: the key wins
		if (given && c.node.node !== 'download' && !text.includes(given) && !holdsKey(given))
			problems.push(
				`[task-id-lost] item ${o.index} lost its task ID ${given}: ${text.slice(0, 300)}`,
			);
	}
	return problems;
}

/**
 * (2b) an item the script left alone (every request of it gets the plausible answer) is not harmed by what happened
 * to the others: it comes out on the first output, not failed, not uncertain.
 */
export function untouchedItemsUnharmed(
	c: RunCase,
	r: RunResult,
	log: LoggedRequest[] = [],
): string[] {
	if (threw(r)) return [];
	const sent = (i: number) => log.some((l) => l.cls === 'paid' && l.item === i);
	/**
	 * With options drawn from the description, an item may be refused by them (README *Output items*: `validation`,
	 * "the item's parameters, expressions, binaries or rules: nothing was sent"; `budget`, "Max Expected Spend refused
	 * the batch before its first paid request: nothing was sent") — on any output, and only if nothing of it was sent;
	 * and a Chat item asked for JSON or a JSON Schema may fail at `answer` (README: the answer is checked; the
	 * script's plausible answer is text). On n8n's error output the item's words are inside `error` (docs/behaviour.md:
	 * `{ "error": { "message", "description", "http_code", "task_id", "submitted", "failed_at", … } }`).
	 */
	const refusedByOptions = (i: number, item: Record<string, unknown>) => {
		const j =
			item.status === undefined && item.error && typeof item.error === 'object'
				? (item.error as Record<string, unknown>)
				: item;
		return (
			!!c.described &&
			(j.status === 'failed' || j.status === undefined) &&
			(((j.failed_at === 'validation' || j.failed_at === 'budget') &&
				j.submitted === false &&
				!sent(i)) ||
				(j.failed_at === 'answer' && checkedFormat(c) !== undefined))
		);
	};
	const touched = (i: number) =>
		ROUTE_CLASSES.some((cls) => cls !== 'meta' && c.script[cls][i].length > 0);
	const problems: string[] = [];
	// an input task ID the rule refuses (a generated form of the key with `/`, `+` or `=`): refused before any query
	const refusedId = (i: number) => {
		const id = inputTaskId(c, i);
		return id !== undefined && !TASK_ID_PATTERN.test(id);
	};
	for (const o of outputsOf(r)) {
		if (o.index === undefined || o.index >= c.items || touched(o.index)) continue;
		const j = o.item.json;
		if (refusedId(o.index)) {
			if (j.status !== 'failed' || j.failed_at !== 'validation')
				problems.push(
					`[refused-id-not-refused] item ${o.index}'s task ID breaks the rule, yet it did not come out refused: ${JSON.stringify(j).slice(0, 300)}`,
				);
			continue;
		}
		if (refusedByOptions(o.index, j)) continue;
		if (
			o.output !== 0 ||
			j.status === 'failed' ||
			j.status === 'uncertain' ||
			j.error !== undefined
		)
			problems.push(
				`[untouched-item-harmed] item ${o.index} got only plausible answers but came out on output ${o.output}: ${JSON.stringify(j).slice(0, 300)}`,
			);
	}
	return problems;
}

/** The oracle's depth: every sequence of up to FORM_DEPTH + 1 decoders (the generated layers and the JSON text around them). */
const ORACLE_DEPTH = FORM_DEPTH + 1;
/** Whether a text holds a form of the runs' key (the user's task ID may be one). */
const holdsKey = (s: string) => !!findKey(s, KEY, ORACLE_DEPTH);

/**
 * (3) the key, raw, URL-encoded, base64 (or any form the redactor knows), nowhere in the run, its errors, hints or
 * logs; never off its origin. (3b) judged by the independent oracle (key-oracle.ts: its own decoders, every sequence
 * of up to FORM_DEPTH + 1 of them): no form of the key in n8n's run data as stored (JSON.stringify(run): items, hints,
 * node errors as their toJSON gives them), in every node error whole (message, description, stack, messages,
 * context, errorResponse, cause: own properties, enumerable or not), in the hints, in the binary metadata of every
 * item, in the metadata files n8n's binary store wrote, in the chunks n8n's chat received (each chunk alone, each
 * item's chunks joined in order, all chunks joined in order) and in the logs.
 */
export function keyNowhere(gw: HostileGateway, r: RunResult, m: Measures, c?: RunCase): string[] {
	const forms = {
		raw: gw.key,
		'url-encoded': encodeURIComponent(gw.key),
		base64: Buffer.from(gw.key).toString('base64'),
	};
	const redactor = new Redactor([gw.key]);
	const err = r.run.data.resultData.error as (Error & { description?: string }) | undefined;
	const places: Record<string, string> = {
		'run data': storedRun(r),
		error: err ? `${err.message} ${err.description ?? ''} ${err.stack ?? ''}` : '',
		logs: m.logs.join('\n'),
	};
	const problems: string[] = [];
	for (const [place, text] of Object.entries(places)) {
		for (const [form, f] of Object.entries(forms))
			if (text.includes(f))
				problems.push(`[key-${form}] the key (${form}) is in the ${place}: …${around(text, f)}…`);
		if (!problems.length && redactor.contains(text))
			problems.push(`[key-encoded] an encoded form of the key is in the ${place}`);
	}
	problems.push(...oracleFindings(gw.key, r, m));
	// the user's own task IDs (a form of the key among them) go to the key's own origin: not a leak
	const ownIds = c
		? Array.from({ length: c.items }, (_, i) => inputTaskId(c, i)).filter(
				(id): id is string => !!id && holdsKey(id),
			)
		: [];
	for (const l of gw.log) {
		if (l.server !== 'gateway' && l.authorization?.includes(gw.key))
			problems.push(`[key-off-origin] the key went to the ${l.server} host: ${l.method} ${l.path}`);
		if (l.server === 'gateway' && ownIds.some((id) => l.path.includes(id))) continue;
		const url = safeDecode(l.path);
		const held = Object.entries(forms)
			.filter(([, f]) => l.path.includes(f) || url.includes(f))
			.map(([form]) => form);
		// a base64 form is tagged key-base64 with the other base64 findings, so FUZZ_IGNORE can look past all of them at once
		const tag = held.some((form) => form !== 'base64') ? 'key-url-followed' : 'key-base64';
		if (held.length)
			problems.push(
				`[${tag}] a request went to an address holding the key (${held.join(', ')}; a redirect was followed): ${l.server} ${l.method} ${l.path.slice(0, 120)}`,
			);
	}
	return problems;
}

/**
 * n8n's run data as it is stored (JSON.stringify: errors as their toJSON gives them), without the input items the
 * harness handed the node (left on the execution stack when the node threw): they are the user's, not the package's.
 */
function storedRun(r: RunResult): string {
	const stack = r.run.data.executionData?.nodeExecutionStack;
	return JSON.stringify(r.run, (k, v: unknown) =>
		k === 'nodeExecutionStack' && v === stack ? '(the harness input)' : v,
	);
}

/** Every text of a value with its path: strings, object keys, and an error's own properties (enumerable or not). */
export function textsOf(
	v: unknown,
	path = '',
	out: Array<[string, string]> = [],
	seen = new WeakSet<object>(),
	depth = 0,
): Array<[string, string]> {
	if (typeof v === 'string') out.push([path, v]);
	else if (typeof v === 'number' || typeof v === 'bigint') out.push([path, String(v)]);
	if (
		!v ||
		typeof v !== 'object' ||
		depth > 40 ||
		seen.has(v) ||
		Buffer.isBuffer(v) ||
		ArrayBuffer.isView(v)
	)
		return out;
	seen.add(v);
	const keys = new Set(Object.keys(v));
	if (v instanceof Error)
		for (const k of [
			...Object.getOwnPropertyNames(v),
			'message',
			'stack',
			'description',
			'messages',
			'context',
			'errorResponse',
			'cause',
		])
			keys.add(k);
	for (const k of keys) {
		out.push([`${path}{key}`, k]);
		let x: unknown;
		try {
			x = (v as Record<string, unknown>)[k];
		} catch {
			continue;
		}
		textsOf(x, `${path}.${k}`, out, seen, depth + 1);
	}
	return out;
}

/** Where in the texts a form of the key is (the first few), or nothing. */
function leaksIn(texts: Array<[string, string]>, key: string): string[] {
	const found: string[] = [];
	for (const [path, text] of texts) {
		const how = findKey(text, key, ORACLE_DEPTH);
		if (how)
			found.push(
				`${path || '(whole)'} (${how}): ${JSON.stringify(text.length > 240 ? `${text.slice(0, 240)}…` : text)}`,
			);
		if (found.length >= 3) break;
	}
	return found;
}

/** (3b) alone: where the independent oracle finds a form of `key` in what n8n keeps of a run (see keyNowhere). */
export function oracleFindings(
	key: string,
	r: RunResult,
	m: Pick<Measures, 'logs' | 'chunks' | 'stored'>,
): string[] {
	const problems: string[] = [];
	const report = (tag: string, what: string, texts: Array<[string, string]>) => {
		const found = leaksIn(texts, key);
		if (found.length)
			problems.push(`[${tag}] the oracle finds the key in ${what}: ${found.join(' | ')}`);
	};
	// n8n's run data as it is stored (errors as their toJSON gives them); where, if anywhere: the texts of it
	const stored = storedRun(r);
	if (findKey(stored, key, ORACLE_DEPTH)) {
		const where = leaksIn(textsOf(JSON.parse(stored) as unknown), key);
		problems.push(
			`[key-in-run-data] the oracle finds the key in the run data as stored${where.length ? `: ${where.join(' | ')}` : ' (across its texts)'}`,
		);
	}
	const runData = r.run.data.resultData.runData;
	const errors: Array<[string, unknown]> = [['resultData.error', r.run.data.resultData.error]];
	const hints: Array<[string, string]> = [];
	const binaries: Array<[string, string]> = [];
	for (const [node, tasks] of Object.entries(runData)) {
		for (const [k, t] of tasks.entries()) {
			errors.push([`${node}[${k}].error`, t.error]);
			for (const [h, hint] of (t.hints ?? []).entries())
				hints.push([`${node}[${k}].hints[${h}]`, JSON.stringify(hint)]);
			for (const [o, items] of (t.data?.main ?? []).entries()) {
				for (const [i, item] of (items ?? []).entries()) {
					if (item.error) errors.push([`${node}[${k}].main[${o}][${i}].error`, item.error]);
					for (const [prop, b] of Object.entries(item.binary ?? {}))
						binaries.push([
							`${node}[${k}].main[${o}][${i}].binary.${prop}`,
							`${prop} ${JSON.stringify(b)}`,
						]);
				}
			}
		}
	}
	for (const [where, e] of errors)
		if (e) report('key-in-node-error', `the node error ${where}`, textsOf(e, where));
	report('key-in-hint', 'an execution hint', hints);
	report('key-in-binary-meta', "an item's binary metadata", binaries);
	report(
		'key-in-binary-store',
		"a metadata file of n8n's binary store",
		(m.stored ?? []).map((f) => [f.path, `${f.path} ${f.text}`]),
	);
	report(
		'key-in-logs',
		'the logs',
		m.logs.map((l, i) => [`log ${i}`, l]),
	);
	// the chat: each chunk alone, each item's chunks joined in order, every chunk joined in order
	const chunks = m.chunks ?? [];
	const text = (ch: Chunk) =>
		typeof ch.content === 'string'
			? ch.content
			: ch.content === undefined
				? ''
				: JSON.stringify(ch.content);
	const perItem = new Map<string, string>();
	for (const ch of chunks) {
		const k = `${ch.metadata?.nodeName} item ${ch.metadata?.itemIndex}`;
		perItem.set(k, (perItem.get(k) ?? '') + text(ch));
	}
	report('key-in-chat', "a chunk n8n's chat received", [
		...chunks.map((ch, i): [string, string] => [
			`chunk ${i} (${ch.type}, ${ch.metadata?.nodeName} item ${ch.metadata?.itemIndex})`,
			`${ch.type} ${text(ch)}`,
		]),
		...[...perItem].map(([k, t]): [string, string] => [`the chunks of ${k}, joined`, t]),
		['every chunk, joined in order', chunks.map(text).join('')],
	]);
	return problems;
}

/** (4) nothing counts as done that the oracle cannot decode; (4b) a stream's kept text stays bounded. */
export async function nothingFalselyCompleted(c: RunCase, r: RunResult): Promise<string[]> {
	const problems: string[] = [];
	for (const o of outputsOf(r)) {
		if (o.output !== 0) continue;
		const j = o.item.json;
		if (j.status === 'failed' || j.status === 'uncertain' || j.error !== undefined) continue;
		for (const [prop, bin] of Object.entries(o.item.binary ?? {})) {
			const bytes = await r.binaryBuffer(o.item, prop);
			const why = await undecodable(bytes, bin.mimeType);
			if (why)
				problems.push(
					`[undecodable-completed] item ${o.index} is ${String(j.status ?? 'out')} with an undecodable ${bin.mimeType} (${bytes.length} bytes) in "${prop}": ${why}`,
				);
		}
		const needsFile =
			(c.node.node === 'image' &&
				(c.node.mode === 'sync' ||
					c.node.mode === 'native' ||
					(o.index !== undefined ? waitsForResult(c, o.index) : c.node.wait)) &&
				j.status === 'completed') ||
			c.node.node === 'wait';
		if (needsFile && !Object.keys(o.item.binary ?? {}).length)
			problems.push(
				`[completed-without-file] item ${o.index} is completed without a file: ${JSON.stringify(j).slice(0, 200)}`,
			);
	}
	for (const o of outputsOf(r)) {
		const partial = (o.item.json.partial_text ??
			(o.item.json.error as { partial_text?: unknown } | undefined)?.partial_text) as unknown;
		if (typeof partial === 'string' && partial.length > PARTIAL_TEXT_BOUND)
			problems.push(
				`[partial-text] item ${o.index} keeps ${partial.length} characters of partial_text (bound ${PARTIAL_TEXT_BOUND})`,
			);
	}
	return problems;
}

/** Image Submit's *Wait for Result* for item `i`: the hand-built case's, or the generated option read as a switch. */
function waitsForResult(c: RunCase, i: number): boolean {
	const w = optionOn(c, 'waitForResult', i);
	return w.set ? switchOf(w.value) === true : c.node.node === 'image' && c.node.wait;
}

/**
 * The statuses each output of a node may carry (Task Wait: Completed, Failed, Still Running; the others: one output).
 * README: Quote Only is on "each paid node", its items `quoted`.
 */
const STATUS_BY_OUTPUT: Record<RunCase['node']['node'], string[][]> = {
	image: [['submitted', 'completed', 'failed', 'uncertain', 'running', 'quoted']],
	video: [['submitted', 'failed', 'uncertain', 'quoted']],
	chat: [['completed', 'failed', 'uncertain', 'quoted']],
	responses: [['completed', 'failed', 'uncertain', 'quoted']],
	wait: [['completed'], ['failed', 'uncertain'], ['running']],
	// under Continue a failed download comes out on the node's one output, as every node's failed items do
	download: [['completed', 'failed']],
};

/**
 * (6) every item speaks the output contract: `status` is one of ours and fits the output it is on, `failed_at` one of
 * ours, the gateway's word only ever in `gateway_status`, no field its state contradicts (contract.ts); the only items without `status` are n8n's error items
 * (Continue: `error` text; error output: an `error` object).
 */
export function itemsSpeakTheContract(c: RunCase, r: RunResult): string[] {
	if (threw(r)) return [];
	const problems: string[] = [];
	const allowed = STATUS_BY_OUTPUT[c.node.node];
	for (const o of outputsOf(r)) {
		const j = o.item.json;
		// n8n's own error items (the error output's `{error: {…}}`) carry their facts inside `error`
		const errorItem = j.status === undefined && j.error !== undefined;
		if (errorItem || o.output >= allowed.length) continue;
		const status = String(j.status);
		if (!(status in ITEM_STATUSES))
			problems.push(
				`[contract-status] item ${o.index} has status ${JSON.stringify(j.status)}, not one of ${Object.keys(ITEM_STATUSES).join(', ')}`,
			);
		else if (!allowed[o.output].includes(status))
			problems.push(
				`[contract-output] item ${o.index} is "${status}" on output ${o.output}, which carries ${allowed[o.output].join(', ')}`,
			);
		if (status === 'failed' && !(String(j.failed_at) in FAILED_AT))
			problems.push(
				`[contract-failed-at] failed item ${o.index} has failed_at ${JSON.stringify(j.failed_at)}`,
			);
		// (6b) and carries no field its state contradicts (the docs' contract, contract.ts)
		for (const x of contradictions(o.item))
			problems.push(
				`[contract-contradiction] item ${o.index} (${status}): ${x} — ${JSON.stringify(j).slice(0, 300)}`,
			);
	}
	return problems;
}

/** Nodes whose items name a task: their every item carries `task_id` (null when none was given). */
const TASK_NODES = (c: RunCase) =>
	c.node.node === 'video' ||
	c.node.node === 'wait' ||
	(c.node.node === 'image' && (c.node.mode === 'async' || c.node.mode === 'edit')) ||
	(c.node.node === 'download' && (c.node.source === 'imageTask' || c.node.source === 'videoTask'));

/**
 * (7) under Continue (regular output) every item, on every output, says where it stands: `status` (one of ours),
 * `failed_at` when it failed, and, for nodes whose items name a task, `task_id` (the ID the item was given, when it
 * was given one that is not a form of the key).
 */
export function continueItemsSayWhere(c: RunCase, r: RunResult, log: LoggedRequest[]): string[] {
	if (c.onError !== 'continueRegularOutput' || threw(r)) return [];
	const problems: string[] = [];
	for (const o of outputsOf(r)) {
		const j = o.item.json;
		const show = JSON.stringify(j).slice(0, 300);
		if (typeof j.status !== 'string' || !(j.status in ITEM_STATUSES))
			problems.push(
				`[continue-status] item ${o.index} on output ${o.output} has no status of ours: ${show}`,
			);
		if (j.status === 'failed' && !(String(j.failed_at) in FAILED_AT))
			problems.push(
				`[continue-failed-at] failed item ${o.index} does not say where it failed: ${show}`,
			);
		if (!TASK_NODES(c) || o.index === undefined) continue;
		if (!('task_id' in j)) {
			problems.push(`[continue-task-id] item ${o.index} has no task_id: ${show}`);
			continue;
		}
		const given =
			c.node.node === 'download'
				? inputTaskId(c, o.index)
				: (log.find((l) => l.item === o.index && l.givenTaskId)?.givenTaskId ??
					inputTaskId(c, o.index));
		if (
			given &&
			!holdsKey(given) &&
			j.task_id !== given &&
			!(c.node.node === 'wait' && j.status === 'uncertain')
		)
			problems.push(
				`[continue-task-id] item ${o.index} says task_id ${JSON.stringify(j.task_id)}, given ${given}: ${show}`,
			);
	}
	return problems;
}

/**
 * (10) README *A quote before paying*: Quote Only "checks every item and outputs it with `status: "quoted"` and its
 * `cost`, sending nothing". A quoted item had no paid request, and only a run that gave Quote Only quotes; an item
 * whose Quote Only reads on had no paid request, whatever it came out as.
 */
export function quotesSendNothing(c: RunCase, r: RunResult, log: LoggedRequest[]): string[] {
	if (!PAID.has(c.node.node)) return [];
	const problems: string[] = [];
	const sent = (i: number) => log.filter((l) => l.cls === 'paid' && l.item === i).length;
	for (const o of outputsOf(r)) {
		if (o.index === undefined || o.item.json.status !== 'quoted') continue;
		if (!optionOn(c, 'quoteOnly', o.index).set)
			problems.push(`[quoted-unasked] item ${o.index} came out quoted without Quote Only`);
		if (sent(o.index))
			problems.push(
				`[quoted-sent] item ${o.index} came out quoted, yet ${sent(o.index)} paid request(s) of it went`,
			);
	}
	for (let i = 0; i < c.items; i++)
		if (quotes(c, i) && sent(i))
			problems.push(
				`[sent-despite-quote] item ${i}'s Quote Only reads on (${JSON.stringify(optionOn(c, 'quoteOnly', i).value)}), yet ${sent(i)} paid request(s) of it went`,
			);
	return problems;
}

/** (5) wall time and memory. */
export function withinBounds(m: Measures): string[] {
	const problems: string[] = [];
	if (m.wallMs > WALL_BOUND_MS)
		problems.push(`[wall-time] the run took ${m.wallMs} ms (bound ${WALL_BOUND_MS})`);
	if (m.rssGrowthMiB > RSS_BOUND_MIB)
		problems.push(`[memory] RSS grew ${m.rssGrowthMiB} MiB (bound ${RSS_BOUND_MIB})`);
	return problems;
}

/** Violation classes (the tag in brackets) to look past, e.g. FUZZ_IGNORE=key-base64,posts-per-item while a known class is being fixed. */
const IGNORED = new Set((process.env.FUZZ_IGNORE ?? '').split(',').filter(Boolean));
/** Only findings whose text matches (FUZZ_GREP='the gateway failed'): one kind within a class, on code that breaks others first. */
const GREP = process.env.FUZZ_GREP ? new RegExp(process.env.FUZZ_GREP) : undefined;
export const tagOf = (problem: string) => /^\[([a-z0-9-]+)\]/.exec(problem)?.[1] ?? 'other';

export async function violations(
	c: RunCase,
	gw: HostileGateway,
	r: RunResult,
	m: Measures,
): Promise<string[]> {
	const all = [
		...onePaidPostPerItem(gw.log, c),
		...everyItemOnce(c, r, gw.log),
		...untouchedItemsUnharmed(c, r, gw.log),
		...quotesSendNothing(c, r, gw.log),
		...keyNowhere(gw, r, m, c),
		...continueItemsSayWhere(c, r, gw.log),
		...(await nothingFalselyCompleted(c, r)),
		...itemsSpeakTheContract(c, r),
		...withinBounds(m),
		...taskWordsTrue(c, outputsOf(r), threw(r)),
		...oneWaitPerTask(c, gw.log),
	];
	return all.filter((p) => !IGNORED.has(tagOf(p)) && (!GREP || GREP.test(p)));
}

function around(text: string, f: string): string {
	const i = text.indexOf(f);
	return text.slice(Math.max(0, i - 80), i + f.length + 40);
}

function safeDecode(s: string): string {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
}
