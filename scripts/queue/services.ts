/**
 * Private Redis and PostgreSQL servers on loopback for n8n's queue mode, from Debian's packages
 * (scripts/install-system-deps.sh installs them). Each lives in its own temporary folder and port and is
 * gone after stop(); nothing touches the machine's own clusters.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../lib/port';

export interface Service {
	port: number;
	stop(): Promise<void>;
}

export interface Postgres extends Service {
	database: string;
	user: string;
	/** runs SQL with psql and returns the rows, fields separated by `|` */
	query(sql: string): string[];
	/** a plain-SQL dump of the whole database (what a backup of n8n would hold) */
	dump(): Buffer;
}

/** Polls `ok` until it holds; fails after `timeoutMs`, or at once if `child` exits meanwhile. */
export async function until(
	what: string,
	ok: () => boolean | Promise<boolean>,
	timeoutMs: number,
	child?: ChildProcess,
): Promise<void> {
	const end = Date.now() + timeoutMs;
	for (;;) {
		if (await ok()) return;
		if (child && child.exitCode !== null)
			throw new Error(`${what} exited with code ${child.exitCode}`);
		if (Date.now() > end) throw new Error(`${what} not ready after ${timeoutMs} ms`);
		await new Promise((r) => setTimeout(r, 200));
	}
}

function killTree(child: ChildProcess): Promise<void> {
	return new Promise((res) => {
		if (child.exitCode !== null || child.signalCode !== null) return res();
		child.once('close', () => res());
		child.kill('SIGTERM');
		setTimeout(() => child.kill('SIGKILL'), 5000).unref();
	});
}

export async function startRedis(): Promise<Service> {
	const port = await freePort();
	const dir = mkdtempSync(join(tmpdir(), 'gg-redis-'));
	const child = spawn(
		'redis-server',
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
			'--protected-mode',
			'yes',
		],
		{ stdio: 'ignore' },
	);
	await until(
		'redis-server',
		() => {
			try {
				return (
					execFileSync('redis-cli', ['-p', String(port), 'ping'], {
						encoding: 'utf8',
						stdio: ['ignore', 'pipe', 'ignore'],
					}).trim() === 'PONG'
				);
			} catch {
				return false;
			}
		},
		15_000,
		child,
	);
	return {
		port,
		async stop() {
			await killTree(child);
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

function pgBin(): string {
	const root = '/usr/lib/postgresql';
	const versions = existsSync(root)
		? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin/initdb')))
		: [];
	if (!versions.length)
		throw new Error(
			'PostgreSQL server binaries not found under /usr/lib/postgresql (run scripts/install-system-deps.sh)',
		);
	return join(root, versions.sort((a, b) => Number(b) - Number(a))[0], 'bin');
}

export async function startPostgres(): Promise<Postgres> {
	const bin = pgBin();
	const port = await freePort();
	const dir = mkdtempSync(join(tmpdir(), 'gg-pg-'));
	const data = join(dir, 'data');
	const user = 'n8n';
	const database = 'n8n';
	// initdb and postgres refuse to run as root: as root, the cluster belongs to Debian's postgres user
	const asRoot = process.getuid?.() === 0;
	if (asRoot) {
		const pw = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
		const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
		chownSync(dir, Number(pw), Number(gid));
	}
	const runuser =
		['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find((p) => existsSync(p)) ??
		'runuser';
	const cmd = (file: string, args: string[]): [string, string[]] =>
		asRoot
			? [runuser, ['-u', 'postgres', '--', join(bin, file), ...args]]
			: [join(bin, file), args];
	const [initCmd, initArgs] = cmd('initdb', [
		'-D',
		data,
		'-U',
		user,
		'--auth=trust',
		'-E',
		'UTF8',
		'--no-sync',
	]);
	execFileSync(initCmd, initArgs, { stdio: 'pipe' });
	const [pgCmd, pgArgs] = cmd('postgres', [
		'-D',
		data,
		'-p',
		String(port),
		'-k',
		dir,
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'fsync=off',
		'-c',
		'max_connections=200',
	]);
	const child = spawn(pgCmd, pgArgs, { stdio: 'ignore' });
	const psql = (args: string[], db = 'postgres') =>
		execFileSync(
			join(bin, 'psql'),
			[
				'-h',
				'127.0.0.1',
				'-p',
				String(port),
				'-U',
				user,
				'-d',
				db,
				'-v',
				'ON_ERROR_STOP=1',
				...args,
			],
			{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
		);
	await until(
		'postgres',
		() => {
			try {
				psql(['-Atc', 'select 1']);
				return true;
			} catch {
				return false;
			}
		},
		30_000,
		child,
	);
	psql(['-c', `create database ${database}`]);
	return {
		port,
		user,
		database,
		query: (sql) =>
			psql(['-At', '-F', '|', '-c', sql], database)
				.split('\n')
				.filter((l) => l.length),
		dump: () =>
			execFileSync(
				join(bin, 'pg_dump'),
				['-h', '127.0.0.1', '-p', String(port), '-U', user, database],
				{ maxBuffer: 1 << 30 },
			),
		async stop() {
			const [stopCmd, stopArgs] = cmd('pg_ctl', ['-D', data, 'stop', '-m', 'fast']);
			try {
				execFileSync(stopCmd, stopArgs, { stdio: 'ignore' });
			} catch {
				/* already stopped */
			}
			await killTree(child);
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
