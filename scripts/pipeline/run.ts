/**
 * Runs the pipeline of examples/pipeline-*.json in a real n8n (`n8n start`, both workflows activated, their
 * Schedule Triggers ticking), against the embedded gateway simulator (or a gateway given by GATEWAY_*), with a
 * private PostgreSQL (the prompts table, and n8n's own database), an S3-protocol store and an SMTP mailbox, all on
 * loopback. Regular mode (the demo) or queue mode (main + workers) with crashes: a worker killed while its
 * execution polls, n8n restarted between two ticks, bursts of 429 and 5xx. Then judges the outcome from the
 * database, the bucket, the mailbox and the gateway's ledger (scripts/pipeline/judge.ts).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startSimulator, type Simulator } from '../../simulator';
import { scriptGateway } from '../gateway';
import { ROOT } from '../lib/repo';
import { ensureN8n } from '../lib/n8n/runtime';
import { CRED, CREDENTIAL_ID } from '../demo/workflows';
import { startCluster, type Cluster } from '../queue/cluster';
import { until } from '../queue/services';
import { filesIn, type SummaryEntry } from '../demo/summary';
import { judge, rowsOf, type PipelineOutcome } from './judge';
import { startMailbox, startObjectStore } from './services';
import { BUCKET, PG_CRED, PIPELINE, RESULTS_URL, S3_CRED, SMTP_CRED } from './workflows';

export interface Prompt {
	kind: 'image' | 'video';
	model: string;
	prompt: string;
	size?: string;
	seconds?: number;
	email: string;
}

export interface PipelineOptions {
	/** queue mode with this many workers, and the crash choreography when `crash` */
	queue?: { workers: number; crash: boolean };
	/** the prompts put into the table before n8n starts; `later` after the restart (crash runs) */
	prompts?: Prompt[];
	later?: Prompt[];
	/** the Schedule Triggers' interval in the run (the shipped files say every minute) */
	tickSeconds?: number;
	sim?: Simulator;
	log?: (line: string) => void;
	/** how long the rows may take to end done or failed */
	timeoutMs?: number;
	/** copies the bucket's objects (objects/<key>), the mails (mail/*.eml) and the table (rows.json) here */
	keepDir?: string;
}

export interface PipelineReport extends PipelineOutcome {
	ms: number;
	/** what the crash choreography did, in order */
	events: string[];
}

const email = (k: number) => `reader${k}@example.com`;

/** The demo's prompts: images (one refused before sending, one the gateway fails) and a video. */
export function demoPrompts(images: number, videos: number, offset = 0): Prompt[] {
	const list: Prompt[] = [];
	for (let k = 0; k < images; k++)
		list.push({
			kind: 'image',
			model: 'alpha-image-2.5',
			prompt: `a lighthouse at dawn, study ${offset + k + 1}`,
			size: k % 2 ? '1536x1024' : '1024x1024',
			email: email(offset + k),
		});
	for (let k = 0; k < videos; k++)
		list.push({
			kind: 'video',
			model: 'gamma-video-1.5',
			prompt: `waves rolling onto a beach, take ${offset + k + 1}`,
			seconds: 8,
			email: email(offset + images + k),
		});
	return list;
}
/** rows that must end `failed`: a size the model refuses (nothing sent), and a task the gateway fails (refunded) */
export const FAILING: Prompt[] = [
	{
		kind: 'image',
		model: 'alpha-image-2.5',
		prompt: 'a size the model refuses',
		size: '100x100',
		email: 'refused@example.com',
	},
	{
		kind: 'image',
		model: 'alpha-image-2.5',
		prompt: 'a task the gateway fails [fail]',
		size: '1024x1024',
		email: 'failed@example.com',
	},
];

const lit = (v: string | number | undefined) =>
	v === undefined ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`;
export function insertSql(prompts: Prompt[]): string {
	return `INSERT INTO gen_prompts (kind, model, prompt, size, seconds, email) VALUES ${prompts.map((p) => `(${[p.kind, p.model, p.prompt, p.size, p.seconds, p.email].map(lit).join(', ')})`).join(', ')}`;
}

/** The shipped workflow with credentials, the mail's link and the tick filled in. */
export function pipelineWorkflow(
	folder: string,
	subst: { resultsUrl: string; tickSeconds?: number },
): Record<string, unknown> {
	const w = PIPELINE.find((p) => p.folder === folder);
	if (!w) throw new Error(`no pipeline workflow ${folder}`);
	let text = readFileSync(join(ROOT, 'examples', `${folder}.json`), 'utf8');
	text = text
		.split(CRED)
		.join(CREDENTIAL_ID)
		.split(PG_CRED)
		.join('ggpipepg')
		.split(S3_CRED)
		.join('ggpipes3')
		.split(SMTP_CRED)
		.join('ggpipesmtp')
		.split(RESULTS_URL)
		.join(subst.resultsUrl);
	const wf = JSON.parse(text) as {
		nodes: Array<{ type: string; parameters: Record<string, unknown> }>;
	};
	if (subst.tickSeconds) {
		for (const n of wf.nodes)
			if (n.type === 'n8n-nodes-base.scheduleTrigger')
				n.parameters.rule = {
					interval: [{ field: 'seconds', secondsInterval: subst.tickSeconds }],
				};
	}
	return wf as unknown as Record<string, unknown>;
}

function keep(
	dir: string,
	objects: Map<string, Buffer>,
	mails: Array<{ raw: string }>,
	rows: unknown[],
): void {
	rmSync(dir, { recursive: true, force: true });
	for (const [key, bytes] of objects) {
		mkdirSync(dirname(join(dir, 'objects', key)), { recursive: true });
		writeFileSync(join(dir, 'objects', key), bytes);
	}
	mkdirSync(join(dir, 'mail'), { recursive: true });
	mails.forEach((m, k) =>
		writeFileSync(join(dir, 'mail', `${String(k + 1).padStart(3, '0')}.eml`), m.raw),
	);
	writeFileSync(join(dir, 'rows.json'), JSON.stringify(rows, null, 2) + '\n');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runPipeline(opts: PipelineOptions = {}): Promise<PipelineReport> {
	const log = opts.log ?? ((s: string) => process.stdout.write(`${s}\n`));
	const t0 = Date.now();
	const secs = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
	const prompts = opts.prompts ?? [...demoPrompts(4, 1), ...FAILING];
	const later = opts.later ?? [];
	const tick = opts.tickSeconds ?? 5;
	ensureN8n();
	const gateway = await scriptGateway(opts.sim, 500_000);
	const { baseUrl, videoBaseUrl, apiKey, sim } = gateway;
	const [store, mailbox] = await Promise.all([startObjectStore(BUCKET), startMailbox()]);
	log(
		`[pipeline] ${gateway.describe}; S3 store ${store.endpoint} (bucket ${BUCKET}); SMTP 127.0.0.1:${mailbox.port}`,
	);
	const events: string[] = [];
	const event = (s: string) => {
		events.push(s);
		log(`[pipeline] ${s} (${secs()})`);
	};
	let cluster: Cluster | undefined;
	try {
		const workflows = PIPELINE.map((w) => ({
			folder: w.folder,
			path: '',
			json: pipelineWorkflow(w.folder, {
				resultsUrl: `${store.endpoint}/${BUCKET}`,
				tickSeconds: tick,
			}),
		}));
		cluster = await startCluster(
			{
				queue: !!opts.queue,
				workers: opts.queue?.workers ?? 0,
				concurrency: 10,
				webhooks: false,
				credentials: [
					{
						id: CREDENTIAL_ID,
						name: 'GenGateway account',
						type: 'genGatewayApi',
						data: { apiKey, baseUrl, videoBaseUrl },
					},
				],
				workflows,
				fileAccess: [],
				prepare(pg) {
					pg.query(readFileSync(join(ROOT, 'examples/pipeline.sql'), 'utf8'));
					pg.query(insertSql(prompts));
					return [
						{
							id: 'ggpipepg',
							name: 'Pipeline database',
							type: 'postgres',
							data: {
								host: '127.0.0.1',
								port: pg.port,
								database: pg.database,
								user: pg.user,
								password: '',
								ssl: 'disable',
								maxConnections: 20,
							},
						},
						{
							id: 'ggpipes3',
							name: 'Object store',
							type: 's3',
							data: {
								endpoint: store.endpoint,
								region: store.region,
								accessKeyId: store.accessKeyId,
								secretAccessKey: store.secretAccessKey,
								forcePathStyle: true,
								ignoreSSLIssues: false,
							},
						},
						{
							id: 'ggpipesmtp',
							name: 'Mail server',
							type: 'smtp',
							data: {
								host: mailbox.host,
								port: mailbox.port,
								user: mailbox.user,
								password: mailbox.password,
								secure: false,
								disableStartTls: true,
							},
						},
					];
				},
			},
			log,
		);
		const pg = cluster.pg;
		event(`${prompts.length} prompts pending; both workflows active, ticking every ${tick} s`);
		const final = () =>
			Number(pg.query(`select count(*) from gen_prompts where status in ('done', 'failed')`)[0]);
		const total = () => Number(pg.query('select count(*) from gen_prompts')[0]);
		const progress = () =>
			pg
				.query('select status, count(*) from gen_prompts group by status order by status')
				.join(', ');
		let last = '';
		const waitAll = async (what: string) => {
			await until(
				what,
				() => {
					const line = progress();
					if (line !== last) log(`[pipeline] rows: ${(last = line)} (${secs()})`);
					return final() === total();
				},
				opts.timeoutMs ?? 8 * 60_000,
			);
		};

		if (opts.queue?.crash && sim) {
			// a worker killed while its execution polls: a deliver run holds leased rows and the gateway sees its polls
			const deliverId = String(workflows[1].json.id);
			await until(
				'a deliver execution polling',
				() =>
					pg.query(
						`select count(*) from execution_entity where "workflowId" = '${deliverId}' and status = 'running'`,
					)[0] !== '0' &&
					sim.log.some(
						(l) =>
							l.method === 'GET' &&
							/\/v1\/(images\/tasks|videos)\//.test(l.path) &&
							Date.now() - l.time < 1500,
					),
				180_000,
			);
			const running = pg.query(
				`select id from execution_entity where "workflowId" = '${deliverId}' and status = 'running'`,
			);
			const victim =
				cluster.workers.find((w) =>
					running.some((id) => new RegExp(`Worker started execution ${id}\\b`).test(w.output())),
				) ?? cluster.workers[0];
			const leased = pg.query(
				`select count(*) from gen_prompts where status = 'submitted' and lease_until > now()`,
			)[0];
			await cluster.killWorker(victim);
			event(
				`killed ${victim.name} (SIGKILL) while deliver execution ${running.join(', ')} polled ${leased} leased row(s); a new worker took its place`,
			);
			await until(
				'a row done after the kill',
				() => Number(pg.query(`select count(*) from gen_prompts where status = 'done'`)[0]) > 0,
				180_000,
			);
			// n8n restarted between two ticks
			await cluster.stopN8n();
			event('n8n stopped (main and workers, gracefully)');
			await sleep(2 * tick * 1000);
			if (later.length) pg.query(insertSql(later));
			await cluster.startN8n();
			event(`n8n started again${later.length ? `; ${later.length} more prompts pending` : ''}`);
		}
		await waitAll('every row done or failed');
		event('every row is done or failed');
		// the execution that marked a row done mails it and then stamps mailed_at: let those executions end before
		// n8n is stopped (on a loaded machine they can outlast the last tick); a mail that never comes is the judge's
		const unmailed = () =>
			Number(
				pg.query(`select count(*) from gen_prompts where status = 'done' and mailed_at is null`)[0],
			);
		await until('every done row mailed', () => unmailed() === 0, 60_000).catch(() =>
			event(`${unmailed()} done row(s) still not mailed after 60 s`),
		);
		// a last tick shows nothing more happens (no second mail, no second upload)
		await sleep(2 * tick * 1000);
		await cluster.stopN8n();
		const objects = store.objects();
		const mails = await mailbox.messages();
		const rows = rowsOf(pg);
		if (opts.keepDir) keep(opts.keepDir, objects, mails, rows);
		const outcome = await judge({
			rows,
			objects,
			mails,
			sim,
			apiKey,
			dump: pg.dump(),
			logs: cluster.outputs(),
			resultsUrl: `${store.endpoint}/${BUCKET}`,
		});
		return { ...outcome, ms: Date.now() - t0, events };
	} finally {
		await cluster?.stop();
		await store.stop();
		await mailbox.stop();
		await gateway.stop();
	}
}

/** The queue-mode crash run: main + 2 workers, slow tasks (so a worker dies mid-poll), 429s on submissions, 5xx on polls. */
export async function crashRun(o: {
	images: number;
	videos: number;
	tickSeconds?: number;
	log?: (s: string) => void;
}): Promise<PipelineReport> {
	const sim = await startSimulator({
		quiet: true,
		taskLatencyMs: 12_000,
		pollAfterMs: 1000,
		videoLatencyMs: 12_000,
		videoBytes: 500_000,
	});
	try {
		sim.fault([
			{ route: 'POST /v1/images/generations/async', kind: 'rate-limit', times: 6, retryAfter: 1 },
			{ route: 're:^GET /v1/images/tasks/', kind: 'status', status: 503, times: 8 },
			{ route: 're:^GET /v1/videos/', kind: 'status', status: 502, times: 3 },
		]);
		return await runPipeline({
			sim,
			queue: { workers: 2, crash: true },
			prompts: [...demoPrompts(o.images, o.videos), ...FAILING],
			later: demoPrompts(Math.max(2, Math.round(o.images / 4)), 0, 1000),
			tickSeconds: o.tickSeconds,
			log: o.log,
		});
	} finally {
		await sim.stop();
	}
}

/** The demo's summary lines for the pipeline: the rows, the objects and mails kept under `keepDir`, the checks. */
export function pipelineEntries(
	r: PipelineReport,
	expectFailed: number,
	keepDir: string,
	root: string,
): SummaryEntry[] {
	const failed = r.rows.filter((x) => x.status === 'failed');
	const failedAsExpected = failed.length === expectFailed && failed.every((x) => !!x.error);
	const files = (sub: string) => filesIn(join(keepDir, sub), root);
	const tasks = r.rows
		.filter((x) => x.task_id)
		.map((x) => x.task_id)
		.join(',');
	const rowsOk =
		failedAsExpected && r.rows.every((x) => x.status === 'done' || x.status === 'failed');
	return [
		{
			workflow: 'pipeline',
			step: 'Prompts table',
			ok: rowsOk,
			task_id: tasks,
			...(rowsOk
				? {}
				: {
						error: `rows: ${r.rows.map((x) => `#${x.id} ${x.status}${x.error ? ` (${x.error})` : ''}`).join('; ')}`,
					}),
			files: [],
		},
		{
			workflow: 'pipeline',
			step: 'Upload to S3',
			ok: !r.problems.some((p) => /object|bucket/.test(p)),
			files: files('objects/results'),
			error: r.problems.filter((p) => /object|bucket/.test(p)).join('; ') || undefined,
		},
		{
			workflow: 'pipeline',
			step: 'Send mail',
			ok: !r.problems.some((p) => /mail/.test(p)),
			files: files('mail'),
			error: r.problems.filter((p) => /mail/.test(p)).join('; ') || undefined,
		},
		{
			workflow: 'pipeline',
			step: 'Paid once, no key',
			ok: r.problems.length === 0,
			task_id: `${r.charged.once}/${r.charged.tasks} tasks charged once`,
			error: r.problems.join('; ') || undefined,
			files: [],
		},
	];
}
