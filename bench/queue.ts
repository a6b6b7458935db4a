/**
 * P6: the same batch in n8n's queue mode (Redis + PostgreSQL from Debian's packages, one `n8n start`, N `n8n worker`)
 * with 1, 2 and 4 workers, against the realistic-latency simulator of P1 (a submission answered 0.8 s after the
 * gateway starts it, 50 started a second, each task done 20 s later, poll_after_ms 3000, 1.5 MB PNGs at 10 MB/s). The
 * batch is split as users split it: one execution per row of a sheet, each row asking for two images (the demo's
 * text-to-image workflow behind a production webhook, scripts/queue-mode.ts). Each run also checks what the queue-mode
 * proof checks: every execution a success, one paid POST and one charge per task, one file per task, the key nowhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../simulator';
import { runQueueMode } from '../scripts/queue-mode';
import { KNOBS, floorMs } from './paid-items';

export interface QueueRow {
	workers: number;
	/** executions each worker runs at once (n8n's --concurrency) */
	concurrency: number;
	executions: number;
	images: number;
	/** from the first webhook call to the last execution finished */
	wallMs: number;
	/** images completed a second */
	perSecond: number;
	/** the gateway's floor for the whole batch at its pace (P1's floor), the bound no worker count passes */
	floorMs: number;
	/** executions started per worker */
	perWorker: number[];
	/** paid POSTs per task the gateway saw, and tasks charged exactly once */
	postsPerTask: number;
	chargedOnce: number;
	problems: string[];
}

export async function benchQueue(
	workerCounts: number[],
	images: number,
	concurrency: number,
	log: (s: string) => void = () => undefined,
): Promise<QueueRow[]> {
	const rows: QueueRow[] = [];
	for (const workers of workerCounts) {
		const sim = await startSimulator({
			quiet: true,
			imageFormat: 'png',
			...KNOBS,
		} as Parameters<typeof startSimulator>[0]);
		const outDir = mkdtempSync(join(tmpdir(), 'gg-bench-queue-'));
		try {
			const r = await runQueueMode({
				images,
				videos: 0,
				waitLoops: 0,
				workers,
				concurrency,
				sim,
				outDir,
				log: (s) => log(`  ${workers} worker(s) ${s}`),
			});
			rows.push({
				workers,
				concurrency,
				executions: r.executions.length,
				images,
				wallMs: r.ms,
				perSecond: images / (r.ms / 1000),
				floorMs: floorMs(images, { perSecond: KNOBS.submitsPerSecond }),
				perWorker: Object.values(r.perWorker),
				postsPerTask: r.gateway ? r.gateway.posts / Math.max(1, r.gateway.tasks) : NaN,
				chargedOnce: r.gateway?.chargedOnce ?? 0,
				problems: r.problems,
			});
		} finally {
			await sim.stop();
			rmSync(outDir, { recursive: true, force: true });
		}
	}
	return rows;
}
