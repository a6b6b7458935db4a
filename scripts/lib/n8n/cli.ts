/**
 * Running the n8n CLI against a state folder (`runN8n`, `executeWorkflow`) and reading what it printed (`--rawOutput`
 * run data) or stored in its database (the last execution, its custom data).
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../port';
import { n8nEnv, type N8nEnvOptions } from './env';
import { N8N_BIN, N8N_HOME, N8N_NODE } from './runtime';
import { reapWithThisProcess } from './reap';

export interface CliResult {
	code: number | null;
	/** the signal that ended the process, when one did (code is then null) */
	signal?: string | null;
	stdout: string;
	stderr: string;
	/** with `sampleRss`: the n8n process's peak resident memory (VmHWM), MiB */
	peakRssMiB?: number;
}

/** The peak resident memory of a live process (Linux /proc), MiB; undefined once it is gone. */
function peakRss(pid: number): number | undefined {
	try {
		const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return m ? Math.round(Number(m[1]) / 1024) : undefined;
	} catch {
		return undefined;
	}
}

export function runN8n(
	stateDir: string,
	args: string[],
	opts: N8nEnvOptions & { timeoutMs?: number; brokerPort?: number; sampleRss?: boolean } = {},
): Promise<CliResult> {
	return new Promise(async (resolvePromise) => {
		const port = opts.brokerPort ?? (await freePort());
		// stdout goes to a file, not a pipe: n8n 1.x's `execute` exits as soon as it wrote its run data, and what a slow
		// reader had not taken from a pipe by then was lost (a video run's output cut at a few hundred kB on a loaded machine)
		const outDir = mkdtempSync(join(tmpdir(), 'gg-n8n-out-'));
		const outFd = openSync(join(outDir, 'stdout'), 'w');
		const child = spawn(N8N_NODE, [N8N_BIN, ...args], {
			env: n8nEnv(stateDir, port, opts),
			cwd: stateDir,
			detached: true,
			stdio: ['ignore', outFd, 'pipe'],
		});
		closeSync(outFd);
		reapWithThisProcess(child.pid, new Promise((r) => child.once('close', r)));
		let stderr = '';
		let peakRssMiB: number | undefined;
		const sampler = opts.sampleRss
			? setInterval(() => (peakRssMiB = Math.max(peakRssMiB ?? 0, peakRss(child.pid!) ?? 0)), 50)
			: undefined;
		child.stderr!.on('data', (d) => (stderr += d));
		const timer = setTimeout(() => {
			try {
				process.kill(-child.pid!, 'SIGKILL');
			} catch {
				/* already gone */
			}
			stderr += `\n[killed after ${opts.timeoutMs} ms]`;
		}, opts.timeoutMs ?? 180_000);
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			if (sampler) clearInterval(sampler);
			const stdout = readFileSync(join(outDir, 'stdout'), 'utf8');
			rmSync(outDir, { recursive: true, force: true });
			resolvePromise({ code, signal, stdout, stderr, ...(opts.sampleRss ? { peakRssMiB } : {}) });
		});
	});
}

export interface ExecuteResult extends CliResult {
	/** parsed run data (`--rawOutput`), when stdout held JSON */
	data?: {
		data?: {
			resultData?: {
				runData?: Record<
					string,
					Array<{
						data?: {
							main?: Array<Array<{
								json: Record<string, unknown>;
								binary?: Record<string, Record<string, unknown>>;
							}> | null>;
						};
						error?: { message?: string };
					}>
				>;
				error?: { message?: string };
			};
		};
		status?: string;
		/** the execution's id (a run read from n8n's database) */
		id?: string;
	};
}

/** Finds the run-data JSON object in n8n's stdout (it may carry log lines before it). */
export function parseRunOutput(stdout: string): ExecuteResult['data'] | undefined {
	// JSON.stringify(data, null, 2): the top-level braces stand alone on their lines.
	const lines = stdout.split('\n');
	const start = lines.findIndex((l) => l === '{');
	if (start < 0) return undefined;
	for (let end = lines.length - 1; end > start; end--) {
		if (lines[end] !== '}') continue;
		try {
			return JSON.parse(lines.slice(start, end + 1).join('\n'));
		} catch {
			/* a shorter candidate */
		}
	}
	return undefined;
}

export async function executeWorkflow(
	stateDir: string,
	id: string,
	opts: N8nEnvOptions & { timeoutMs?: number; sampleRss?: boolean } = {},
): Promise<ExecuteResult> {
	const r = await runN8n(stateDir, ['execute', `--id=${id}`, '--rawOutput'], opts);
	const printed = parseRunOutput(r.stdout);
	// n8n's process ended by a signal (seen: SIGSEGV on a loaded machine, after the run) before or while it printed
	// the run: the run as n8n stored it in its database, when it stored one
	if (r.code === null && r.signal && !printed) return { ...r, data: storedRun(stateDir, id) };
	// a failed run is printed only at n8n's info log level: the run as n8n stored it
	if (r.code !== 0 && !printed) return { ...r, data: storedRun(stateDir, id) };
	return { ...r, data: printed };
}

/** What went wrong in a run, for a test's failure message: the workflow's error and each node's, with their first stack lines. */
export function runFailure(res: ExecuteResult): string {
	type Failure = {
		message?: string;
		description?: string;
		name?: string;
		stack?: string;
		node?: { name?: string };
	};
	const line = (where: string, e: Failure) =>
		`${where}: ${e.name ?? 'Error'}: ${e.message ?? '(no message)'}${e.description ? ` — ${e.description}` : ''}\n${(e.stack ?? '').split('\n').slice(1, 9).join('\n')}`;
	const result = res.data?.data?.resultData as
		| {
				error?: Failure;
				lastNodeExecuted?: string;
				runData?: Record<string, Array<{ error?: Failure }>>;
		  }
		| undefined;
	const parts = [
		`exit ${res.code}, signal ${res.signal ?? 'none'}, status ${res.data?.status ?? 'unknown'}`,
	];
	if (result?.error)
		parts.push(
			line(
				`workflow (node ${result.error.node?.name ?? result.lastNodeExecuted ?? '?'})`,
				result.error,
			),
		);
	for (const [node, runs] of Object.entries(result?.runData ?? {})) {
		const error = runs.at(-1)?.error;
		if (error) parts.push(line(`node ${node}`, error));
	}
	if (!result) parts.push('no run data printed or stored');
	return `${parts.join('\n')}\n--- stderr (head) ---\n${res.stderr.slice(0, 1500)}\n--- stderr (tail) ---\n${res.stderr.slice(-1500)}`;
}

/** The last execution of a workflow as n8n stored it (status, times and run data), in the shape `execute --rawOutput` prints. */
export function storedRun(stateDir: string, workflowId: string): ExecuteResult['data'] | undefined {
	const mods = join(N8N_HOME, 'app/node_modules');
	const script = `
const { Database } = require(${JSON.stringify(join(mods, 'sqlite3'))});
const { parse } = require(${JSON.stringify(join(mods, 'flatted'))});
new Database(process.argv[1]).get('select e.id, e.status, e.finished, e.mode, e.startedAt, e.stoppedAt, d.data from execution_entity e join execution_data d on d.executionId = e.id where e.workflowId = ? order by e.id desc limit 1', [process.argv[2]], (err, row) => {
	if (err) throw err;
	const iso = (t) => (t ? new Date(String(t).replace(' ', 'T') + (/[zZ]|[+-]\\d\\d:?\\d\\d$/.test(String(t)) ? '' : 'Z')).toISOString() : undefined);
	process.stdout.write(JSON.stringify(row ? { id: String(row.id), data: parse(row.data), status: row.status, finished: !!row.finished, mode: row.mode, startedAt: iso(row.startedAt), stoppedAt: iso(row.stoppedAt) } : null));
});`;
	try {
		return (
			JSON.parse(
				execFileSync(N8N_NODE, ['-e', script, join(stateDir, '.n8n/database.sqlite'), workflowId], {
					encoding: 'utf8',
					maxBuffer: 1 << 30,
				}),
			) ?? undefined
		);
	} catch {
		return undefined;
	}
}

/** Items of a node's output in an execute result. */
export function nodeOutput(
	res: ExecuteResult,
	node: string,
	output = 0,
): Array<{ json: Record<string, unknown>; binary?: Record<string, Record<string, unknown>> }> {
	const runs = res.data?.data?.resultData?.runData?.[node];
	const last = runs?.[runs.length - 1];
	return last?.data?.main?.[output] ?? [];
}

/**
 * The custom data (`$execution.customData`) n8n stored for the last execution of a workflow, read from the state's
 * database (table execution_metadata), as n8n's executions list shows it.
 */
export function storedCustomData(stateDir: string, workflowId: string): Record<string, string> {
	const mods = join(N8N_HOME, 'app/node_modules');
	const script = `
const { Database } = require(${JSON.stringify(join(mods, 'sqlite3'))});
new Database(process.argv[1]).all('select m.key, m.value from execution_metadata m where m.executionId = (select max(id) from execution_entity where workflowId = ?) order by m.id', [process.argv[2]], (err, rows) => {
	if (err) throw err;
	process.stdout.write(JSON.stringify(Object.fromEntries(rows.map((r) => [r.key, r.value]))));
});`;
	return JSON.parse(
		execFileSync(N8N_NODE, ['-e', script, join(stateDir, '.n8n/database.sqlite'), workflowId], {
			encoding: 'utf8',
		}),
	);
}
