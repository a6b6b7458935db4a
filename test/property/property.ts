/**
 * Runs generated cases against the hostile gateway in-process and checks the invariants; on failure prints the
 * seed, the path, the shrunk case and a one-line command that replays it. FUZZ_RUNS, FUZZ_SEED, FUZZ_PATH and
 * FUZZ_TIME_MS steer it (scripts/fuzz.sh sets them for `npm run fuzz -- --runs N`).
 */
import fc from 'fast-check';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LoggerProxy } from 'n8n-workflow';
import {
	cleanupBinaryData,
	initBinaryData,
	runWorkflow,
	type RunResult,
} from '../harness/workflow';
import { rssSampler } from '../reliability/scenarios';
import { HostileGateway } from './hostile-gateway';
import {
	WALL_BOUND_MS,
	outputsOf,
	violations,
	type Chunk,
	type Measures,
	type StoredFile,
} from './invariants';
import { makeMedia, type Media } from './media';
import { buildInput, buildNode, describeCase, type RunCase } from './runs';
import { fuzzParameters, report, type Budget, checkAsync } from './check';

export type { Budget } from './check';

import { KEY } from './key';

export { KEY };

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
		seenWorkflows.clear();
	});
	return () => f!;
}

/** Everything the nodes and n8n write to the console or to n8n's logger during a run. */
export const logs: string[] = [];
let capturing = false;
const fmt = (args: unknown[]) =>
	args
		.map((a) =>
			typeof a === 'string'
				? a
				: a instanceof Error
					? `${a.message} ${a.stack ?? ''}`
					: safeJson(a),
		)
		.join(' ');
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
	const push = (level: string) => (message: string, meta?: object) =>
		logs.push(`${level} ${message} ${meta ? safeJson(meta) : ''}`);
	LoggerProxy.init({
		error: push('error'),
		warn: push('warn'),
		info: push('info'),
		debug: push('debug'),
	} as never);
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

/**
 * The metadata files n8n's filesystem binary store has written (`<id>.metadata`: file name, MIME type, size). Each
 * run is a new workflow (`workflows/wf<n>/…`): only the workflow folders not seen before are read, so a call costs
 * the same after a thousand runs as after one.
 */
const seenWorkflows = new Set<string>();
/** What the binary store wrote since the last call: the metadata files of the runs since, each with its text. */
export async function newlyStored(): Promise<StoredFile[]> {
	const dir = await initBinaryData();
	const out: StoredFile[] = [];
	const root = join(dir, 'workflows');
	for (const wf of await readdir(root).catch(() => [] as string[])) {
		if (seenWorkflows.has(wf)) continue;
		seenWorkflows.add(wf);
		const entries = await readdir(join(root, wf), { recursive: true, withFileTypes: true }).catch(
			() => [],
		);
		for (const e of entries) {
			if (!e.isFile() || !e.name.endsWith('.metadata')) continue;
			const path = join(e.parentPath, e.name);
			out.push({
				path: path.slice(dir.length),
				text: await readFile(path, 'utf8').catch(() => ''),
			});
		}
	}
	return out;
}

export async function runOne(f: Fixture, c: RunCase): Promise<Outcome> {
	const { items, tasks } = buildInput(c, f.gw, f.png);
	f.gw.load(c.script, tasks);
	await newlyStored();
	logs.length = 0;
	const chunks: Chunk[] = [];
	const memory = rssSampler();
	const started = Date.now();
	let cancel: (() => void) | undefined;
	let timer: NodeJS.Timeout | undefined;
	const hung = new Promise<'hung'>(
		(resolve) => (timer = setTimeout(() => resolve('hung'), HANG_MS)),
	);
	const running = runWorkflow({
		nodes: [buildNode(c)],
		input: items,
		credentials: { apiKey: KEY, baseUrl: f.gw.origin },
		onStart: (p) => (cancel = p.cancel),
		...(c.n8nStreams ? { onChunk: (chunk: Chunk) => chunks.push(chunk) } : {}),
	});
	const result = await Promise.race([running, hung]);
	clearTimeout(timer);
	if (result === 'hung') {
		cancel?.();
		// the cancelled execution may still settle later; nothing waits for it
		running.catch(() => undefined);
		memory.stop();
		throw new Error(
			`${describeCase(c)}\n  - [wall-time] the run had not ended after ${HANG_MS} ms (bound ${WALL_BOUND_MS} ms); it was cancelled`,
		);
	}
	const measures: Measures = {
		wallMs: Date.now() - started,
		rssGrowthMiB: memory.stop(),
		logs: [...logs],
		chunks,
		stored: await newlyStored(),
	};
	const checking = Date.now();
	const problems = await violations(c, f.gw, result, measures);
	if (process.env.FUZZ_VERBOSE)
		process.stdout.write(`  (invariants checked in ${Date.now() - checking} ms)\n`);
	return { result, measures, problems };
}

/** fc.check over `arb`, failing with the seed, path, shrunk case and the replay command. */
export async function checkProperty(
	file: string,
	f: Fixture,
	arb: fc.Arbitrary<RunCase>,
	budget: Budget,
): Promise<void> {
	const testName = expect.getState().currentTestName;
	let ran = 0;
	// runs whose paid node drew its options from its description, and of those how many sent a paid request
	let described = 0;
	let reached = 0;
	// a run the time budget abandons is awaited before the check ends (checkAsync; a run ends within HANG_MS)
	const details = await checkAsync(
		arb,
		async (c) => {
			ran++;
			const { problems, measures, result } = await runOne(f, c);
			if (c.described) {
				described++;
				if (f.gw.log.some((l) => l.cls === 'paid')) reached++;
			}
			if (process.env.FUZZ_VERBOSE)
				process.stdout.write(
					`${describeCase(c)}: ${measures.wallMs} ms${problems.length ? ` ✗ ${problems.length}` : ''}\n  ${f.gw.log.filter((l) => l.cls === 'paid').length} paid POST(s); out (output, status, failed_at, message): ${JSON.stringify(outputsOf(result).map((o) => [o.output, o.item.json.status, o.item.json.failed_at, String(o.item.json.error_message ?? (o.item.json.error as { message?: string } | undefined)?.message ?? '').slice(0, 160)]))}${result.run.data.resultData.error ? `; the node threw: ${result.run.data.resultData.error.message.slice(0, 200)}` : ''}\n`,
				);
			if (problems.length) throw new Error(`${describeCase(c)}\n  - ${problems.join('\n  - ')}`);
		},
		fuzzParameters<[RunCase]>(budget),
	);
	report(
		file,
		details as fc.RunDetails<unknown>,
		ran,
		testName,
		described
			? `${described} with options drawn from the node's description (${reached} of them sent a paid request)`
			: undefined,
	);
}
