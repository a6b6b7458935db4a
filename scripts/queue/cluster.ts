/**
 * An n8n queue-mode cluster on loopback: private Redis and PostgreSQL, our package installed as a community
 * package, credentials and webhook workflows imported and published, one `n8n start` (main: takes the webhooks,
 * enqueues executions) and N `n8n worker` processes sharing the database.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort } from '../lib/port';
import { N8N_MAJOR } from '../lib/n8n/runtime';
import type { N8nEnvOptions } from '../lib/n8n/env';
import type { Credential } from '../lib/n8n/imports';
import { newState, removeState } from '../lib/n8n/state';
import { importWorkflows } from '../demo/n8n-more';
import { n8nCommand, spawnN8n, type N8nProcess } from './processes';
import { startPostgres, startRedis, until, type Postgres, type Service } from './services';
import type { QueueWorkflow } from './workflows';

export interface ClusterOptions {
	workers: number;
	/** executions per worker at once */
	concurrency: number;
	credentials: Credential[];
	workflows: QueueWorkflow[];
	/** folders the Read/Write Files node may use */
	fileAccess: string[];
	/** more environment for every n8n process */
	env?: Record<string, string>;
	/** false: n8n's regular mode on the same PostgreSQL (no Redis, no workers); default true */
	queue?: boolean;
	/** the workflows start from webhooks: wait until n8n registered one per workflow (default true) */
	webhooks?: boolean;
	/** runs once PostgreSQL is up, before n8n starts (e.g. tables the workflows use); may return more credentials */
	prepare?: (pg: Postgres) => Credential[] | void | Promise<Credential[] | void>;
}

export interface Cluster {
	state: string;
	pg: Postgres;
	redis: Service;
	main: N8nProcess;
	workers: N8nProcess[];
	/** POST /webhook/<path> on main; throws unless n8n accepted the call */
	trigger(path: string, body: unknown): Promise<void>;
	/** stops the workers (they finish running jobs first), then main */
	stopN8n(): Promise<void>;
	/** starts main and the workers again on the same database (after stopN8n) */
	startN8n(): Promise<void>;
	/** kills a worker at once (SIGKILL, no graceful shutdown) and starts a new one in its place */
	killWorker(worker: N8nProcess): Promise<N8nProcess>;
	/** every process's output so far, including processes stopped or killed */
	outputs(): Array<{ name: string; output: string }>;
	/** stops everything and removes every folder */
	stop(): Promise<void>;
}

/** n8n's default binary-data mode in queue mode: workers keep binary data in the shared database, not on their own disk */
export const BINARY_DATA_MODE = 'database';

/** n8n 2 publishes a workflow; n8n 1 activates it */
export function activateCommand(id: string): string[] {
	return N8N_MAJOR === '1'
		? ['update:workflow', `--id=${id}`, '--active=true']
		: ['publish:workflow', `--id=${id}`];
}

export async function startCluster(
	opts: ClusterOptions,
	log: (s: string) => void,
): Promise<Cluster> {
	const t0 = Date.now();
	const since = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
	let redis: Service | undefined;
	let pg: Postgres | undefined;
	let state: string | undefined;
	const processes: N8nProcess[] = [];
	const gone: N8nProcess[] = [];
	const stopN8n = async () => {
		// the workers together (each may wait out its running jobs), then main
		await Promise.all(processes.filter((p) => p.name.startsWith('worker')).map((p) => p.stop()));
		for (const p of processes) await p.stop();
		gone.push(...processes.splice(0));
	};
	const stop = async () => {
		await stopN8n().catch(() => undefined);
		if (state) removeState(state);
		await redis?.stop();
		await pg?.stop();
	};
	try {
		const queue = opts.queue ?? true;
		[redis, pg] = await Promise.all([queue ? startRedis() : undefined, startPostgres()]);
		log(
			`[queue] ${redis ? `redis on 127.0.0.1:${redis.port}, ` : ''}postgres on 127.0.0.1:${pg.port}`,
		);
		const credentials = [...opts.credentials, ...((await opts.prepare?.(pg)) ?? [])];
		const env: N8nEnvOptions = {
			fileAccess: opts.fileAccess,
			extra: {
				...(redis
					? {
							EXECUTIONS_MODE: 'queue',
							QUEUE_BULL_REDIS_HOST: '127.0.0.1',
							QUEUE_BULL_REDIS_PORT: String(redis.port),
						}
					: {}),
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: '127.0.0.1',
				DB_POSTGRESDB_PORT: String(pg.port),
				DB_POSTGRESDB_DATABASE: pg.database,
				DB_POSTGRESDB_USER: pg.user,
				DB_POSTGRESDB_PASSWORD: '',
				...(redis ? { N8N_DEFAULT_BINARY_DATA_MODE: BINARY_DATA_MODE } : {}),
				...opts.env,
			},
		};
		state = await newState();
		const credFile = join(state, 'queue-credentials.json');
		writeFileSync(credFile, JSON.stringify(credentials));
		try {
			await n8nCommand(state, ['import:credentials', `--input=${credFile}`], env);
		} finally {
			rmSync(credFile, { force: true });
		}
		await importWorkflows(
			state,
			opts.workflows.map((w) => w.json),
			env,
		);
		for (const w of opts.workflows)
			await n8nCommand(state, activateCommand(String(w.json.id)), env);
		log(
			`[queue] package installed; credentials and ${opts.workflows.length} workflows imported into PostgreSQL and activated (${since()})`,
		);

		const port = await freePort();
		let workerSeq = 0;
		const spawnWorker = async () =>
			spawnN8n(
				`worker-${++workerSeq}`,
				state!,
				['worker', `--concurrency=${opts.concurrency}`],
				env,
			);
		const workers: N8nProcess[] = [];
		const startN8n = async () => {
			const main = await spawnN8n(
				gone.some((p) => p.name === 'main') ? 'main (restarted)' : 'main',
				state!,
				['start'],
				{
					...env,
					extra: { ...env.extra, N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1' },
				},
			);
			processes.push(main);
			workers.splice(0);
			for (let k = 1; k <= (queue ? opts.workers : 0); k++) workers.push(await spawnWorker());
			processes.push(...workers);
			await main.waitFor('Editor is now accessible', 180_000);
			// n8n registers the webhooks of published workflows in the background, after the editor is up
			if (opts.webhooks ?? true)
				await until(
					'webhook registration',
					() =>
						pg!.query('select count(*) from webhook_entity')[0] === String(opts.workflows.length),
					120_000,
				);
			for (const w of workers) await w.waitFor('n8n worker is now ready', 180_000);
			cluster.main = main;
			log(
				`[queue] main on 127.0.0.1:${port}${queue ? ` and ${workers.length} workers (concurrency ${opts.concurrency})` : ' (regular mode)'} ready (${since()})`,
			);
		};
		const cluster: Cluster = {
			state,
			pg,
			redis: redis ?? { port: 0, stop: async () => undefined },
			main: undefined as unknown as N8nProcess,
			workers,
			async trigger(path, body) {
				const res = await request(`http://127.0.0.1:${port}/webhook/${path}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify(body),
				});
				const text = await res.body.text();
				if (res.statusCode !== 200)
					throw new Error(`webhook ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
			},
			stopN8n,
			startN8n,
			async killWorker(worker) {
				try {
					process.kill(-worker.child.pid!, 'SIGKILL');
				} catch {
					/* already gone */
				}
				await worker.stop();
				processes.splice(processes.indexOf(worker), 1);
				gone.push(worker);
				const next = await spawnWorker();
				await next.waitFor('n8n worker is now ready', 180_000);
				processes.push(next);
				workers.splice(workers.indexOf(worker), 1, next);
				return next;
			},
			outputs: () => [...gone, ...processes].map((p) => ({ name: p.name, output: p.output() })),
			stop,
		};
		await startN8n();
		return cluster;
	} catch (err) {
		await stop();
		throw err;
	}
}
