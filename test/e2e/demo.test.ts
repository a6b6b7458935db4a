/** The demo workflows (examples/) in real n8n against the simulator, including fault scenarios. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../simulator';
import { runDemo } from '../../scripts/demo';
import { WORKFLOWS, toN8n } from '../../scripts/demo/workflows';

jest.setTimeout(900_000);

describe('demo workflows in real n8n', () => {
	let sim: Simulator;
	let out: string;
	beforeAll(async () => {
		sim = await startSimulator({ quiet: true, taskLatencyMs: 1500, pollAfterMs: 300, videoLatencyMs: 1500 });
		out = mkdtempSync(join(tmpdir(), 'gg-demo-out-'));
	});
	afterAll(async () => {
		await sim.stop();
		rmSync(out, { recursive: true, force: true });
	});

	it('the shipped examples are the demo workflows', () => {
		for (const w of WORKFLOWS) expect(JSON.parse(readFileSync(join(__dirname, '../../examples', `${w.folder}.json`), 'utf8'))).toEqual(JSON.parse(JSON.stringify(toN8n(w))));
	});

	it('every workflow runs, writes real files, and the gateway saw one POST per item and no key off-origin', async () => {
		let inspected = false;
		const { entries, ok } = await runDemo({
			outDir: out,
			sim,
			inspectState: (state, output) => {
				// the key never appears in n8n's database (execution data, credentials are encrypted), files or logs
				const key = Buffer.from(sim.keys.demo);
				const walk = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
				const files = walk(join(state, '.n8n')).filter((f) => !f.includes('node_modules'));
				expect(files.some((f) => f.endsWith('database.sqlite'))).toBe(true);
				for (const f of files) expect({ file: f, found: readFileSync(f).includes(key) }).toEqual({ file: f, found: false });
				expect(output.includes(sim.keys.demo)).toBe(false);
				expect(output).toContain('"task_id"');
				inspected = true;
			},
		});
		expect(inspected).toBe(true);
		const failed = entries.filter((e) => !e.ok);
		expect(failed).toEqual([]);
		expect(ok).toBe(true);
		const files = entries.flatMap((e) => e.files);
		expect(files.find((f) => f.path.includes('text-to-image'))).toMatchObject({ mime: 'image/png', width: 1536, height: 1024 });
		expect(files.filter((f) => f.mime === 'video/mp4')).toHaveLength(2);
		expect(files.find((f) => f.path.endsWith('prices.csv'))?.bytes).toBeGreaterThan(100);
		const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
		expect(summary).toHaveLength(entries.length);
		// 2 + 1 + 1 (images) + 1 + 1 (videos) + 1 (native) + 1 chat + 1 responses = 9 paid POSTs, one each
		expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(9);
		expect(sim.log.filter((l) => l.server === 'result' && l.auth)).toHaveLength(0);
		// the long-job workflow really went round the Wait node: its task was queried in two executions of Task Wait
		const loopTask = entries.find((e) => e.workflow === 'wait-loop' && e.task_id)!.task_id!;
		const polls = sim.log.filter((l) => l.method === 'GET' && l.path.endsWith(loopTask));
		expect(polls.length).toBeGreaterThanOrEqual(3);
	});

	it('faults: a reset after task creation is reported uncertain (never resent), 429 bursts on polls are absorbed', async () => {
		sim.reset();
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'reset-after' });
		sim.fault({ route: 're:^GET /v1/images/tasks/', kind: 'rate-limit', times: 3, emptyBody: true });
		const { entries } = await runDemo({ outDir: out, sim, only: ['text-to-image'] });
		const submit = entries.find((e) => e.step === 'Image Submit')!;
		expect(submit.ok).toBe(false);
		expect(submit.error).toMatch(/uncertain/);
		expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(2);
		expect(sim.log.filter((l) => l.status === 429)).toHaveLength(3);
		expect(entries.find((e) => e.step === 'files')!.files).toHaveLength(1);
	});

	it('GATEWAY_BASE_URL / GATEWAY_VIDEO_BASE_URL / GATEWAY_API_KEY point the demo at another gateway (no embedded simulator)', async () => {
		const other = await startSimulator({ quiet: true, taskLatencyMs: 300, pollAfterMs: 100, videoLatencyMs: 300 });
		Object.assign(process.env, { GATEWAY_BASE_URL: other.baseUrl, GATEWAY_VIDEO_BASE_URL: other.altBaseUrl, GATEWAY_API_KEY: other.keys.demo });
		try {
			const { ok } = await runDemo({ outDir: out, only: ['chat', 'gamma-video'] });
			expect(ok).toBe(true);
			expect(other.log.filter((l) => l.method === 'POST').map((l) => `${l.server} ${l.path}`).sort()).toEqual(['alt /v1/videos', 'gateway /v1/chat/completions']);
		} finally {
			delete process.env.GATEWAY_BASE_URL;
			delete process.env.GATEWAY_VIDEO_BASE_URL;
			delete process.env.GATEWAY_API_KEY;
			await other.stop();
		}
	});
});
