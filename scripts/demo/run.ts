/**
 * The demo's run (`npm run demo`'s library; the command line is scripts/demo.ts): the workflows of examples/ in a real
 * n8n with `n8n execute`, against the embedded gateway simulator, a simulator a caller hands in, or any gateway given by
 * GATEWAY_BASE_URL / GATEWAY_VIDEO_BASE_URL / GATEWAY_API_KEY, with the scheduled pipeline beside them. Writes the
 * generated files to <out>/<workflow>/, n8n's run data to <out>/runs/<workflow>.json, <out>/summary.json (one entry per
 * step) and <out>/demo-proof.json; prints its progress as it goes and returns the summary's entries, whether every
 * step did what it should, n8n's runs and the proof.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Simulator } from '../../simulator';
import { scriptGateway } from '../gateway';
import { ROOT } from '../lib/repo';
import { N8N_MAJOR, N8N_VERSION, NODE_VERSION, ensureN8n, n8nInstalled } from '../lib/n8n/runtime';
import { executeWorkflow, storedCustomData, type ExecuteResult } from '../lib/n8n/cli';
import { importCredentials } from '../lib/n8n/imports';
import { newState, removeState } from '../lib/n8n/state';
import {
	FAILING,
	demoPrompts,
	pipelineEntries,
	runPipeline,
	type PipelineReport,
} from '../pipeline/run';
import { budgetForGateway } from './budget';
import { textModelsOfKey } from './models';
import { binaryStoreBytes, importWorkflows } from './n8n-more';
import { demoStamp, scanForKey, type DemoProof } from './proof';
import { runServerWorkflows } from './server';
import { judgeApproval, judgeSpendReport } from './server-judge';
import { checkWorkflow, skippedEntry, type SummaryEntry } from './summary';
import { CREDENTIAL_ID, WORKFLOWS, loadExample, runsOnN8n } from './workflows';

/** the scheduled pipeline (examples/pipeline-*.json), run by `n8n start` rather than `n8n execute` */
export const PIPELINE_NAME = 'pipeline';

export interface DemoOptions {
	/** workflow names (folders) to run; all when absent */
	only?: string[];
	/** where files, runs/ and summary.json go (default out/) */
	outDir?: string;
	/** a simulator to run against instead of starting one (tests) */
	sim?: Simulator;
	/** called with n8n's state folder and everything n8n printed, before the state is removed (tests) */
	inspectState?: (stateDir: string, output: string) => void;
	/** per-workflow timeout of `n8n execute` (default 15 minutes: real videos take a while) */
	timeoutMs?: number;
}

export interface DemoResult {
	entries: SummaryEntry[];
	ok: boolean;
	/** n8n's result per workflow */
	runs: Record<string, ExecuteResult>;
	/** what <outDir>/demo-proof.json holds */
	proof: DemoProof;
	/** where summary.json, runs/ and the files went */
	outDir: string;
}

const out = (s: string) => process.stdout.write(s);
const log = (s: string) => out(`${s}\n`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function mb(bytes: number): string {
	return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A 768x512 landscape for "image edit from a file on disk". */
async function writeInputImage(file: string): Promise<void> {
	const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="768" height="512">
<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2b5fa8"/><stop offset="1" stop-color="#f3c58b"/></linearGradient></defs>
<rect width="768" height="512" fill="url(#sky)"/><circle cx="560" cy="190" r="64" fill="#ffe9a8"/>
<path d="M0 360 Q 190 250 380 350 T 768 330 V 512 H 0 Z" fill="#3d7a4f"/><path d="M0 420 Q 260 350 520 430 T 768 420 V 512 H 0 Z" fill="#2c5e3b"/>
<rect x="150" y="300" width="90" height="70" fill="#f4efe6"/><path d="M140 305 L195 258 L250 305 Z" fill="#a8432f"/><rect x="185" y="330" width="22" height="40" fill="#6b4a2f"/>
</svg>`;
	await sharp(Buffer.from(svg)).png().toFile(file);
}

/** how many workflows run at once, each lane in its own n8n state (its own SQLite database): an `n8n execute` spends
 * much of its time starting n8n and waiting on the gateway, so two lanes keep two cores busy */
const LANES = 2;

/**
 * Runs the workflows in LANES lanes (workflow k in lane k mod LANES, each lane one after another in its own state) and
 * hands each result to `done` in the workflows' order, as soon as it and all before it have finished. On a terminal, a
 * status line shows what is running, for how long, and the bytes landing in n8n's binary stores.
 */
async function executeInLanes<W extends { id: string; folder: string }>(
	lanes: Array<{ state: string; workflows: W[] }>,
	order: W[],
	opts: { fileAccess: string[]; timeoutMs: number },
	done: (w: W, state: string, res: ExecuteResult, ms: number) => void,
): Promise<void> {
	const results = new Map<string, { state: string; res: ExecuteResult; ms: number }>();
	const running = new Map<string, number>();
	const tty = process.stdout.isTTY;
	const store0 = lanes.map((l) => binaryStoreBytes(l.state));
	let next = 0;
	let lastPlain = Date.now();
	const status = () => {
		const got = lanes.reduce((n, l, k) => n + binaryStoreBytes(l.state) - store0[k], 0);
		return `[demo] running ${[...running].map(([f, t]) => `${f} ${secs(Date.now() - t)}`).join(', ')}${got > 1_000_000 ? `; ${mb(got)} downloaded` : ''}`;
	};
	const clear = () => tty && out('\r\x1b[2K');
	const flush = () => {
		while (next < order.length && results.has(order[next].folder)) {
			const w = order[next++];
			const r = results.get(w.folder)!;
			clear();
			out(`[demo] ${w.folder.padEnd(14)} … `);
			done(w, r.state, r.res, r.ms);
		}
	};
	const timer = setInterval(() => {
		if (!running.size) return;
		if (tty) out(`\r\x1b[2K${status()}`);
		else if (Date.now() - lastPlain >= 20_000) {
			lastPlain = Date.now();
			log(`${status()} (still running)`);
		}
	}, 1000);
	try {
		await Promise.all(
			lanes.map(async (lane) => {
				for (const w of lane.workflows) {
					const started = Date.now();
					running.set(w.folder, started);
					try {
						const res = await executeWorkflow(lane.state, w.id, opts);
						results.set(w.folder, { state: lane.state, res, ms: Date.now() - started });
					} finally {
						running.delete(w.folder);
					}
					flush();
				}
			}),
		);
	} finally {
		clearInterval(timer);
		clear();
	}
}

export async function runDemo(opts: DemoOptions = {}): Promise<DemoResult> {
	const outDir = opts.outDir ?? join(ROOT, 'out');
	const inputDir = join(outDir, 'demo-input');
	const runsDir = join(outDir, 'runs');
	const unknown = (opts.only ?? []).filter(
		(o) => o !== PIPELINE_NAME && !WORKFLOWS.some((w) => w.folder === o),
	);
	if (unknown.length)
		throw new Error(
			`unknown workflow(s): ${unknown.join(', ')}; choose from ${[...WORKFLOWS.map((w) => w.folder), PIPELINE_NAME].join(', ')}`,
		);
	const chosen = WORKFLOWS.filter((w) => !opts.only || opts.only.includes(w.folder));
	const workflows = chosen.filter((w) => runsOnN8n(w, N8N_MAJOR));
	const skipped = chosen.filter((w) => !runsOnN8n(w, N8N_MAJOR));
	const withPipeline = !opts.only || opts.only.includes(PIPELINE_NAME);

	if (!n8nInstalled())
		log(
			`[demo] installing a private n8n ${N8N_VERSION} with its own Node ${NODE_VERSION} (once, about 5 minutes)`,
		);
	ensureN8n();
	log(`[demo] n8n ${N8N_VERSION} on Node ${NODE_VERSION}`);

	const gateway = await scriptGateway(opts.sim, 2_000_000);
	log(`[demo] ${gateway.describe}`);
	const { baseUrl, videoBaseUrl, apiKey } = gateway;
	const external = !gateway.sim;
	// only the embedded simulator (or one handed in that plays it) is known to give what the spec does not define
	const beyondSpecUnknown = external || gateway.sim!.state.opts.specOnlyChat;
	const referenceImages = (process.env.GATEWAY_DEMO_REFERENCE_IMAGES ?? '')
		.split(/[\s,]+/)
		.filter(Boolean);

	const credential = {
		id: CREDENTIAL_ID,
		name: 'GenGateway account',
		type: 'genGatewayApi',
		data: { apiKey, baseUrl, videoBaseUrl },
	};
	let state: string | undefined;
	/** the states of the lanes after the first (which is `state`) */
	const laneStates: string[] = [];
	let pipelineRun: Promise<PipelineReport> | undefined;
	/** workflows this gateway cannot run as written, and why (the budget workflow without a per-call price) */
	const gatewaySkips = new Map<string, string>();
	try {
		// a run that stops half-way leaves no proof of an earlier one behind
		rmSync(join(outDir, 'demo-proof.json'), { force: true });
		// a skipped workflow keeps no files of an earlier run either
		for (const w of chosen) rmSync(join(outDir, w.folder), { recursive: true, force: true });
		for (const w of workflows) mkdirSync(join(outDir, w.folder), { recursive: true });
		mkdirSync(inputDir, { recursive: true });
		mkdirSync(runsDir, { recursive: true });
		await writeInputImage(join(inputDir, 'input.png'));

		let t = Date.now();
		const entries: SummaryEntry[] = [];
		const runs: Record<string, ExecuteResult> = {};
		const spent: Record<string, Record<string, string>> = {};
		let output = '';
		let keyScan: DemoProof['keyScan'];
		let pipelineReport: PipelineReport | undefined;
		// the scheduled pipeline runs beside the workflows (its own simulator, n8n and services); its lines are printed
		// when the workflows are done, so the two never interleave
		const pipelineStart = Date.now();
		const pipelineLines: string[] = [];
		const failing = external ? FAILING.filter((p) => !p.prompt.includes('[fail]')) : FAILING;
		const keepDir = join(outDir, PIPELINE_NAME);
		pipelineRun = withPipeline
			? runPipeline({
					prompts: [...demoPrompts(4, 1), ...failing],
					keepDir,
					log: (l) => pipelineLines.push(`  ${l}`),
				})
			: undefined;
		pipelineRun?.catch(() => undefined);
		if (workflows.length) {
			log(
				'[demo] packing the package and installing it into a private n8n home the way n8n installs community packages',
			);
			state = await newState();
			await importCredentials(state, [credential]);
			const withKeyModels = await textModelsOfKey(baseUrl, apiKey, log);
			const loaded: Array<Record<string, unknown>> = [];
			for (const w of workflows) {
				const wf = withKeyModels(
					loadExample(w.folder, { outDir, inputDir, referenceImages }),
					w.folder,
				);
				if (external && w.server === 'approve') {
					// the example names the simulator key's group (hd); another gateway's groups are its own: without a group each
					// cost is a range and the quote counts its highest end
					for (const n of wf.nodes as Array<{ parameters: { options?: Record<string, unknown> } }>)
						delete n.parameters.options?.groupName;
					log(
						`[demo] ${w.folder}: Group Name hd left out (the simulator's group); the quote is an upper bound`,
					);
				}
				if (!w.spend) {
					loaded.push(wf);
					continue;
				}
				// a spend cap needs this gateway's group and price: from its price list, or the workflow is skipped saying why
				const plan = await budgetForGateway(wf as Parameters<typeof budgetForGateway>[0], {
					baseUrl,
					apiKey,
				});
				if ('skip' in plan) {
					gatewaySkips.set(w.folder, plan.skip);
					continue;
				}
				for (const note of plan.notes) log(`[demo] ${w.folder}: ${note}`);
				loaded.push(plan.wf as unknown as Record<string, unknown>);
			}
			const toRun = workflows.filter((x) => !gatewaySkips.has(x.folder));
			// the workflows judged by their time window run last, one after another in the first lane, nothing beside them
			const shared = toRun.filter((x) => !x.alone);
			const alone = toRun.filter((x) => x.alone && !x.server);
			// the workflows that need `n8n start` run after all others, in the first lane's state (scripts/demo/server.ts)
			const approveW = toRun.find((x) => x.server === 'approve');
			const reportW = toRun.find((x) => x.server === 'report');
			const laneCount = Math.max(1, Math.min(LANES, shared.length));
			for (let k = 1; k < laneCount; k++) {
				const extra = await newState();
				laneStates.push(extra);
				await importCredentials(extra, [credential]);
			}
			const lanes = [state, ...laneStates].map((laneState, k) => ({
				state: laneState,
				workflows: shared.filter((_, i) => i % laneCount === k),
			}));
			const byId = (w: (typeof toRun)[number]) => loaded.find((wf) => wf.id === w.id)!;
			await Promise.all(
				lanes.map((lane, k) =>
					importWorkflows(
						lane.state,
						[
							...lane.workflows,
							...(k === 0 ? [...alone, ...(approveW ? [approveW] : [])] : []),
						].map(byId),
					),
				),
			);
			log(
				`[demo] credential and ${loaded.length} workflow(s) from examples/ imported (${secs(Date.now() - t)}); ${laneCount} at a time`,
			);

			const record = (
				w: (typeof toRun)[number],
				laneState: string,
				res: ExecuteResult,
				ms: number,
			) => {
				runs[w.folder] = res;
				output += res.stdout + res.stderr;
				writeFileSync(
					join(runsDir, `${w.folder}.json`),
					res.data ? JSON.stringify(res.data, null, 2) + '\n' : `${res.stdout}\n${res.stderr}`,
				);
				const customData = w.spend ? storedCustomData(laneState, w.id) : undefined;
				if (customData) spent[w.folder] = customData;
				const got = checkWorkflow(w, res, outDir, ROOT, {
					checkLoop: !external,
					customData,
					beyondSpecUnknown,
				});
				checked.set(w.folder, got);
				log(`${got.every((e) => e.ok) ? 'ok' : 'FAILED'} (${secs(ms)})`);
			};
			const checked = new Map<string, SummaryEntry[]>();
			const execOpts = {
				fileAccess: [outDir, inputDir],
				timeoutMs: opts.timeoutMs ?? 15 * 60_000,
			};
			await executeInLanes(lanes, shared, execOpts, record);
			await executeInLanes([{ state, workflows: alone }], alone, execOpts, record);
			if (approveW || reportW) {
				const started = Date.now();
				log(
					`[demo] ${[approveW, reportW]
						.filter(Boolean)
						.map((w) => w!.folder)
						.join(
							' and ',
						)}: in \`n8n start\` (the approval form answered over n8n's form endpoint; the report through n8n's public API)`,
				);
				const server = await runServerWorkflows(state, {
					approve: approveW?.id,
					report: reportW ? byId(reportW) : undefined,
					env: { fileAccess: execOpts.fileAccess },
					timeoutMs: execOpts.timeoutMs,
					log,
				});
				const sim = gateway.sim;
				if (approveW && server.approve) {
					out(`[demo] ${approveW.folder.padEnd(14)} … `);
					record(approveW, state, server.approve.res, Date.now() - started);
					if (sim && server.approve.quoted && server.approve.approved)
						checked
							.get(approveW.folder)!
							.push(
								judgeApproval(
									server.approve.res,
									server.approve.quoted,
									server.approve.approved,
									sim.log,
									sim.ledger,
								),
							);
				}
				if (reportW && server.report) {
					out(`[demo] ${reportW.folder.padEnd(14)} … `);
					record(reportW, state, server.report.res, Date.now() - started);
					if (sim) {
						// the workflows that ran with nothing beside them: their time windows hold only their own charges
						const windows = new Map<string, { folder: string; windows: Array<[number, number]> }>();
						for (const w of alone) {
							const d = runs[w.folder]?.data as
								{ startedAt?: string; stoppedAt?: string } | undefined;
							if (d?.startedAt && d.stoppedAt)
								windows.set(w.id, {
									folder: w.folder,
									windows: [[Date.parse(d.startedAt), Date.parse(d.stoppedAt)]],
								});
						}
						if (approveW && server.approve?.quoted && server.approve.approved)
							windows.set(approveW.id, {
								folder: approveW.folder,
								windows: [server.approve.quoted, server.approve.approved],
							});
						checked
							.get(reportW.folder)!
							.push(judgeSpendReport(server.report.res, windows, sim.ledger));
					}
				}
			}
			// the summary keeps the workflows' order, whatever order they finished in
			for (const w of toRun) entries.push(...(checked.get(w.folder) ?? []));
		}
		for (const w of skipped) {
			const e = skippedEntry(w, N8N_VERSION);
			entries.push(e);
			log(`[demo] ${w.folder.padEnd(14)} skipped: ${e.skipped}`);
		}
		for (const [folder, reason] of gatewaySkips) {
			entries.push({
				workflow: folder,
				step: 'not run',
				ok: true,
				skipped: `${reason} (gateway ${baseUrl})`,
				files: [],
			});
			log(`[demo] ${folder.padEnd(14)} skipped: ${reason}`);
		}
		if (pipelineRun) {
			log(
				`[demo] ${PIPELINE_NAME}: the two scheduled workflows in \`n8n start\` with PostgreSQL, an S3 store and an SMTP mailbox (run beside the workflows above)`,
			);
			const report = await pipelineRun;
			for (const l of pipelineLines) log(l);
			pipelineReport = report;
			const got = pipelineEntries(report, failing.length, keepDir, ROOT);
			entries.push(...got);
			log(
				`[demo] ${PIPELINE_NAME}       ${got.every((e) => e.ok) ? 'ok' : 'FAILED'} (${secs(Date.now() - pipelineStart)})`,
			);
		}
		const ok = entries.every((e) => e.ok);
		if (state) {
			keyScan = scanForKey([state, ...laneStates], output, apiKey);
			for (const st of [state, ...laneStates]) opts.inspectState?.(st, output);
		}
		const proof: DemoProof = {
			stamp: demoStamp(),
			n8nVersion: N8N_VERSION,
			nodeVersion: NODE_VERSION,
			gateway: external ? 'external' : opts.sim ? 'given' : 'embedded',
			workflows: workflows.filter((w) => !gatewaySkips.has(w.folder)).map((w) => w.folder),
			skipped: [...skipped.map((w) => w.folder), ...gatewaySkips.keys()],
			pipeline: withPipeline,
			entries,
			...(gateway.sim ? { log: gateway.sim.log, ledger: gateway.sim.ledger } : {}),
			keyScan,
			pipelineReport,
			customData: spent,
			ok,
		};
		writeFileSync(join(outDir, 'demo-proof.json'), JSON.stringify(proof) + '\n');
		writeFileSync(join(outDir, 'summary.json'), JSON.stringify(entries, null, 2) + '\n');
		return { entries, ok, runs, proof, outDir };
	} finally {
		// a run that stopped early still lets the pipeline stop its own n8n and services
		await pipelineRun?.catch(() => undefined);
		for (const st of [state, ...laneStates]) if (st) removeState(st);
		await gateway.stop();
	}
}
