/**
 * An n8n queue-mode cluster on loopback: private Redis and PostgreSQL, our package installed as a community
 * package, credentials and webhook workflows imported and published, one `n8n start` (main: takes the webhooks,
 * enqueues executions) and N `n8n worker` processes sharing the database.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort, newState, removeState, type Credential, type N8nEnvOptions } from '../../test/e2e/n8n';
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
	/** stops everything and removes every folder */
	stop(): Promise<void>;
}

/** n8n's default binary-data mode in queue mode: workers keep binary data in the shared database, not on their own disk */
export const BINARY_DATA_MODE = 'database';

export async function startCluster(opts: ClusterOptions, log: (s: string) => void): Promise<Cluster> {
	const t0 = Date.now();
	const since = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
	let redis: Service | undefined;
	let pg: Postgres | undefined;
	let state: string | undefined;
	const processes: N8nProcess[] = [];
	const stopN8n = async () => {
		for (const p of [...processes].reverse()) await p.stop();
	};
	const stop = async () => {
		await stopN8n().catch(() => undefined);
		if (state) removeState(state);
		await redis?.stop();
		await pg?.stop();
	};
	try {
		[redis, pg] = await Promise.all([startRedis(), startPostgres()]);
		log(`[queue] redis on 127.0.0.1:${redis.port}, postgres on 127.0.0.1:${pg.port}`);
		const env: N8nEnvOptions = {
			fileAccess: opts.fileAccess,
			extra: {
				EXECUTIONS_MODE: 'queue',
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String(redis.port),
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: '127.0.0.1',
				DB_POSTGRESDB_PORT: String(pg.port),
				DB_POSTGRESDB_DATABASE: pg.database,
				DB_POSTGRESDB_USER: pg.user,
				DB_POSTGRESDB_PASSWORD: '',
				N8N_DEFAULT_BINARY_DATA_MODE: BINARY_DATA_MODE,
				...opts.env,
			},
		};
		state = await newState();
		const credFile = join(state, 'queue-credentials.json');
		writeFileSync(credFile, JSON.stringify(opts.credentials));
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
		for (const w of opts.workflows) await n8nCommand(state, ['publish:workflow', `--id=${String(w.json.id)}`], env);
		log(`[queue] package installed; credential and ${opts.workflows.length} webhook workflows imported into PostgreSQL and published (${since()})`);

		const port = await freePort();
		const main = await spawnN8n('main', state, ['start'], { ...env, extra: { ...env.extra, N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1' } });
		processes.push(main);
		const workers: N8nProcess[] = [];
		for (let k = 1; k <= opts.workers; k++) workers.push(await spawnN8n(`worker-${k}`, state, ['worker', `--concurrency=${opts.concurrency}`], env));
		processes.push(...workers);
		await main.waitFor('Editor is now accessible', 180_000);
		// n8n registers the webhooks of published workflows in the background, after the editor is up
		await until('webhook registration', () => pg!.query('select count(*) from webhook_entity')[0] === String(opts.workflows.length), 120_000);
		for (const w of workers) await w.waitFor('n8n worker is now ready', 180_000);
		log(`[queue] main on 127.0.0.1:${port} and ${opts.workers} workers (concurrency ${opts.concurrency}) ready (${since()})`);

		return {
			state,
			pg,
			redis,
			main,
			workers,
			async trigger(path, body) {
				const res = await request(`http://127.0.0.1:${port}/webhook/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
				const text = await res.body.text();
				if (res.statusCode !== 200) throw new Error(`webhook ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
			},
			stopN8n,
			stop,
		};
	} catch (err) {
		await stop();
		throw err;
	}
}
