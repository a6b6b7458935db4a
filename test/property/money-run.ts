/**
 * Runs one generated money case in-process (n8n-core's WorkflowExecute) against the simulator, behind the recording
 * proxy, and judges it with ./money-invariants.ts.
 */
import { startSimulator, type Simulator } from '../../simulator';
import { runWorkflow, type RunResult } from '../harness/workflow';
import { RecordingProxy } from './money-proxy';
import { violations, type Coverage } from './money-invariants';
import type { PriceFacts } from './money-oracle';
import { buildWorkflow, GROUPS, PAID_MODELS, type Group, type MoneyCase } from './money-workflow';

/** Oracles (the letter or word before the colon in a problem's brackets) to look past, e.g. FUZZ_IGNORE=c,e while an older class shows first on old code. */
const IGNORED = new Set((process.env.FUZZ_IGNORE ?? '').split(',').filter(Boolean));

/** A run still going after this long is a hang: it is cancelled and reported. */
const HANG_MS = 60_000;

export interface MoneyFixture {
	sim: Simulator;
	proxy: RecordingProxy;
	proxyUrl: string;
	keys: Record<Group, string>;
	/** a second key in each group: a second account (a second credential) */
	keys2: Record<Group, string>;
}

export async function startMoneyFixture(): Promise<MoneyFixture> {
	const sim = await startSimulator({
		quiet: true,
		taskLatencyMs: 40,
		pollAfterMs: 20,
		videoLatencyMs: 60,
		syncLatencyMs: 1,
		seed: 7,
	});
	const proxy = new RecordingProxy();
	const proxyUrl = await proxy.start(sim.baseUrl);
	// every group the keys can be in enables the models the workflows use
	sim.setPricing({ enable: { internal: PAID_MODELS, partner: PAID_MODELS, nowhere: PAID_MODELS } });
	const keys = Object.fromEntries(
		GROUPS.map((g) => [g, sim.addKey({ name: `money-${g}`, group: g })]),
	) as Record<Group, string>;
	const keys2 = Object.fromEntries(
		GROUPS.map((g) => [g, sim.addKey({ name: `money-${g}-2`, group: g })]),
	) as Record<Group, string>;
	const f = { sim, proxy, proxyUrl, keys, keys2 };
	// warm-up outside the properties' time budgets: n8n-core, the AI SDK and LangChain load on the first agent run
	await runMoneyCase(f, WARM_UP);
	return f;
}

const WARM_UP: MoneyCase = {
	group: 'hd',
	internalRatio: 0.5,
	partnerRatio: 0.6,
	display: { type: 'USD', quotaPerUnit: 500_000 },
	runs: 1,
	knownAll: true,
	faults: [],
	losses: [],
	nodes: [
		{
			kind: 'image',
			name: 'Warm image',
			onError: 'stopWorkflow',
			maxTries: 1,
			vary: 'none',
			options: {
				cap: false,
				spend: false,
				groupName: true,
				groupRatio: false,
				allowUnpriced: false,
			},
			waitForResult: false,
		},
		{
			kind: 'agent',
			name: 'Warm agent',
			onError: 'stopWorkflow',
			maxTries: 1,
			vary: 'none',
			options: {
				cap: false,
				spend: false,
				groupName: false,
				groupRatio: false,
				allowUnpriced: false,
			},
			waitForResult: false,
			chatModel: {
				name: 'Warm model',
				model: 'alpha-chat-4o-mini',
				streaming: true,
				group: 'name',
				batch: 1,
				perItem: false,
			},
		},
	],
	items: [
		[
			{
				cap: '',
				spend: '',
				nameGiven: true,
				ratioGiven: false,
				bad: false,
				fail: false,
				questions: [],
				modelCap: '',
			},
			{
				cap: '',
				spend: '',
				nameGiven: false,
				ratioGiven: false,
				bad: false,
				fail: false,
				questions: [{ arithmetic: true, a: 2, b: 3 }],
				modelCap: '',
			},
		],
	],
};

export async function stopMoneyFixture(f: MoneyFixture | undefined): Promise<void> {
	await f?.proxy.stop();
	await f?.sim.stop();
}

async function getJson(url: string): Promise<Record<string, any>> {
	const res = await fetch(url);
	return (await res.json()) as Record<string, any>;
}

export interface MoneyOutcome {
	problems: string[];
	result: RunResult;
	ms: number;
}

let cases = 0;

export async function runMoneyCase(
	f: MoneyFixture,
	c: MoneyCase,
	cov?: Coverage,
): Promise<MoneyOutcome> {
	// one run, never again: no node shows its fields by a regex condition any more (test/package/editor.test.ts), whose
	// 250 ms budget a loaded machine could overrun; a run stalled that way was run again here before
	const mine = newCoverage();
	const out = await runOnce(f, c, mine);
	if (cov) for (const k of Object.keys(mine) as Array<keyof Coverage>) cov[k] += mine[k];
	return out;
}

async function runOnce(f: MoneyFixture, c: MoneyCase, cov: Coverage): Promise<MoneyOutcome> {
	const { sim, proxy } = f;
	sim.setPricing({
		group_ratio: { internal: c.internalRatio },
		hidden_group_ratio: { partner: c.partnerRatio },
	});
	sim.setStatus({
		quota_display_type: c.display.type,
		quota_per_unit: c.display.quotaPerUnit,
		...(c.display.type === 'CNY' ? { usd_exchange_rate: c.display.rate } : {}),
	});
	// what the gateway publishes, read as any client would
	const [pricing, status] = await Promise.all([
		getJson(`${sim.baseUrl}/api/pricing`),
		getJson(`${sim.baseUrl}/api/status`),
	]);
	const facts: PriceFacts = {
		data: pricing.data,
		group_ratio: pricing.group_ratio,
		usable_group: pricing.usable_group,
		hidden_group_ratio: { partner: c.partnerRatio },
		quotaPerUnit: status.data.quota_per_unit,
	};
	const keyRatio =
		c.group in facts.group_ratio
			? facts.group_ratio[c.group]
			: c.group === 'partner'
				? c.partnerRatio
				: 1;
	sim.reset();
	proxy.reset(c.losses, { relabel: c.relabel });
	for (const fault of c.faults) sim.fault(fault);
	if (c.relabel?.ignoreStream) sim.fault({ route: 'POST /v1/', kind: 'ignore-stream', times: -1 });
	const cid = ++cases;
	const built = buildWorkflow(c, keyRatio, cid);
	const started = Date.now();
	let cancel: (() => void) | undefined;
	let timer: NodeJS.Timeout | undefined;
	const running = runWorkflow({
		nodes: built.nodes,
		connections: built.connections,
		input: built.input,
		credentials: { apiKey: f.keys[c.group], baseUrl: f.proxyUrl },
		moreCredentials: { '2': { apiKey: f.keys2[c.group], baseUrl: f.proxyUrl } },
		onStart: (p) => (cancel = p.cancel),
	});
	const hung = new Promise<'hung'>(
		(resolve) => (timer = setTimeout(() => resolve('hung'), HANG_MS)),
	);
	let result: RunResult | 'hung';
	try {
		result = await Promise.race([running, hung]);
	} finally {
		clearTimeout(timer);
	}
	if (result === 'hung') {
		cancel?.();
		running.catch(() => undefined);
		throw new Error(`[hang] the run had not ended after ${HANG_MS} ms; it was cancelled`);
	}
	await proxy.settled();
	const ms = Date.now() - started;
	const problems = violations(
		c,
		{
			exchanges: [...proxy.exchanges],
			log: [...sim.log],
			ledger: [...sim.ledger],
			result,
			facts,
			keyRatio,
			cid,
			tries: built.tries,
		},
		cov,
	);
	if (process.env.FUZZ_DUMP && problems.length) dump(proxy, result, started);
	return {
		problems: problems.filter((p) => !IGNORED.has(/^\[([^\]:]+)/.exec(p)?.[1] ?? '')),
		result,
		ms,
	};
}

/** FUZZ_DUMP: what the gateway received and how the nodes ran, for a failing case. */
function dump(proxy: RecordingProxy, result: RunResult, t0: number): void {
	const lines = proxy.exchanges.map(
		(e) =>
			`  #${e.seq} +${e.started - t0}..${(e.ended ?? NaN) - t0} ${e.method} ${e.path} ${e.status}${e.lost ? ` lost(${e.lost})` : ''} ${e.requestId ?? ''} ${e.method === 'POST' ? e.body.slice(0, 300) : ''}`,
	);
	for (const [name, runs] of Object.entries(result.run.data.resultData.runData)) {
		lines.push(
			`  ${JSON.stringify(name)}: ${runs.map((t, r) => `run ${r} +${t.startTime - t0} ${t.executionTime} ms ${t.error ? `error ${t.error.message.slice(0, 200)}` : (t.data?.main ?? []).map((o) => (o ?? []).length).join('/')}`).join(' | ')}`,
		);
	}
	if (process.env.FUZZ_DUMP === '2') {
		for (const [name, runs] of Object.entries(result.run.data.resultData.runData)) {
			runs.forEach((t, r) =>
				(t.data?.main ?? []).forEach((o, out) =>
					(o ?? []).forEach((it, i) =>
						lines.push(
							`    ${JSON.stringify(name).slice(0, 20)} run ${r} output ${out} #${i}: ${JSON.stringify(it.json).slice(0, 400)}`,
						),
					),
				),
			);
		}
	}
	lines.push(`  custom data: ${JSON.stringify(result.run.data.resultData.metadata ?? {})}`);
	process.stdout.write(`${lines.join('\n')}\n`);
}

export const newCoverage = (): Coverage => ({
	calls: 0,
	lost: 0,
	turns: 0,
	capChecks: 0,
	capsNear: 0,
	exactRecord: 0,
	boundedRecord: 0,
	noFigure: 0,
	reRuns: 0,
	reRunsAfterSpend: 0,
	laterRuns: 0,
	refusedBatches: 0,
	quoteOnly: 0,
	responses: 0,
});
