/**
 * The scheduled pipeline (examples/pipeline-*.json) in a real n8n: `n8n start` with both workflows activated,
 * a private PostgreSQL holding the prompts, an S3-protocol store (s3rver) and an SMTP mailbox (smtp-server), the
 * embedded simulator as the gateway. Judged from what the run left behind (scripts/pipeline/judge.ts): the table,
 * the bucket, the mailbox, the gateway's ledger, and the key in none of them nor in n8n's logs and database.
 * The regular-mode run is the one `npm run demo` made just before with this build (CI), else one made here; the
 * queue-mode crash run is always made here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator } from '../../simulator';
import { CRED } from '../../scripts/demo/workflows';
import { summarise } from '../../scripts/pipeline/judge';
import { freshDemoProof } from '../../scripts/demo/proof';
import {
	FAILING,
	crashRun,
	demoPrompts,
	runPipeline,
	type PipelineReport,
} from '../../scripts/pipeline/run';
import {
	PG_CRED,
	PIPELINE,
	S3_CRED,
	SMTP_CRED,
	pipelineToN8n,
} from '../../scripts/pipeline/workflows';
import { ROOT } from '../../scripts/lib/repo';
import { removeTemplate } from '../../scripts/lib/n8n/state';

jest.setTimeout(900_000);

afterAll(() => removeTemplate());

describe('the scheduled generation pipeline in real n8n', () => {
	it('the shipped files are the generated workflows, with placeholders only', () => {
		for (const w of PIPELINE) {
			const text = readFileSync(join(ROOT, 'examples', `${w.folder}.json`), 'utf8');
			expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(pipelineToN8n(w))));
			const wf = JSON.parse(text) as {
				nodes: Array<{ type: string; credentials?: Record<string, { id: string }> }>;
			};
			const ids = wf.nodes.flatMap((n) => Object.values(n.credentials ?? {}).map((c) => c.id));
			for (const id of ids) expect([CRED, PG_CRED, S3_CRED, SMTP_CRED]).toContain(id);
			expect(wf.nodes.filter((n) => n.type === 'n8n-nodes-base.scheduleTrigger')).toHaveLength(1);
			expect(text).not.toMatch(/sk-|Bearer|password/i);
		}
	});

	it('regular mode: each prompt submitted once, stored once, mailed once; refused and failed rows say why', async () => {
		// the run to judge: the pipeline `npm run demo` ran just before with this build in this n8n (CI's demo step left
		// its report in out/demo-proof.json; the same prompts), else a run here
		const ci = freshDemoProof();
		const prompts = [...demoPrompts(4, 1), ...FAILING];
		let r: PipelineReport;
		if (ci?.gateway === 'embedded' && ci.pipelineReport) {
			r = ci.pipelineReport;
			process.stdout.write("judging the demo step's pipeline run (out/demo-proof.json)\n");
		} else {
			const sim = await startSimulator({
				quiet: true,
				taskLatencyMs: 2000,
				pollAfterMs: 500,
				videoLatencyMs: 3000,
				videoBytes: 300_000,
			});
			try {
				r = await runPipeline({ sim, prompts, log: () => undefined });
			} finally {
				await sim.stop();
			}
		}
		process.stdout.write(`${summarise(r)}\n`);
		expect(r.problems).toEqual([]);
		expect(r.rows).toHaveLength(prompts.length);
		const byPrompt = (p: string) => r.rows[prompts.findIndex((x) => x.prompt === p)];
		// the refused size never reached the gateway and says which field broke which rule
		const refused = byPrompt(FAILING[0].prompt);
		expect(refused).toMatchObject({ status: 'failed', task_id: null });
		expect(refused.error).toMatch(/size/);
		// the failed task keeps its task ID and the gateway's message
		const failed = byPrompt(FAILING[1].prompt);
		expect(failed.status).toBe('failed');
		expect(failed.task_id).toMatch(/^[A-Za-z0-9_-]+$/);
		expect(failed.error).toMatch(/content policy|failed/i);
		expect(r.rows.filter((x) => x.status === 'done')).toHaveLength(5);
		expect(Object.keys(r.objects)).toHaveLength(5);
		expect(Object.values(r.objects).filter((o) => o.startsWith('video/mp4'))).toHaveLength(1);
		expect(r.mails).toHaveLength(5);
		// the gateway saw exactly one paid POST per row it accepted, none refused or failed: the refused row sent nothing
		expect(r.posts).toEqual({ accepted: 6, refused: 0, other: 0 });
		expect(r.charged).toEqual({ tasks: 6, once: 6 });
		expect(r.keyFound).toEqual([]);
	});

	it('queue mode with crashes: a worker killed mid-poll, n8n restarted between ticks, 429 and 5xx bursts; nothing lost or paid, stored or mailed twice', async () => {
		const r = await crashRun({ images: 12, videos: 2, log: (l) => process.stdout.write(`${l}\n`) });
		process.stdout.write(`${summarise(r)}\n`);
		expect(r.problems).toEqual([]);
		expect(
			r.events.some((e) =>
				/^killed worker-\d \(SIGKILL\) while deliver execution \d+ polled [1-9]\d* leased row/.test(
					e,
				),
			),
		).toBe(true);
		expect(r.events).toContain('n8n stopped (main and workers, gracefully)');
		expect(r.events.some((e) => /^n8n started again; \d+ more prompts pending/.test(e))).toBe(true);
		// the bursts happened and were absorbed: 429s sent again later, no row lost to them
		expect(r.posts.refused).toBeGreaterThan(0);
		expect(r.posts.other).toBe(0);
		expect(r.getErrors).toBeGreaterThan(0);
		const done = r.rows.filter((x) => x.status === 'done');
		expect(done.length).toBe(r.rows.length - FAILING.length);
		expect(Object.keys(r.objects)).toHaveLength(done.length);
		expect(r.mails).toHaveLength(done.length);
		expect(r.charged.once).toBe(r.charged.tasks);
		expect(r.keyFound).toEqual([]);
	});
});
