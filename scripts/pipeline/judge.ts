/**
 * Judges a pipeline run from what it left behind, not from n8n's view of itself: the prompts table, the objects in
 * the bucket, the mails in the mailbox, the gateway's request log and ledger, and every place the key could leak
 * to (the database dump, n8n's logs, the objects, the mails). Files are checked with tools of their own: sharp
 * decodes each image to its last pixel; an MP4 must be top-level boxes covering the file, with ftyp, moov and mdat.
 */
import type { ParsedMail } from 'mailparser';
import sharp from 'sharp';
import type { Simulator } from '../../simulator';
import type { Postgres } from '../queue/services';

export interface Row {
	id: number;
	kind: string;
	status: string;
	task_id: string | null;
	object_key: string | null;
	error: string | null;
	email: string;
	mailed: boolean;
}

export interface PipelineOutcome {
	rows: Row[];
	/** key → what the file is, e.g. "image/png 1024x1024" or "video/mp4 500000 B" */
	objects: Record<string, string>;
	mails: Array<{ to: string; subject: string }>;
	/** paid POSTs the gateway saw: accepted (2xx), refused (429, sent again later) and other */
	posts: { accepted: number; refused: number; other: number };
	/** tasks charged, and how many of them exactly once */
	charged: { tasks: number; once: number };
	/** polls and downloads the gateway answered with a 5xx (retried by the nodes) */
	getErrors: number;
	/** places the API key was found */
	keyFound: string[];
	/** everything that went wrong, in words (empty: nothing lost, nothing paid, stored or announced twice) */
	problems: string[];
}

export function rowsOf(pg: Postgres): Row[] {
	return pg
		.query(
			`select json_build_object('id', id, 'kind', kind, 'status', status, 'task_id', task_id, 'object_key', object_key, 'error', error, 'email', email, 'mailed', mailed_at is not null) from gen_prompts order by id`,
		)
		.map((l) => JSON.parse(l) as Row);
}

/** top-level MP4 boxes must cover the file exactly, and include ftyp, moov and mdat */
export function mp4Problem(b: Buffer): string | undefined {
	const seen = new Set<string>();
	let at = 0;
	while (at < b.length) {
		if (at + 8 > b.length) return `a box header is cut at byte ${at}`;
		let size = b.readUInt32BE(at);
		const type = b.toString('latin1', at + 4, at + 8);
		if (size === 1) {
			if (at + 16 > b.length) return `a box header is cut at byte ${at}`;
			size = Number(b.readBigUInt64BE(at + 8));
		} else if (size === 0) size = b.length - at;
		if (size < 8 || at + size > b.length) return `box ${type} at byte ${at} runs past the end`;
		seen.add(type);
		at += size;
	}
	const missing = ['ftyp', 'moov', 'mdat'].filter((t) => !seen.has(t));
	return missing.length ? `no ${missing.join(', ')} box` : undefined;
}

async function describe(key: string, b: Buffer): Promise<{ what: string; problem?: string }> {
	if (key.endsWith('.mp4')) {
		const problem = mp4Problem(b);
		return { what: `video/mp4 ${b.length} B`, problem: problem && `${key}: ${problem}` };
	}
	try {
		const { data, info } = await sharp(b, { failOn: 'truncated' })
			.raw()
			.toBuffer({ resolveWithObject: true });
		if (data.length !== info.width * info.height * info.channels)
			return { what: 'image', problem: `${key}: decoded to fewer pixels than it claims` };
		const meta = await sharp(b).metadata();
		return { what: `image/${meta.format} ${info.width}x${info.height}` };
	} catch (err) {
		return { what: 'not an image', problem: `${key}: does not decode (${(err as Error).message})` };
	}
}

export async function judge(input: {
	rows: Row[];
	objects: Map<string, Buffer>;
	mails: Array<ParsedMail & { raw: string }>;
	sim?: Simulator;
	apiKey: string;
	dump: Buffer;
	logs: Array<{ name: string; output: string }>;
	resultsUrl: string;
}): Promise<PipelineOutcome> {
	const { rows, sim, apiKey } = input;
	const problems: string[] = [];
	const unfinished = rows.filter((r) => r.status !== 'done' && r.status !== 'failed');
	if (unfinished.length)
		problems.push(
			`${unfinished.length} row(s) neither done nor failed: ${unfinished.map((r) => `#${r.id} ${r.status}`).join(', ')}`,
		);
	for (const r of rows.filter((x) => x.status === 'failed' && !x.error?.trim()))
		problems.push(`row #${r.id} failed without a reason`);
	const done = rows.filter((r) => r.status === 'done');

	// stored once: one object per done row, under the row's key, a complete file; nothing else in the bucket
	const objects: Record<string, string> = {};
	for (const [key, bytes] of input.objects) {
		const d = await describe(key, bytes);
		objects[key] = d.what;
		if (d.problem) problems.push(d.problem);
		if (!done.some((r) => r.object_key === key))
			problems.push(`object ${key} belongs to no done row`);
	}
	for (const r of done) {
		if (!r.object_key) problems.push(`row #${r.id} is done without an object key`);
		else if (!input.objects.has(r.object_key))
			problems.push(`row #${r.id}: object ${r.object_key} is not in the bucket`);
		else if (!r.object_key.includes(String(r.task_id)))
			problems.push(
				`row #${r.id}: object ${r.object_key} is not named after its task ${r.task_id}`,
			);
		if (
			r.object_key &&
			!objects[r.object_key]?.startsWith(r.kind === 'video' ? 'video/' : 'image/')
		)
			problems.push(
				`row #${r.id} (${r.kind}): object is ${objects[r.object_key ?? ''] ?? 'missing'}`,
			);
	}

	// announced once: one mail per done row, to its address, linking its object; none for failed rows
	const mails = input.mails.map((m) => ({
		to: (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).map((a) => a.text).join(', '),
		subject: m.subject ?? '',
		text: m.text ?? '',
	}));
	for (const r of rows) {
		const mine = mails.filter((m) => new RegExp(`#${r.id}\\b`).test(m.subject));
		if (r.status === 'done') {
			if (mine.length !== 1) problems.push(`row #${r.id}: ${mine.length} mails, expected 1`);
			else {
				if (!mine[0].to.includes(r.email))
					problems.push(`row #${r.id}: mail went to ${mine[0].to}, not ${r.email}`);
				if (!mine[0].text.includes(`${input.resultsUrl}/${r.object_key}`))
					problems.push(`row #${r.id}: the mail does not link ${r.object_key}`);
			}
			if (!r.mailed) problems.push(`row #${r.id}: mailed_at not set`);
		} else if (mine.length) problems.push(`row #${r.id} (${r.status}) was announced`);
	}
	if (mails.length !== done.length)
		problems.push(`${mails.length} mails for ${done.length} done rows`);

	// paid once: every accepted POST is a row's task, charged once; no task charged twice; no row without a task was charged
	let posts = { accepted: 0, refused: 0, other: 0 };
	let charged = { tasks: 0, once: 0 };
	let getErrors = 0;
	if (sim) {
		getErrors = sim.log.filter((l) => l.method === 'GET' && l.status >= 500).length;
		const paid = sim.log.filter((l) => l.method === 'POST' && l.server !== 'result');
		posts = {
			accepted: paid.filter((l) => l.status >= 200 && l.status < 300).length,
			refused: paid.filter((l) => l.status === 429).length,
			other: paid.filter((l) => l.status !== 429 && (l.status < 200 || l.status >= 300)).length,
		};
		const withTask = rows.filter((r) => r.task_id);
		if (posts.accepted !== withTask.length)
			problems.push(`${posts.accepted} accepted POSTs for ${withTask.length} rows with a task`);
		const charges = new Map<string, number>();
		for (const l of sim.ledger)
			if ((l.kind === 'charge' || l.kind === 'reserve') && l.taskId)
				charges.set(l.taskId, (charges.get(l.taskId) ?? 0) + 1);
		charged = { tasks: charges.size, once: [...charges.values()].filter((n) => n === 1).length };
		for (const [task, n] of charges) {
			if (n > 1) problems.push(`task ${task} charged ${n} times`);
			if (!rows.some((r) => r.task_id === task))
				problems.push(`task ${task} was charged but no row holds it`);
		}
		for (const r of withTask)
			if (!charges.has(r.task_id!))
				problems.push(`row #${r.id}: task ${r.task_id} was never charged`);
		const taskIds = withTask.map((r) => r.task_id);
		if (new Set(taskIds).size !== taskIds.length) problems.push('two rows hold the same task');
	}

	// the key nowhere
	const keyFound: string[] = [];
	if (input.dump.includes(apiKey)) keyFound.push('the PostgreSQL dump');
	for (const l of input.logs) if (l.output.includes(apiKey)) keyFound.push(`the ${l.name} log`);
	for (const [key, bytes] of input.objects)
		if (bytes.includes(apiKey)) keyFound.push(`object ${key}`);
	for (const m of input.mails) if (m.raw.includes(apiKey)) keyFound.push(`mail "${m.subject}"`);
	if (keyFound.length) problems.push(`the API key was found in ${keyFound.join(', ')}`);

	return {
		rows,
		objects,
		mails: mails.map(({ to, subject }) => ({ to, subject })),
		posts,
		charged,
		getErrors,
		keyFound,
		problems,
	};
}

export function summarise(o: PipelineOutcome & { ms: number; events: string[] }): string {
	const by = (s: string) => o.rows.filter((r) => r.status === s);
	return [
		...o.events.map((e) => `- ${e}`),
		`rows: ${o.rows.length} (${by('done').length} done, ${by('failed').length} failed${
			by('failed').length
				? `: ${by('failed')
						.map((r) => `#${r.id} ${String(r.error).slice(0, 90)}`)
						.join('; ')}`
				: ''
		})`,
		`bucket: ${Object.keys(o.objects).length} objects (${[...new Set(Object.values(o.objects).map((w) => w.replace(/ \d+ B$/, '')))].join(', ')}); mailbox: ${o.mails.length} mails`,
		`gateway: ${o.posts.accepted} POSTs accepted, ${o.posts.refused} refused with 429 and sent again, ${o.posts.other} other; ${o.getErrors} polls or downloads answered 5xx; ${o.charged.tasks} tasks charged, ${o.charged.once} exactly once`,
		`API key found in: ${o.keyFound.length ? o.keyFound.join(', ') : 'nothing (database dump, n8n logs, objects, mails)'}`,
		`took ${(o.ms / 1000).toFixed(1)} s`,
		o.problems.length
			? `PROBLEMS:\n- ${o.problems.join('\n- ')}`
			: 'nothing lost; every prompt charged, stored and announced once',
	].join('\n');
}
