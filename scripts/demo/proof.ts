/**
 * What a demo run leaves beside summary.json for a judge that comes later (test/e2e/demo.test.ts and
 * pipeline.test.ts judge the CI demo step's run from it instead of running the same workflows again), and whether a
 * proof on disk is this checkout's.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { LedgerEntry, RequestLogEntry } from '../../simulator/state';
import { ROOT } from '../lib/repo';
import { N8N_VERSION } from '../lib/n8n/runtime';
import { buildStamp, treeHash } from '../lib/n8n/stamp';
import type { PipelineReport } from '../pipeline/run';
import type { SummaryEntry } from './summary';

/**
 * <outDir>/demo-proof.json: which build and n8n ran what, the gateway's request log and ledger (an embedded simulator
 * only), the key scan of n8n's state and output, and the pipeline's report.
 */
export interface DemoProof {
	/** demoStamp() of the run: the n8n version, the built package, examples/, scripts/ and simulator/ */
	stamp: string;
	n8nVersion: string;
	nodeVersion: string;
	/** the embedded simulator, a simulator a caller handed in, or a real gateway (GATEWAY_*) */
	gateway: 'embedded' | 'given' | 'external';
	/** the workflows that ran */
	workflows: string[];
	/** the workflows chosen that this n8n cannot run (summary.json says why) */
	skipped: string[];
	pipeline: boolean;
	/** the summary's entries (as summary.json) */
	entries: SummaryEntry[];
	/** the simulator's request log and ledger of the workflows (not of the pipeline, which has its own) */
	log?: RequestLogEntry[];
	ledger?: LedgerEntry[];
	/** the API key in n8n's state folder (database included) and in everything n8n printed */
	keyScan?: { files: number; database: boolean; foundIn: string[]; inOutput: boolean };
	pipelineReport?: PipelineReport;
	/** per workflow with a spend check: the execution's custom data as n8n stored it in its database */
	customData?: Record<string, Record<string, string>>;
	ok: boolean;
}

/** The stamp a demo proof must carry to count as this checkout's: n8n version, build, examples, scripts, simulator. */
export function demoStamp(): string {
	return `${buildStamp()}-${treeHash(['examples', 'scripts', 'simulator'])}`;
}

/** The proof of the demo that wrote `outDir` (default out/), when it ran this checkout's build in this n8n; else undefined. */
export function freshDemoProof(outDir = join(ROOT, 'out')): DemoProof | undefined {
	let proof: DemoProof;
	try {
		proof = JSON.parse(readFileSync(join(outDir, 'demo-proof.json'), 'utf8')) as DemoProof;
	} catch {
		return undefined;
	}
	return proof.stamp === demoStamp() && proof.n8nVersion === N8N_VERSION ? proof : undefined;
}

/** The key in every file of n8n's state folders (one per lane) but the installed packages, and in what n8n printed. */
export function scanForKey(
	states: string[],
	output: string,
	key: string,
): NonNullable<DemoProof['keyScan']> {
	const bytes = Buffer.from(key);
	const walk = (dir: string): string[] =>
		readdirSync(dir).flatMap((f) =>
			statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)],
		);
	// each state the demo ran workflows in (one per lane)
	const scanned = states.map((state) => ({
		state,
		files: walk(join(state, '.n8n')).filter((f) => !f.includes('node_modules')),
	}));
	return {
		files: scanned.reduce((n, s) => n + s.files.length, 0),
		database: scanned.every((s) => s.files.some((f) => f.endsWith('database.sqlite'))),
		foundIn: scanned.flatMap((s, k) =>
			s.files
				.filter((f) => readFileSync(f).includes(bytes))
				.map((f) => `${scanned.length > 1 ? `lane ${k + 1}: ` : ''}${relative(s.state, f)}`),
		),
		inOutput: output.includes(key),
	};
}
