/**
 * The main job: the demo workflows in a real n8n against the embedded gateway simulator (or any gateway given
 * by GATEWAY_BASE_URL / GATEWAY_VIDEO_BASE_URL / GATEWAY_API_KEY). Writes the generated files to out/ and
 * out/summary.json; exits 0 only when every step did what it should.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { imageSize } from 'image-size';
import sharp from 'sharp';
import { startSimulator, type Simulator } from '../simulator';
import { CRED, INPUT, OUT, WORKFLOWS, toN8n, type DemoWorkflow } from './demo/workflows';
import { ROOT, ensureN8n, executeWorkflow, importCredentials, importWorkflow, newState, nodeOutput, removeState, removeTemplate, type ExecuteResult } from '../test/e2e/n8n';

export interface SummaryEntry {
	workflow: string;
	step: string;
	ok: boolean;
	task_id?: string;
	error?: string;
	files: Array<{ path: string; mime: string; bytes: number; width?: number; height?: number }>;
}

const log = (s: string) => process.stdout.write(`${s}\n`);

function sniff(buf: Buffer): { mime: string; width?: number; height?: number } {
	if (buf.subarray(4, 8).toString('latin1') === 'ftyp') return { mime: 'video/mp4' };
	try {
		const r = imageSize(buf);
		const mime = r.type === 'jpg' ? 'image/jpeg' : `image/${r.type}`;
		return { mime, width: r.width, height: r.height };
	} catch {
		/* not an image */
	}
	const text = buf.subarray(0, 2000).toString('utf8');
	if (/^[^\n]*,[^\n]*\n/.test(text)) return { mime: 'text/csv' };
	return { mime: 'text/plain' };
}

function filesIn(dir: string): SummaryEntry['files'] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((f) => statSync(join(dir, f)).isFile())
		.sort()
		.map((f) => {
			const p = join(dir, f);
			const head = readFileSync(p);
			return { path: relative(ROOT, p), bytes: statSync(p).size, ...sniff(head) };
		});
}

function checkWorkflow(w: DemoWorkflow, res: ExecuteResult, outDir: string): SummaryEntry[] {
	const entries: SummaryEntry[] = [];
	const runError = res.data?.data?.resultData?.error?.message ?? (res.code !== 0 ? `n8n execute exited ${res.code}: ${res.stderr.trim().split('\n').slice(-3).join(' ')}` : undefined);
	for (const [node, output, min] of w.expect) {
		const items = nodeOutput(res, node, output);
		const failed = nodeOutput(res, node, 1).filter(() => node === 'Task Wait');
		const taskIds = [...new Set(items.map((i) => i.json.task_id).filter((t): t is string => typeof t === 'string'))];
		const problems: string[] = [];
		if (items.length < min) problems.push(`expected at least ${min} item(s) on output ${output}, got ${items.length}`);
		if (failed.length) problems.push(`${failed.length} item(s) failed: ${String(failed[0].json.error)}`);
		const bad = items.find((i) => i.json.error || i.json.submission_uncertain);
		if (bad) problems.push(String(bad.json.error ?? `uncertain: ${bad.json.reason}`));
		entries.push({ workflow: w.folder, step: node, ok: !problems.length && !runError, ...(taskIds.length ? { task_id: taskIds.join(',') } : {}), ...(problems.length || runError ? { error: problems.join('; ') || runError } : {}), files: [] });
	}
	const files = filesIn(join(outDir, w.folder));
	const fileProblem = !files.length ? 'no file written' : files.find((f) => f.bytes === 0) ? 'an empty file was written' : undefined;
	entries.push({ workflow: w.folder, step: 'files', ok: !fileProblem && !runError, ...(fileProblem || runError ? { error: fileProblem ?? runError } : {}), files });
	return entries;
}

function table(entries: SummaryEntry[]): string {
	const rows = entries.map((e) => [e.ok ? 'ok' : 'FAIL', e.workflow, e.step, e.task_id ?? '', e.files.map((f) => `${f.path.split('/').pop()} ${f.mime}${f.width ? ` ${f.width}x${f.height}` : ''} ${f.bytes}B`).join(', ') || (e.error ?? '')]);
	const head = ['', 'workflow', 'step', 'task_id', 'files / error'];
	const widths = head.map((h, k) => Math.min(60, Math.max(h.length, ...rows.map((r) => r[k].length))));
	const line = (r: string[]) => r.map((c, k) => c.slice(0, 90).padEnd(widths[k])).join('  ');
	return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export async function runDemo(opts: { only?: string[]; outDir?: string; sim?: Simulator; inspectState?: (stateDir: string, output: string) => void } = {}): Promise<{ entries: SummaryEntry[]; ok: boolean }> {
	const outDir = opts.outDir ?? join(ROOT, 'out');
	const inputDir = join(outDir, 'demo-input');
	log('[demo] real n8n 2.41.1 (first run installs it, about 6 minutes)');
	ensureN8n();
	const external = process.env.GATEWAY_BASE_URL;
	let sim = opts.sim;
	let ownSim = false;
	if (!external && !sim) {
		sim = await startSimulator({ quiet: true, taskLatencyMs: 2000, pollAfterMs: 500, videoLatencyMs: 3000, videoBytes: 2_000_000 });
		ownSim = true;
		log(`[demo] embedded gateway simulator at ${sim.baseUrl} (video origin ${sim.altBaseUrl})`);
	} else if (external) log(`[demo] using the gateway at ${external}`);
	const baseUrl = external ?? sim!.baseUrl;
	const videoBaseUrl = external ? (process.env.GATEWAY_VIDEO_BASE_URL ?? '') : sim!.altBaseUrl;
	const apiKey = external ? (process.env.GATEWAY_API_KEY ?? '') : sim!.keys.demo;
	if (external && !apiKey) throw new Error('GATEWAY_API_KEY is required with GATEWAY_BASE_URL');

	const workflows = WORKFLOWS.filter((w) => !opts.only || opts.only.includes(w.folder));
	for (const w of workflows) {
		rmSync(join(outDir, w.folder), { recursive: true, force: true });
		mkdirSync(join(outDir, w.folder), { recursive: true });
	}
	mkdirSync(inputDir, { recursive: true });
	await sharp({ create: { width: 512, height: 512, channels: 3, background: { r: 30, g: 110, b: 160 } } }).png().toFile(join(inputDir, 'input.png'));

	log('[demo] packing the package and installing it the way n8n installs community packages');
	const state = await newState();
	try {
		await importCredentials(state, [{ id: 'ggdemocred', name: 'GenGateway account', type: 'genGatewayApi', data: { apiKey, baseUrl, videoBaseUrl } }]);
		const entries: SummaryEntry[] = [];
		let output = '';
		for (const w of workflows) {
			const json = JSON.stringify(toN8n(w)).split(CRED).join('ggdemocred').split(INPUT).join(inputDir).split(OUT).join(outDir);
			await importWorkflow(state, JSON.parse(json));
			const started = Date.now();
			process.stdout.write(`[demo] ${w.folder.padEnd(14)} … `);
			const res = await executeWorkflow(state, w.id, { fileAccess: [outDir, inputDir], timeoutMs: 240_000 });
			output += res.stdout + res.stderr;
			const got = checkWorkflow(w, res, outDir);
			entries.push(...got);
			log(`${got.every((e) => e.ok) ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
		}
		const ok = entries.every((e) => e.ok);
		opts.inspectState?.(state, output);
		writeFileSync(join(outDir, 'summary.json'), JSON.stringify(entries, null, 2) + '\n');
		log(`\n${table(entries)}\n\n[demo] ${ok ? 'every step did what it should' : 'some steps failed'}; summary in ${relative(ROOT, join(outDir, 'summary.json'))}`);
		return { entries, ok };
	} finally {
		removeState(state);
		removeTemplate();
		if (ownSim) await sim!.stop();
	}
}

if (require.main === module) {
	const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
	runDemo({ only: only.length ? only : undefined }).then(
		(r) => process.exit(r.ok ? 0 : 1),
		(err) => {
			console.error(`[demo] ${(err as Error).message}`);
			process.exit(1);
		},
	);
}
