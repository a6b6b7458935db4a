/**
 * Runs generated cases against the hostile gateway in-process and checks the invariants; on failure prints the
 * seed, the path, the shrunk case and a one-line command that replays it. FUZZ_RUNS, FUZZ_SEED, FUZZ_PATH and
 * FUZZ_TIME_MS steer it (scripts/fuzz.sh sets them for `npm run fuzz -- --runs N`).
 */
import fc from 'fast-check';
import { LoggerProxy } from 'n8n-workflow';
import { cleanupBinaryData, runWorkflow, type RunResult } from '../harness/workflow';
import { rssSampler } from '../reliability/scenarios';
import { HostileGateway } from './hostile-gateway';
import { WALL_BOUND_MS, violations, type Measures } from './invariants';
import { makeMedia, type Media } from './media';
import { buildInput, buildNode, describeCase, type RunCase } from './runs';

/** A key whose raw, percent-encoded and base64 forms all differ. */
export const KEY = 'sk-prop/Key+Z9=abcdefghij0123456789';

/** A run still going after this long is a hang: it is cancelled and reported, so one hang cannot stall the property. */
const HANG_MS = 2 * WALL_BOUND_MS;

export interface Fixture {
	gw: HostileGateway;
	media: Media;
	png: Buffer;
}

export async function startFixture(): Promise<Fixture> {
	const media = await makeMedia();
	const gw = new HostileGateway(KEY, media);
	await gw.start();
	return { gw, media, png: media.image('png').bytes };
}

/** A test file's fixture: logs captured and the hostile gateway started before its tests, stopped after them. */
export function useFixture(): () => Fixture {
	let f: Fixture | undefined;
	beforeAll(async () => {
		captureLogs();
		f = await startFixture();
	});
	afterAll(async () => {
		await f?.gw.stop();
		cleanupBinaryData();
	});
	return () => f!;
}

/** Everything the nodes and n8n write to the console or to n8n's logger during a run. */
const logs: string[] = [];
let capturing = false;
const fmt = (args: unknown[]) => args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? `${a.message} ${a.stack ?? ''}` : safeJson(a))).join(' ');
function safeJson(v: unknown): string {
	try {
		return JSON.stringify(v) ?? String(v);
	} catch {
		return String(v);
	}
}

export function captureLogs(): void {
	if (capturing) return;
	capturing = true;
	const push = (level: string) => (message: string, meta?: object) => logs.push(`${level} ${message} ${meta ? safeJson(meta) : ''}`);
	LoggerProxy.init({ error: push('error'), warn: push('warn'), info: push('info'), debug: push('debug') } as never);
	for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
		const original = console[level].bind(console);
		console[level] = (...args: unknown[]) => {
			logs.push(`${level} ${fmt(args)}`);
			if (process.env.FUZZ_VERBOSE) original(...args);
		};
	}
}

export interface Outcome {
	result: RunResult;
	measures: Measures;
	problems: string[];
}

export async function runOne(f: Fixture, c: RunCase): Promise<Outcome> {
	const { items, tasks } = buildInput(c, f.gw, f.png);
	f.gw.load(c.script, tasks);
	logs.length = 0;
	const memory = rssSampler();
	const started = Date.now();
	let cancel: (() => void) | undefined;
	let timer: NodeJS.Timeout | undefined;
	const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), HANG_MS)));
	const running = runWorkflow({ nodes: [buildNode(c)], input: items, credentials: { apiKey: KEY, baseUrl: f.gw.origin }, onStart: (p) => (cancel = p.cancel) });
	const result = await Promise.race([running, hung]);
	clearTimeout(timer);
	if (result === 'hung') {
		cancel?.();
		// the cancelled execution may still settle later; nothing waits for it
		running.catch(() => undefined);
		memory.stop();
		throw new Error(`${describeCase(c)}\n  - [wall-time] the run had not ended after ${HANG_MS} ms (bound ${WALL_BOUND_MS} ms); it was cancelled`);
	}
	const measures: Measures = { wallMs: Date.now() - started, rssGrowthMiB: memory.stop(), logs: [...logs] };
	return { result, measures, problems: await violations(c, f.gw, result, measures) };
}

export interface Budget {
	/** runs when FUZZ_RUNS is not set (the CI budget) */
	runs: number;
	/** stop generating (and shrinking) after this long, ms */
	timeMs: number;
}

/** fc.check over `arb`, failing with the seed, path, shrunk case and the replay command. */
export async function checkProperty(file: string, f: Fixture, arb: fc.Arbitrary<RunCase>, budget: Budget): Promise<void> {
	const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
	const path = process.env.FUZZ_PATH || undefined;
	const runs = Number(process.env.FUZZ_RUNS ?? budget.runs);
	const timeMs = Number(process.env.FUZZ_TIME_MS ?? (process.env.FUZZ_RUNS ? 24 * 3600_000 : budget.timeMs));
	let ran = 0;
	const details = await fc.check(
		fc.asyncProperty(arb, async (c) => {
			ran++;
			const { problems, measures } = await runOne(f, c);
			if (process.env.FUZZ_VERBOSE) process.stdout.write(`${describeCase(c)}: ${measures.wallMs} ms${problems.length ? ` ✗ ${problems.length}` : ''}\n`);
			if (problems.length) throw new Error(`${describeCase(c)}\n  - ${problems.join('\n  - ')}`);
		}),
		{ numRuns: runs, seed, path, interruptAfterTimeLimit: timeMs, markInterruptAsFailure: false, endOnFailure: process.env.FUZZ_SHRINK === '0' },
	);
	process.stdout.write(`${file}: ${details.numRuns} generated runs (${ran} with shrinking), seed ${details.seed}${details.interrupted ? ', stopped by the time budget' : ''}\n`);
	if (!details.failed) return;
	const counterexample = details.counterexample?.[0] as RunCase | undefined;
	const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} npx jest test/property/${file}`;
	const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
	const message = [
		`Property failed after ${details.numRuns} run(s), ${details.numShrinks} shrink(s).`,
		`seed: ${details.seed}  path: ${details.counterexamplePath}`,
		`replay: ${replay}`,
		`what broke: ${error}`,
		`case: ${JSON.stringify(abbreviate(counterexample)).slice(0, 6000)}`,
	].join('\n');
	process.stdout.write(`\n${message}\n`);
	throw new Error(message);
}

/** Long generated strings, wide arrays and deep nesting, abbreviated in the printed case. */
function abbreviate(v: unknown, depth = 0): unknown {
	if (typeof v === 'string') return v.length > 200 ? `${v.slice(0, 60)}…(${v.length} chars)` : v;
	if (!v || typeof v !== 'object') return v;
	if (depth > 12) return '…(deeper)';
	if (Array.isArray(v)) return v.length > 50 ? `[${v.length} items]` : v.map((x) => abbreviate(x, depth + 1));
	return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, abbreviate(x, depth + 1)]));
}
