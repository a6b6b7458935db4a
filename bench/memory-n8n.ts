/**
 * P3: a 1 GiB video through Download Result into n8n's filesystem binary store, in a real n8n 2.41.1 (Node 24):
 * the n8n process's peak RSS growth, beside n8n's own HTTP Request node downloading the same file.
 *
 * Growth is the peak RSS from the moment the request reaches the file's host to the end of the process, minus the
 * RSS just before (the simulator logs when the download starts; RSS is sampled every 20 ms from outside), for the
 * 1 GiB file and for a 1 MiB one; the median of `repeats` runs. Both n8n nodes run again with n8n started with a
 * smaller V8 young generation. Controls, same files, same run: a bare process doing what n8n's store does
 * (node:http GET → fs.promises.writeFile, no n8n), on Node 24 and on the machine's Node.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { startSimulator, type Simulator } from '../simulator';
import { ROOT } from '../scripts/lib/repo';
import { freePort } from '../scripts/lib/port';
import { N8N_BIN, N8N_NODE, ensureN8n } from '../scripts/lib/n8n/runtime';
import { n8nEnv } from '../scripts/lib/n8n/env';
import { importCredentials, importWorkflow } from '../scripts/lib/n8n/imports';
import { newState, removeState, removeTemplate } from '../scripts/lib/n8n/state';

function rssKiB(pid: number): number {
	try {
		const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return m ? Number(m[1]) : 0;
	} catch {
		return 0;
	}
}

interface Sampled {
	/** [time, RSS MiB] every 20 ms */
	samples: Array<[number, number]>;
	ms: number;
}

/** Runs a command, sampling its RSS every 20 ms. */
async function sampled(
	cmd: string,
	args: string[],
	opts: { env?: NodeJS.ProcessEnv; cwd?: string; mustPrint?: string },
): Promise<Sampled> {
	const start = Date.now();
	const child = spawn(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd ?? ROOT });
	const samples: Array<[number, number]> = [];
	let out = '';
	child.stdout.on('data', (d) => (out += d));
	child.stderr.on('data', (d) => (out += d));
	const timer = setInterval(() => samples.push([Date.now(), rssKiB(child.pid!) / 1024]), 20);
	const code = await new Promise<number | null>((r) => child.on('close', r));
	clearInterval(timer);
	if (code !== 0 || (opts.mustPrint && !out.includes(opts.mustPrint)))
		throw new Error(`${args.join(' ')} failed (exit ${code}): ${out.slice(-1500)}`);
	return { samples, ms: Date.now() - start };
}

/**
 * Peak RSS from the moment the download reached the file's host to the end of the process, minus the RSS just
 * before: what downloading and storing the file cost, apart from starting the process and loading the nodes.
 */
function growthDuring(s: Sampled, downloadStart: number): number {
	const live = s.samples.filter(([, rss]) => rss > 0);
	if (!live.length) throw new Error('no RSS sample of the process');
	// a process that downloads at once (the bare controls) may have no sample before the download, a small
	// download none during it: then the first sample is "before", the last one "during"
	const before = live.filter(([t]) => t < downloadStart).at(-1) ?? live[0];
	const during = live.filter(([t]) => t >= downloadStart);
	return Math.max(...(during.length ? during : [live.at(-1)!]).map(([, rss]) => rss)) - before[1];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function videoUrl(sim: Simulator): Promise<string> {
	const headers = { authorization: `Bearer ${sim.keys.demo}`, 'content-type': 'application/json' };
	const created = (await (
		await request(`${sim.baseUrl}/v1/videos`, {
			method: 'POST',
			headers,
			body: JSON.stringify({
				model: 'delta-video-2-0-mini-260615',
				prompt: 'bench',
				generate_audio: false,
				watermark: false,
			}),
		})
	).body.json()) as { id: string };
	for (;;) {
		const task = (await (
			await request(`${sim.baseUrl}/v1/videos/${created.id}`, { headers })
		).body.json()) as { status: string; result_url?: string };
		if (task.result_url) return task.result_url;
		await new Promise((r) => setTimeout(r, 50));
	}
}

export interface MemoryRow {
	name: string;
	where: string;
	/** median RSS growth during the download of the big file, and of the small one (MiB) */
	bigGrowthMiB: number;
	smallGrowthMiB: number;
	/** median time of the run with the big file */
	ms: number;
	/** each run's RSS growth with the big file (MiB), in run order */
	bigRunsMiB: number[];
}

export interface MemoryResult {
	fileMiB: number;
	smallMiB: number;
	repeats: number;
	rows: MemoryRow[];
}

/** V8 frees the dead 64 KiB network buffers of a stream at its young-generation collections: a smaller young generation collects them sooner */
export const SMALL_YOUNG_GENERATION = '--max-semi-space-size=1';

const CONTROL = `const http=require('node:http'),fsp=require('node:fs/promises');http.get(process.argv[1],async(res)=>{await fsp.writeFile(process.argv[2],res);console.log('bytes',(await fsp.stat(process.argv[2])).size)});`;

/** `onlyDefaults`: only the two n8n nodes at n8n's defaults and the big file (the ratio the issue names) */
export async function benchMemory(
	bytes = 1024 * 1024 * 1024,
	smallBytes = 1024 * 1024,
	repeats = 3,
	onlyDefaults = false,
): Promise<MemoryResult> {
	ensureN8n();
	const big = await startSimulator({ quiet: true, videoLatencyMs: 20, videoBytes: bytes });
	const small = await startSimulator({ quiet: true, videoLatencyMs: 20, videoBytes: smallBytes });
	const state = await newState();
	try {
		const urls = { big: await videoUrl(big), small: await videoUrl(small) };
		const sims = { big, small };
		await importCredentials(state, [
			{
				id: 'ggbench',
				name: 'bench',
				type: 'genGatewayApi',
				data: { apiKey: big.keys.demo, baseUrl: big.baseUrl },
			},
		]);
		const wf = (id: string, node: Record<string, unknown>) => ({
			id,
			name: id,
			active: false,
			settings: { executionOrder: 'v1' },
			nodes: [
				{
					id: 't',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{ id: 'd', name: 'Download', position: [200, 0], ...node },
			],
			connections: { Start: { main: [[{ node: 'Download', type: 'main', index: 0 }]] } },
		});
		const ours = (url: string) => ({
			type: 'n8n-nodes-gen-gateway.genGatewayDownloadResult',
			typeVersion: 1,
			parameters: { source: 'url', url, resultType: 'video' },
			credentials: { genGatewayApi: { id: 'ggbench', name: 'bench' } },
		});
		const http = (url: string) => ({
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: { url, options: { response: { response: { responseFormat: 'file' } } } },
		});
		for (const size of ['small', 'big'] as const) {
			await importWorkflow(state, wf(`ggbenchO${size}`, ours(urls[size])));
			await importWorkflow(state, wf(`ggbenchH${size}`, http(urls[size])));
		}
		const sizeOf = { big: bytes, small: smallBytes };
		const target = join(state, 'control.bin');
		const n8n = (node: 'O' | 'H', nodeOptions?: string) => async (size: 'small' | 'big') =>
			sampled(N8N_NODE, [N8N_BIN, 'execute', `--id=ggbench${node}${size}`, '--rawOutput'], {
				env: {
					...n8nEnv(state, await freePort()),
					...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
				},
				cwd: state,
				mustPrint: node === 'O' ? `"bytes": ${sizeOf[size]}` : '"status": "success"',
			});
		const runners: Array<[string, string, (size: 'small' | 'big') => Promise<Sampled>]> = [
			['GenGateway Download Result', 'real n8n 2.41.1, Node 24', n8n('O')],
			['n8n HTTP Request (file response)', 'real n8n 2.41.1, Node 24', n8n('H')],
			[
				'GenGateway Download Result',
				`same, n8n started with NODE_OPTIONS=${SMALL_YOUNG_GENERATION}`,
				n8n('O', SMALL_YOUNG_GENERATION),
			],
			[
				'n8n HTTP Request (file response)',
				`same, n8n started with NODE_OPTIONS=${SMALL_YOUNG_GENERATION}`,
				n8n('H', SMALL_YOUNG_GENERATION),
			],
			[
				'control: node:http → fs.promises.writeFile, no n8n',
				'bare Node 24 process',
				(size) =>
					sampled(N8N_NODE, ['-e', CONTROL, urls[size], target], {
						mustPrint: `bytes ${sizeOf[size]}`,
					}),
			],
			[
				'control: node:http → fs.promises.writeFile, no n8n',
				`bare Node ${process.versions.node} process`,
				(size) =>
					sampled(process.execPath, ['-e', CONTROL, urls[size], target], {
						mustPrint: `bytes ${sizeOf[size]}`,
					}),
			],
		];
		const rows: MemoryRow[] = [];
		for (const [name, where, run] of onlyDefaults ? runners.slice(0, 2) : runners) {
			const growth = { big: [] as number[], small: [] as number[] };
			const ms: number[] = [];
			for (let k = 0; k < repeats; k++) {
				for (const size of onlyDefaults ? (['big'] as const) : (['small', 'big'] as const)) {
					const started = Date.now();
					const s = await run(size);
					const download = sims[size].log.find((l) => l.server === 'result' && l.time >= started);
					if (!download) throw new Error(`${name}: the file was never requested`);
					growth[size].push(growthDuring(s, download.time));
					if (size === 'big') ms.push(s.ms);
				}
			}
			rows.push({
				name,
				where,
				bigGrowthMiB: median(growth.big),
				smallGrowthMiB: growth.small.length ? median(growth.small) : NaN,
				ms: median(ms),
				bigRunsMiB: growth.big.map((g) => Math.round(g)),
			});
		}
		return { fileMiB: bytes / 1048576, smallMiB: smallBytes / 1048576, repeats, rows };
	} finally {
		await big.stop();
		await small.stop();
		removeState(state);
		removeTemplate();
	}
}

if (require.main === module)
	benchMemory(Number(process.argv[2] ?? 1024 * 1024 * 1024)).then((r) =>
		console.log(JSON.stringify(r, null, 2)),
	);
