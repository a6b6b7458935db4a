/**
 * What a queue-mode run left behind, judged: executions in the database, which worker ran each (from the
 * workers' logs), the files written, the gateway's ledger, and whether the API key shows up anywhere.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Simulator } from '../../simulator';
import { ROOT } from '../lib/repo';
import { filesIn, type SummaryFile } from '../demo/summary';
import type { N8nProcess } from './processes';
import type { Postgres } from './services';
import type { QueuePlan } from './workflows';

export interface QueueExecution {
	id: string;
	/** the workflow's folder in examples/ */
	workflow: string;
	status: string;
	/** the workers whose logs say they started the execution (twice for a run parked by a long Wait and resumed) */
	workers: string[];
	/** n8n's error message, for an execution that failed */
	error?: string;
}

export interface GatewayView {
	/** paid POSTs received */
	posts: number;
	/** tasks charged (charge or reserve) */
	tasks: number;
	chargedOnce: number;
	chargedTwice: string[];
	filesWithoutCharge: string[];
	chargesWithoutFile: string[];
}

/** The run's error message from n8n's stored execution data (the "flatted" format: values refer to array slots by index). */
export function executionError(stored: string): string | undefined {
	try {
		const slots = JSON.parse(stored) as unknown[];
		const at = (v: unknown): unknown =>
			typeof v === 'string' && /^\d+$/.test(v) ? slots[Number(v)] : v;
		const field = (o: unknown, k: string) =>
			o && typeof o === 'object' ? at((o as Record<string, unknown>)[k]) : undefined;
		const err = field(field(slots[0], 'resultData'), 'error');
		const node = field(field(err, 'node'), 'name');
		const message = field(err, 'message');
		return typeof message === 'string'
			? `${typeof node === 'string' ? `${node}: ` : ''}${message}`
			: undefined;
	} catch {
		return undefined;
	}
}

export function executionsIn(pg: Postgres, folderOf: Map<string, string>): QueueExecution[] {
	return pg
		.query('select id, "workflowId", status from execution_entity order by id')
		.map((row) => {
			const [id, workflowId, status] = row.split('|');
			return { id, workflow: folderOf.get(workflowId) ?? workflowId, status, workers: [] };
		});
}

/** Executions with who ran them and, for failures, why. */
export function collectExecutions(
	pg: Postgres,
	folderOf: Map<string, string>,
	workers: N8nProcess[],
): { executions: QueueExecution[]; perWorker: Record<string, number> } {
	const executions = executionsIn(pg, folderOf);
	for (const e of executions)
		if (e.status !== 'success')
			e.error = executionError(
				pg.query(`select data from execution_data where "executionId" = ${e.id}`).join('\n'),
			);
	const perWorker: Record<string, number> = {};
	for (const w of workers) {
		const started = [...w.output().matchAll(/Worker started execution (\d+)/g)].map((m) => m[1]);
		perWorker[w.name] = started.length;
		for (const id of started) executions.find((e) => e.id === id)?.workers.push(w.name);
	}
	return { executions, perWorker };
}

export function gatewayView(sim: Simulator, files: SummaryFile[]): GatewayView {
	const charges = new Map<string, number>();
	for (const l of sim.ledger)
		if ((l.kind === 'charge' || l.kind === 'reserve') && l.taskId)
			charges.set(l.taskId, (charges.get(l.taskId) ?? 0) + 1);
	// the demo workflows name each file after its task ID
	const written = new Set(
		files.map((f) =>
			f.path
				.split('/')
				.pop()!
				.replace(/\.[a-z0-9]+$/, ''),
		),
	);
	return {
		posts: sim.log.filter((l) => l.method === 'POST').length,
		tasks: charges.size,
		chargedOnce: [...charges.values()].filter((n) => n === 1).length,
		chargedTwice: [...charges].filter(([, n]) => n > 1).map(([id]) => id),
		filesWithoutCharge: [...written].filter((id) => !charges.has(id)),
		chargesWithoutFile: [...charges.keys()].filter((id) => !written.has(id)),
	};
}

function filesUnder(dir: string, skip: (p: string) => boolean): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
		const p = join(dir, e.name);
		if (skip(p)) return [];
		return e.isDirectory() ? filesUnder(p, skip) : e.isFile() ? [p] : [];
	});
}

/** Every place of the run where the key appears: the database dump, each process's log, n8n's folder, the written files. */
export function keyPlaces(
	apiKey: string,
	where: { dump: Buffer; processes: N8nProcess[]; stateDir: string; outDir: string },
): string[] {
	const key = Buffer.from(apiKey);
	const found: string[] = [];
	if (where.dump.includes(key)) found.push('the PostgreSQL dump');
	for (const p of where.processes) if (p.output().includes(apiKey)) found.push(`the ${p.name} log`);
	const files = [
		...filesUnder(where.stateDir, (p) => p.includes('node_modules')),
		...filesUnder(where.outDir, () => false),
	];
	for (const f of files) if (readFileSync(f).includes(key)) found.push(f);
	return found;
}

export function writtenFiles(outDir: string, plan: QueuePlan): Record<string, SummaryFile[]> {
	return Object.fromEntries(
		Object.keys(plan.calls).map((folder) => [folder, filesIn(join(outDir, folder), ROOT)]),
	);
}

/** Everything that went wrong, in words; empty when nothing was lost or duplicated. */
export function problemsOf(r: {
	plan: QueuePlan;
	executions: QueueExecution[];
	perWorker: Record<string, number>;
	parked: string[];
	files: Record<string, SummaryFile[]>;
	keyFound: string[];
	gateway?: GatewayView;
}): string[] {
	const problems: string[] = [];
	const total = Object.values(r.plan.calls).reduce((a, b) => a + b, 0);
	if (r.executions.length !== total)
		problems.push(`${r.executions.length} executions for ${total} webhook calls`);
	const bad = r.executions.filter((e) => e.status !== 'success');
	if (bad.length)
		problems.push(
			`${bad.length} execution(s) did not succeed: ${bad.map((e) => `${e.id} ${e.workflow} ${e.status}${e.error ? ` (${e.error})` : ''}`).join(', ')}`,
		);
	// a run parked by a long Wait is started again when it resumes, possibly on the other worker
	const wrongStarts = r.executions.filter((e) =>
		e.workflow === 'wait-loop' ? e.workers.length < 2 : e.workers.length !== 1,
	);
	if (wrongStarts.length)
		problems.push(
			`${wrongStarts.length} execution(s) started a wrong number of times: ${wrongStarts.map((e) => `${e.id} ${e.workflow} by [${e.workers.join(', ')}]`).join('; ')}`,
		);
	for (const [name, n] of Object.entries(r.perWorker))
		if (!n) problems.push(`${name} ran no execution`);
	const neverParked = r.executions.filter(
		(e) => e.workflow === 'wait-loop' && !r.parked.includes(e.id),
	);
	if (neverParked.length)
		problems.push(
			`wait-loop execution(s) never seen parked in the database: ${neverParked.map((e) => e.id).join(', ')}`,
		);
	for (const [folder, n] of Object.entries(r.plan.files)) {
		const got = r.files[folder] ?? [];
		if (got.length !== n) problems.push(`${folder}: ${got.length} file(s) written, expected ${n}`);
		const video = folder.endsWith('-video');
		const wrong = got.filter((f) =>
			video ? f.mime !== 'video/mp4' : !f.mime.startsWith('image/') || !f.width,
		);
		if (wrong.length)
			problems.push(
				`${folder}: ${wrong.length} file(s) are not ${video ? 'MP4 videos' : 'images'}`,
			);
	}
	if (r.keyFound.length) problems.push(`the API key was found in ${r.keyFound.join(', ')}`);
	const g = r.gateway;
	if (g) {
		const tasks = Object.values(r.plan.files).reduce((a, b) => a + b, 0);
		if (g.posts !== tasks)
			problems.push(`the gateway received ${g.posts} paid POSTs for ${tasks} tasks`);
		if (g.tasks !== tasks || g.chargedOnce !== tasks)
			problems.push(`${g.tasks} tasks charged, ${g.chargedOnce} of them once; expected ${tasks}`);
		if (g.chargedTwice.length) problems.push(`charged twice: ${g.chargedTwice.join(', ')}`);
		if (g.filesWithoutCharge.length)
			problems.push(`files without a charged task: ${g.filesWithoutCharge.join(', ')}`);
		if (g.chargesWithoutFile.length)
			problems.push(`charged tasks without a file: ${g.chargesWithoutFile.join(', ')}`);
	}
	return problems;
}
