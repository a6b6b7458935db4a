/**
 * P3: a 1 GiB video through Download Result into n8n's filesystem binary store, in a real n8n 2.41.1:
 * the n8n process's peak RSS growth against a trivial workflow, beside n8n's own HTTP Request node
 * downloading the same file.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { startSimulator } from '../simulator';
import { N8N_BIN, NODE24, ensureN8n, freePort, importCredentials, importWorkflow, n8nEnv, newState, removeState, removeTemplate } from '../test/e2e/n8n';

function rssKiB(pid: number): number {
	try {
		const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return m ? Number(m[1]) : 0;
	} catch {
		return 0;
	}
}

async function executeSampled(state: string, id: string): Promise<{ peakMiB: number; code: number | null; ms: number; out: string }> {
	const env = n8nEnv(state, await freePort());
	const start = Date.now();
	const child = spawn(NODE24, [N8N_BIN, 'execute', `--id=${id}`, '--rawOutput'], { env, cwd: state });
	let peak = 0;
	let out = '';
	child.stdout.on('data', (d) => (out += d));
	child.stderr.on('data', (d) => (out += d));
	const timer = setInterval(() => (peak = Math.max(peak, rssKiB(child.pid!))), 25);
	const code = await new Promise<number | null>((r) => child.on('close', r));
	clearInterval(timer);
	return { peakMiB: peak / 1024, code, ms: Date.now() - start, out };
}

export interface MemoryResult {
	fileMiB: number;
	baselinePeakMiB: number;
	downloadResultGrowthMiB: number;
	httpRequestGrowthMiB: number;
	downloadResultMs: number;
	httpRequestMs: number;
}

export async function benchMemory(bytes = 1024 * 1024 * 1024): Promise<MemoryResult> {
	ensureN8n();
	const sim = await startSimulator({ quiet: true, videoLatencyMs: 20, videoBytes: bytes });
	const state = await newState();
	try {
		const headers = { authorization: `Bearer ${sim.keys.demo}`, 'content-type': 'application/json' };
		const created = (await (await request(`${sim.baseUrl}/v1/videos`, { method: 'POST', headers, body: JSON.stringify({ model: 'delta-video-2-0-mini-260615', prompt: 'bench', generate_audio: false, watermark: false }) })).body.json()) as { id: string };
		await new Promise((r) => setTimeout(r, 100));
		const task = (await (await request(`${sim.baseUrl}/v1/videos/${created.id}`, { headers })).body.json()) as { result_url: string };
		await importCredentials(state, [{ id: 'ggbench', name: 'bench', type: 'genGatewayApi', data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl } }]);
		const wf = (id: string, node: Record<string, unknown> | undefined) => ({
			id,
			name: id,
			active: false,
			settings: { executionOrder: 'v1' },
			nodes: [{ id: 't', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }, ...(node ? [{ id: 'd', name: 'Download', position: [200, 0], ...node }] : [])],
			connections: node ? { Start: { main: [[{ node: 'Download', type: 'main', index: 0 }]] } } : {},
		});
		await importWorkflow(state, wf('ggbench0', undefined));
		await importWorkflow(state, wf('ggbench1', { type: 'n8n-nodes-gen-gateway.genGatewayDownloadResult', typeVersion: 1, parameters: { source: 'url', url: task.result_url, resultType: 'video' }, credentials: { genGatewayApi: { id: 'ggbench', name: 'bench' } } }));
		await importWorkflow(state, wf('ggbench2', { type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters: { url: task.result_url, options: { response: { response: { responseFormat: 'file' } } } } }));
		const base = await executeSampled(state, 'ggbench0');
		const ours = await executeSampled(state, 'ggbench1');
		const theirs = await executeSampled(state, 'ggbench2');
		for (const [name, r] of [['baseline', base], ['Download Result', ours], ['HTTP Request', theirs]] as const) if (!r.out.includes('"status": "success"')) throw new Error(`${name} failed (exit ${r.code}): ${r.out.slice(-1500)}`);
		if (!ours.out.includes(`"bytes": ${bytes}`)) throw new Error(`Download Result did not report ${bytes} bytes`);
		return {
			fileMiB: bytes / 1048576,
			baselinePeakMiB: base.peakMiB,
			downloadResultGrowthMiB: ours.peakMiB - base.peakMiB,
			httpRequestGrowthMiB: theirs.peakMiB - base.peakMiB,
			downloadResultMs: ours.ms,
			httpRequestMs: theirs.ms,
		};
	} finally {
		await sim.stop();
		removeState(state);
		removeTemplate();
	}
}

if (require.main === module) benchMemory(Number(process.argv[2] ?? 1024 * 1024 * 1024)).then((r) => console.log(r));
