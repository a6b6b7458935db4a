/**
 * Judges one demo workflow's run (n8n's run data + the files it wrote) step by step, and prints the table.
 * A step is ok only when it did what it should: the expected items on its first output, none failed, none
 * uncertain, and every written file is the one the node reported (same bytes, type and pixel size).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { imageSize } from 'image-size';
import { nodeOutput, type ExecuteResult } from '../lib/n8n/cli';
import { nodeError, runCount } from './n8n-more';
import type { DemoWorkflow } from './workflows';

export interface SummaryFile {
	/** relative to the project root */
	path: string;
	mime: string;
	bytes: number;
	width?: number;
	height?: number;
}

export interface SummaryEntry {
	workflow: string;
	step: string;
	ok: boolean;
	/** the task ID, or several separated by commas when the step handled several items */
	task_id?: string;
	error?: string;
	/** why the workflow did not run here (it needs a newer n8n): the entry is its only one, and ok */
	skipped?: string;
	/** something n8n did that is not the workflow's outcome, e.g. its process crashing after a complete, printed run */
	warning?: string;
	files: SummaryFile[];
}

type Item = { json: Record<string, unknown>; binary?: Record<string, Record<string, unknown>> };

/** MIME type from the bytes (never from the file name), and the real pixel size of images. */
export function sniffFile(buf: Buffer): { mime: string; width?: number; height?: number } {
	if (buf.length >= 8 && buf.subarray(4, 8).toString('latin1') === 'ftyp')
		return { mime: 'video/mp4' };
	try {
		const r = imageSize(buf);
		if (r.type && r.width && r.height)
			return {
				mime:
					r.type === 'jpg' ? 'image/jpeg' : r.type === 'svg' ? 'image/svg+xml' : `image/${r.type}`,
				width: r.width,
				height: r.height,
			};
	} catch {
		/* not an image */
	}
	const text = buf.subarray(0, 4096).toString('utf8');
	if (text.includes('\u0000') || text.includes('\ufffd'))
		return { mime: 'application/octet-stream' };
	const lines = text.split(/\r?\n/).filter((l) => l.length);
	if (
		lines.length >= 2 &&
		lines
			.slice(0, 5)
			.every((l) => l.split(',').length === lines[0].split(',').length && l.includes(','))
	)
		return { mime: 'text/csv' };
	return { mime: 'text/plain' };
}

export function filesIn(dir: string, root: string): SummaryFile[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((f) => statSync(join(dir, f)).isFile())
		.sort()
		.map((f) => {
			const p = join(dir, f);
			return { path: relative(root, p), bytes: statSync(p).size, ...sniffFile(readFileSync(p)) };
		});
}

/** What the table shows for a step that wrote no file (kept out of summary.json). */
const notes = new WeakMap<SummaryEntry, string>();

/** The entry, with what the table shows for it. */
export function withNote(entry: SummaryEntry, note: string): SummaryEntry {
	notes.set(entry, note);
	return entry;
}

const short = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function taskIds(items: Item[]): string | undefined {
	const ids = [
		...new Set(
			items
				.map((i) => i.json.task_id)
				.filter((t): t is string => typeof t === 'string' && t.length > 0),
		),
	];
	return ids.length ? ids.join(',') : undefined;
}

/** Why an output item is not a success: uncertain, an error, or `status: "failed"` (the first failed item of a spent batch has no `error`). */
export function itemProblem(i: Item): string | undefined {
	const j = i.json;
	if (j.submission_uncertain === true)
		return `submission uncertain${j.reason ? `: ${String(j.reason)}` : ''}${j.task_id ? ` (task ${String(j.task_id)})` : ''}`;
	if (j.error) return typeof j.error === 'string' ? j.error : JSON.stringify(j.error);
	if (j.status === 'failed')
		return `failed${j.failed_at ? ` at ${String(j.failed_at)}` : ''}: ${String(j.error_message ?? 'no message')}`;
	return undefined;
}

/**
 * n8n's process ended by a signal (seen: SIGSEGV, on a loaded machine) after it finished the run and printed it whole:
 * the run's outcome is what it printed, which the checks judge; the summary says what happened to the process.
 */
export function crashedAfterRun(res: ExecuteResult): string | undefined {
	const d = res.data as { finished?: boolean; status?: string } | undefined;
	if (res.code !== null || !res.signal || !d || d.finished !== true || d.status !== 'success')
		return undefined;
	return `n8n execute was ended by ${res.signal} after it had finished the run and printed it`;
}

/** The whole run's error: n8n's own error, or the exit code and the end of stderr when stdout held no run data. */
export function runErrorOf(res: ExecuteResult): string | undefined {
	const e = res.data?.data?.resultData?.error?.message;
	if (e) return e;
	if (crashedAfterRun(res)) return undefined;
	if (res.code !== 0)
		return `n8n execute ${res.code === null ? `was ended by ${res.signal ?? 'a signal'}` : `exited ${res.code}`}: ${res.stderr.trim().split('\n').slice(-3).join(' ')}`;
	if (!res.data) return 'n8n execute printed no run data';
	return undefined;
}

/** Pixel size and bytes of the files an item of our nodes reports in `files[]`. */
function reportedFiles(
	i: Item,
): Array<{ bytes?: number; width?: number; height?: number; mimeType?: string }> {
	const f = i.json.files;
	return Array.isArray(f)
		? (f as Array<Record<string, unknown>>).map((m) => ({
				bytes: m.bytes as number,
				width: m.width as number,
				height: m.height as number,
				mimeType: m.mimeType as string,
			}))
		: [];
}

/** The one entry of a workflow this n8n cannot run. */
export function skippedEntry(w: DemoWorkflow, n8nVersion: string): SummaryEntry {
	return {
		workflow: w.folder,
		step: 'not run',
		ok: true,
		skipped: `${w.needs?.why ?? 'not for this n8n'}; this is n8n ${n8nVersion}`,
		files: [],
	};
}

/** What an AI sub-node handed its root node in each run (one run per model turn), as items. */
function subNodeTurns(res: ExecuteResult, node: string): Item[] {
	const runs = (res.data?.data?.resultData?.runData?.[node] ?? []) as Array<{
		data?: Record<string, Item[][] | undefined>;
	}>;
	return runs.flatMap((r) =>
		Object.entries(r.data ?? {}).flatMap(([type, outs]) =>
			type.startsWith('ai_') ? (outs?.[0] ?? []).slice(0, 1) : [],
		),
	);
}

/** Why an item of a step that Max Expected Spend must refuse is not that refusal. */
export function refusalProblem(i: Item): string | undefined {
	const j = i.json;
	if (j.status === 'failed' && j.failed_at === 'budget' && j.submitted === false && !j.task_id)
		return undefined;
	return `expected a refusal by Max Expected Spend before any request (failed_at budget, submitted false), got ${short(JSON.stringify({ status: j.status, failed_at: j.failed_at, submitted: j.submitted, task_id: j.task_id, error: j.error_message ?? j.error }), 300)}`;
}

/** Why an AI Agent's item that its Chat Model's cap must stop is not that stop. */
export function capStopProblem(i: Item): string | undefined {
	const e = i.json.error;
	if (
		typeof e === 'string' &&
		/Max Expected Spend .*refused this model turn before any paid request/.test(e)
	)
		return undefined;
	return `expected the agent stopped by its Chat Model's Max Expected Spend (a model turn refused before any paid request), got ${short(JSON.stringify(i.json), 300)}`;
}

/** The execution's custom data must hold what the node's items cost: gengateway_spent = the sum of their `cost.quota`. */
function spendEntry(
	w: DemoWorkflow,
	res: ExecuteResult,
	customData: Record<string, string> | undefined,
): SummaryEntry {
	const node = w.spend!.node;
	const costs = (nodeOutput(res, node, 0) as Item[]).map(
		(i) => i.json.cost as { status?: string; quota?: number } | undefined,
	);
	const expected = costs.reduce(
		(n, c) => n + (c?.status === 'expected' || c?.status === 'settled' ? Number(c.quota) : 0),
		0,
	);
	const problems: string[] = [];
	if (!costs.length || costs.some((c) => !c || typeof c.quota !== 'number' || c.quota <= 0))
		problems.push(
			`every item of ${node} must carry a cost with a figure, got ${short(JSON.stringify(costs), 300)}`,
		);
	if (!customData) problems.push("the execution's custom data was not read");
	else if (customData.gengateway_spent !== String(expected))
		problems.push(
			`custom data gengateway_spent is ${customData.gengateway_spent ?? 'missing'}, expected ${expected} (the sum of ${node}'s costs)`,
		);
	const error = problems.length ? problems.join('; ') : undefined;
	const entry: SummaryEntry = {
		workflow: w.folder,
		step: 'Custom data',
		ok: !error,
		...(error ? { error } : {}),
		files: [],
	};
	notes.set(
		entry,
		`gengateway_spent ${customData?.gengateway_spent ?? '?'} (${customData?.gengateway_spent_text ?? '?'})`,
	);
	return entry;
}

export function checkWorkflow(
	w: DemoWorkflow,
	res: ExecuteResult,
	outDir: string,
	root: string,
	opts: {
		checkLoop: boolean;
		customData?: Record<string, string>;
		/** the gateway is not known to give what the spec does not define (a workflow's `beyondSpec`): see skipBeyondSpec */
		beyondSpecUnknown?: boolean;
	},
): SummaryEntry[] {
	const entries: SummaryEntry[] = [];
	const runError = runErrorOf(res);
	for (const step of w.steps) {
		const ok0 = step.turns
			? subNodeTurns(res, step.node)
			: (nodeOutput(res, step.node, 0) as Item[]);
		const others = [1, 2, 3].flatMap((o) => nodeOutput(res, step.node, o) as Item[]);
		const problems: string[] = [];
		const err = nodeError(res, step.node);
		if (err) problems.push(err);
		for (const i of [...ok0, ...others]) {
			const p =
				step.refused === 'cap'
					? capStopProblem(i)
					: step.refused
						? refusalProblem(i)
						: itemProblem(i);
			if (p && !problems.includes(p)) problems.push(p);
		}
		const counted = step.turns ? 'model turn(s)' : 'item(s) on its first output';
		if (step.atLeast ? ok0.length < step.items : ok0.length !== step.items)
			problems.push(
				`expected ${step.atLeast ? 'at least ' : ''}${step.items} ${counted}, got ${ok0.length}`,
			);
		if (others.length && (step.refused || !others.some(itemProblem)))
			problems.push(`${others.length} item(s) on the Failed / Still Running outputs`);
		if (step.streamed && ok0.some((i) => i.json.streamed !== true))
			problems.push('the answer did not come as a stream');
		if (step.answer) {
			const field = w.write.from === step.node ? (w.write.field ?? 'text') : 'text';
			const said = ok0.map((i) => i.json[field]).find((x): x is string => typeof x === 'string');
			if (said === undefined || !step.answer.test(said))
				problems.push(
					`the answer does not say ${step.answer.source.replace(/\\b/g, '')}: ${said === undefined ? 'no answer' : `"${short(said.replace(/\s+/g, ' '), 200)}"`}`,
				);
		}
		if (step.answers) {
			const field = w.write.from === step.node ? (w.write.field ?? 'text') : 'text';
			ok0.forEach((item, k) => {
				const said = item.json[field];
				const mine = step.answers![k];
				const other = step.answers!.findIndex(
					(re, j) => j !== k && typeof said === 'string' && re.test(said),
				);
				if (typeof said !== 'string' || !mine?.test(said) || other >= 0)
					problems.push(
						`item ${k + 1}'s answer is not its own question's (${mine?.source.replace(/\\b/g, '') ?? 'none'}): ${typeof said === 'string' ? `"${short(said.replace(/\s+/g, ' '), 120)}"` : 'no answer'}`,
					);
			});
		}
		if (w.loop?.node === step.node && opts.checkLoop) {
			const rounds = runCount(res, step.node);
			const waits = runCount(res, w.loop.wait);
			if (rounds < 2 || waits < 1)
				problems.push(
					`expected the loop through the ${w.loop.wait} node: ${step.node} ran ${rounds} time(s), ${w.loop.wait} ${waits} time(s)`,
				);
		}
		const tid = taskIds([...ok0, ...others]);
		const error = problems.length
			? problems.join('; ')
			: ok0.length === 0 && runError
				? runError
				: undefined;
		const entry: SummaryEntry = {
			workflow: w.folder,
			step: step.node,
			ok: !error,
			...(tid ? { task_id: tid } : {}),
			...(error ? { error: short(error, 1000) } : {}),
			files: [],
		};
		const answer = ok0
			.map((i) => i.json[w.write.from === step.node ? (w.write.field ?? 'text') : 'text'])
			.find((x): x is string => typeof x === 'string');
		const refusal =
			step.refused && !error
				? ok0
						.map((i) => i.json.error_message ?? i.json.error)
						.find((x): x is string => typeof x === 'string')
				: undefined;
		notes.set(
			entry,
			refusal
				? `refused as planned: ${short(refusal.replace(/^.*?before any paid request: /, ''), 130)}`
				: tid
					? tid.split(',').join(', ')
					: answer
						? `"${short(answer.replace(/\s+/g, ' '), 70)}"`
						: `${ok0.length} ${step.turns ? 'model turn(s)' : 'item(s)'}`,
		);
		entries.push(entry);
	}

	if (w.spend) entries.push(spendEntry(w, res, opts.customData));

	const wr = w.write;
	const files = filesIn(join(outDir, w.folder), root);
	const source = nodeOutput(res, wr.from, 0) as Item[];
	const problems: string[] = [];
	const err = nodeError(res, wr.node);
	if (err) problems.push(`${wr.node}: ${err}`);
	if (files.length !== wr.files)
		problems.push(`expected ${wr.files} file(s), found ${files.length}`);
	const empty = files.filter((f) => f.bytes === 0);
	if (empty.length) problems.push(`empty file(s): ${empty.map((f) => f.path).join(', ')}`);
	if (wr.kind === 'image' || wr.kind === 'video') {
		const wanted = wr.kind === 'image' ? /^image\// : /^video\/mp4$/;
		for (const f of files)
			if (!wanted.test(f.mime))
				problems.push(
					`${f.path} is ${f.mime}, not ${wr.kind === 'image' ? 'an image' : 'an MP4 video'}`,
				);
		const unmatched = [...files];
		for (const item of source) {
			for (const m of reportedFiles(item)) {
				const k = unmatched.findIndex(
					(f) =>
						f.bytes === m.bytes &&
						(wr.kind === 'video' || (f.width === m.width && f.height === m.height)),
				);
				if (k >= 0) unmatched.splice(k, 1);
				else
					problems.push(
						`no written file matches ${String(item.json.task_id ?? wr.from)} as ${wr.from} reported it (${m.bytes} bytes${m.width ? `, ${m.width}x${m.height}` : ''})`,
					);
			}
		}
		if (!source.some((i) => reportedFiles(i).length)) problems.push(`${wr.from} reported no file`);
	} else if (wr.kind === 'text') {
		const want = source
			.map((i) => i.json[wr.field ?? 'text'])
			.filter((t): t is string => typeof t === 'string');
		for (const f of files) {
			const text = readFileSync(join(root, f.path), 'utf8');
			if (!text.trim()) problems.push(`${f.path} holds no text`);
			else if (!want.includes(text)) problems.push(`${f.path} is not the text ${wr.from} returned`);
		}
	} else {
		for (const f of files) {
			const rows = readFileSync(join(root, f.path), 'utf8')
				.split(/\r?\n/)
				.filter((l) => l.trim()).length;
			if (rows !== source.length + 1)
				problems.push(
					`${f.path} has ${rows} line(s); expected a header and ${source.length} row(s)`,
				);
		}
	}
	const tid = taskIds(source);
	const error = problems.length ? problems.join('; ') : runError;
	const warning = crashedAfterRun(res);
	entries.push({
		workflow: w.folder,
		step: wr.node,
		ok: !error,
		...(tid ? { task_id: tid } : {}),
		...(error ? { error: short(error, 1000) } : {}),
		...(warning ? { warning } : {}),
		files,
	});
	return opts.beyondSpecUnknown ? skipBeyondSpec(w, entries) : entries;
}

/**
 * Judges a workflow by what the spec promises, on a gateway not known to give what the workflow needs beyond it
 * (`beyondSpec`): when every step that rests on the spec did what it should, a failed `beyondSpec` step and the
 * workflow's written file (which follows from it) are skipped, saying what the workflow needs and what happened here.
 * When a step that rests on the spec failed, nothing is skipped.
 */
export function skipBeyondSpec(w: DemoWorkflow, entries: SummaryEntry[]): SummaryEntry[] {
	if (!w.beyondSpec) return entries;
	const beyond = new Set(w.steps.filter((s) => s.beyondSpec).map((s) => s.node));
	const mayFail = (e: SummaryEntry) => beyond.has(e.step) || e.step === w.write.node;
	if (entries.some((e) => !e.ok && !mayFail(e))) return entries;
	if (!entries.some((e) => !e.ok && beyond.has(e.step))) return entries;
	return entries.map((e) => {
		if (e.ok || !mayFail(e)) return e;
		const { error, ...rest } = e;
		return {
			...rest,
			ok: true,
			skipped: `${w.beyondSpec}; this gateway: ${short(error ?? 'failed', 300)}`,
		};
	});
}

function human(bytes: number): string {
	if (bytes < 1000) return `${bytes} B`;
	if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
	return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A compact table: one line per step, one more per extra file; errors shortened (summary.json has them whole). */
export function table(entries: SummaryEntry[]): string {
	const rows: string[][] = [];
	for (const e of entries) {
		const first = e.ok
			? (notes.get(e) ?? (e.skipped ? `skipped: ${e.skipped}` : undefined) ?? e.task_id ?? '')
			: short(e.error ?? 'failed', 160);
		const fileLines = e.files.map(
			(f) => `${f.path}  ${f.mime}${f.width ? ` ${f.width}x${f.height}` : ''}  ${human(f.bytes)}`,
		);
		const lines = [
			...(e.ok && fileLines.length ? fileLines : [first, ...(e.ok ? [] : fileLines)]),
			...(e.warning ? [`note: ${e.warning}`] : []),
		];
		lines.forEach((l, k) =>
			rows.push(
				k === 0
					? [e.skipped ? 'skip' : e.ok ? 'ok' : 'FAIL', e.workflow, e.step, l]
					: ['', '', '', l],
			),
		);
	}
	const head = ['', 'workflow', 'step', 'task IDs / files / error'];
	const widths = [0, 1, 2].map((k) => Math.max(head[k].length, ...rows.map((r) => r[k].length)));
	const line = (r: string[]) =>
		r
			.map((c, k) => (k < 3 ? c.padEnd(widths[k]) : c))
			.join('  ')
			.trimEnd();
	return [
		line(head),
		line([...widths.map((w) => '-'.repeat(w)), '-'.repeat(24)]),
		...rows.map(line),
	].join('\n');
}
