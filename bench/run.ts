/** `npm run bench`: every benchmark side by side in one run; writes bench/results.md. Timings are never asserted in tests. */
import { cpus, tmpdir, totalmem } from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_CONCURRENCY } from '../nodes/shared/runners/options';
import { KNOBS, benchPaidItems, gatewayName, type PaidItemsRow } from './paid-items';
import { benchFloods, benchIndices, benchRedaction } from './hostile';
import { benchImages } from './images';
import { benchMemory } from './memory-n8n';
import { benchPolling, benchRetryAfter } from './polling';
import { benchQueue } from './queue';
import { benchSse } from './sse';
import { benchPacedDownload, benchTransport } from './transport';

const f = (n: number, d = 2) => n.toFixed(d);

// n8n-core's InstanceSettings writes $N8N_USER_FOLDER/.n8n/config: keep it out of $HOME
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'gg-bench-n8n-'));

async function main() {
	const only = process.argv.slice(2);
	const want = (k: string) => !only.length || only.includes(k);
	const lines: string[] = [];
	// each section is printed as soon as it is measured, so a later failure loses nothing
	let shown = 0;
	const show = () => {
		process.stdout.write(`${lines.slice(shown).join('\n')}\n`);
		shown = lines.length;
	};
	const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version} (benchmarks) / Node 24 (n8n)`;
	lines.push(
		`# Benchmark results`,
		'',
		`Date: ${new Date().toISOString()}  `,
		`Machine: ${machine}`,
		'',
	);
	show();
	if (want('p1')) {
		process.stdout.write('P1 batches through Image Submit → Task Wait …\n');
		// BENCH_P1_SIZES=10,100 (the paced gateway's sizes), BENCH_P1_LIMIT_SIZES=10,100 (the limit-4 gateway's),
		// BENCH_P1_REAL=0 (no real-n8n rows), BENCH_P1_BASELINE=0 (no one-at-a-time baseline): shorter runs
		const list = (v: string | undefined, d: number[]) => (v ? v.split(',').map(Number) : d);
		const sizes = list(process.env.BENCH_P1_SIZES, [10, 100, 500, 2000]);
		const limitSizes = list(process.env.BENCH_P1_LIMIT_SIZES, [10, 100, 500]);
		const rows = await benchPaidItems(
			sizes,
			[
				{ gateway: { perSecond: KNOBS.submitsPerSecond }, sizes },
				{ gateway: { limit: 4 }, sizes: limitSizes },
			].filter((g) => g.sizes.length && g.sizes[0] > 0),
			Number(process.env.BENCH_P1_BASELINE ?? 2),
			process.env.BENCH_P1_REAL === '0' ? 0 : 100,
		);
		const k = KNOBS;
		const target = (r: PaidItemsRow) =>
			r.gateway.limit ? 1.05 : r.n >= 2000 ? 1.5 : r.n >= 500 ? 1.25 : 1.1;
		lines.push(
			`## P1 a batch of N prompts: Image Submit → Task Wait (the nodes users run)`,
			'',
			`Simulator: a submission answered ${k.submitLatencyMs / 1000} s after the gateway starts it, task done ${k.taskLatencyMs / 1000} s later (poll_after_ms ${k.pollAfterMs}), ${(k.imageBytes / 1e6).toFixed(1)} MB PNGs at ${k.resultBandwidth / 1e6} MB/s per connection, ${k.resultTtfbMs} ms to the first byte. Gateway "${k.submitsPerSecond}/s": it starts ${k.submitsPerSecond} submissions a second, the others wait in its queue (answers slow down when it is given more). Gateway "limit 4": more than 4 concurrent submissions are answered 429 + Retry-After ${k.submitRetryAfterSec} s. Floor = the gateway's own time to accept N ((N − 1) / pace + ${k.submitLatencyMs / 1000} s, or ceil(N / limit) × ${k.submitLatencyMs / 1000} s) + task + one poll interval + one download. Default options (Max Concurrent Submissions ${DEFAULT_MAX_CONCURRENCY}: the window's upper bound). Window = submissions in flight at the gateway (answered or queued) while the batch was sent, sampled every 20 ms.`,
			'',
			'| where | N | gateway | wall | floor | wall / floor | target | met | completed | accepted POSTs per item | 429 refusals | window max / mean | one item at a time | that / ours |',
			'|---|---:|---|---:|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|',
		);
		for (const r of rows) {
			const t = target(r);
			lines.push(
				`| ${r.where} | ${r.n} | ${gatewayName(r.gateway)} | ${f(r.wallMs / 1000, 1)} s | ${f(r.floorMs / 1000, 1)} s | ${f(r.wallMs / r.floorMs)} | ≤ ${t} | ${r.wallMs <= t * r.floorMs ? 'yes' : 'no'} | ${r.completed}/${r.n} | ${f(r.acceptedPerItem)} | ${r.refused429} | ${r.window.max} / ${f(r.window.mean, 1)} | ${r.oneAtATimeMs ? `${f(r.oneAtATimeMs / 1000, 0)} s *` : '–'} | ${r.oneAtATimeMs ? f(r.oneAtATimeMs / r.wallMs, 1) : '–'} |`,
			);
		}
		lines.push(
			'',
			'* One item at a time (each item submitted and waited for before the next, the common community-node pattern) ran for real on 2 items; the column is that per-item time × N.',
			'',
		);
		show();
		const L = 10_000;
		const poll = 3000;
		process.stdout.write('P2 polling …\n');
		const prow = await benchPolling([10, 100, 500], L, poll);
		lines.push(
			`## P2 polls per task and poll spacing (N tasks of ${L / 1000} s, waited by the Task Wait engine)`,
			'',
			'| N | polls per task | ideal ceil(L / poll_after) + 1 | ratio | shortest interval | poll_after_ms |',
			'|---:|---:|---:|---:|---:|---:|',
		);
		for (const r of prow)
			lines.push(
				`| ${r.n} | ${f(r.pollsPerTask)} | ${r.idealPolls} | ${f(r.pollsPerTask / r.idealPolls)} | ${r.shortestIntervalMs} ms | ${poll} ms |`,
			);
		const ra = await benchRetryAfter(2);
		lines.push(
			'',
			`With 429 + Retry-After ${ra.retryAfterMs / 1000} s on polls: shortest gap after a 429 = ${ra.shortestAfter429Ms} ms (ratio to Retry-After ${f(ra.shortestAfter429Ms / ra.retryAfterMs)}).`,
			'',
		);
		show();
	}
	if (want('p3')) {
		process.stdout.write('P3 1 GiB download in real n8n …\n');
		// BENCH_P3_DEFAULTS=1: only the two nodes at n8n's defaults (a quicker run of the ratio the issue names)
		const m = await benchMemory(undefined, undefined, 3, process.env.BENCH_P3_DEFAULTS === '1');
		lines.push(
			`## P3 ${m.fileMiB} MiB video into n8n's filesystem binary store`,
			'',
			`| Node | where | RSS growth during the ${m.fileMiB} MiB download | growth / file size | same for a ${m.smallMiB} MiB file | within 64 MiB | time (${m.fileMiB} MiB) |`,
			'|---|---|---:|---:|---:|:---:|---:|',
		);
		for (const r of m.rows)
			lines.push(
				`| ${r.name} | ${r.where} | ${f(r.bigGrowthMiB, 0)} MiB | ${f(r.bigGrowthMiB / m.fileMiB, 3)} | ${Number.isNaN(r.smallGrowthMiB) ? 'not run' : `${f(r.smallGrowthMiB, 0)} MiB`} | ${r.bigGrowthMiB <= 64 ? 'yes' : 'no'} | ${f(r.ms / 1000, 1)} s |`,
			);
		const [ours, theirs, oursTuned, theirsTuned, control] = m.rows;
		lines.push(
			'',
			`Growth = peak RSS of the process from the moment the request reaches the file's host to the end of the run, minus its RSS just before (sampled every 20 ms from outside; median of ${m.repeats} runs). Ours / HTTP Request = ${f(ours.bigGrowthMiB / theirs.bigGrowthMiB)} with n8n's defaults` +
				(oursTuned && theirsTuned && control
					? `, ${f(oursTuned.bigGrowthMiB / theirsTuned.bigGrowthMiB)} with the smaller young generation; ours / bare Node 24 control = ${f(ours.bigGrowthMiB / control.bigGrowthMiB)}.`
					: '.'),
			`Each run's growth with the ${m.fileMiB} MiB file, in run order: ${m.rows.map((r) => `${r.name} (${r.where}) ${r.bigRunsMiB.join(', ')} MiB`).join('; ')}.`,
			'',
		);
		show();
	}
	if (want('p4')) {
		process.stdout.write('P4 transport and SSE …\n');
		const t = await benchTransport();
		const sse = await benchSse(50);
		lines.push(
			`## P4 transport overhead and SSE parsing`,
			'',
			'| Measure | ours | baseline | ratio |',
			'|---|---:|---:|---:|',
		);
		lines.push(
			`| GET requests/s on loopback (${t.requests} requests, ${t.concurrency} in flight): GatewayTransport vs raw undici | ${f(t.transportRps, 0)} | ${f(t.rawRps, 0)} | ${f(t.ratio)} |`,
		);
		for (const s of sse)
			lines.push(
				`| SSE parsing as the nodes read a stream, ${s.what}, ${f(s.mb, 0)} MB stream (MB/s) vs naive split | ${f(s.parserMBs, 1)} | ${f(s.naiveMBs, 1)} | ${f(s.ratio)} |`,
			);
		const paced = await benchPacedDownload();
		lines.push(
			`| The simulator's result host: ${f(paced.bytes / 1000, 0)} kB paced at ${f(paced.bytesPerSec / 1000, 0)} kB/s, first to last byte (ms) vs the knob's time | ${f(paced.transferMs, 0)} | ${f(paced.expectedMs, 0)} | ${f(paced.transferMs / paced.expectedMs)} |`,
		);
		lines.push('');
		show();
	}
	if (want('p5')) {
		process.stdout.write('P5 hostile answers …\n');
		const red = benchRedaction();
		lines.push(
			`## P5 the cost of hostile answers (tests check what comes out; the time is measured here)`,
			'',
			'| Measure | size | ours | baseline | ratio |',
			'|---|---:|---:|---:|---:|',
		);
		for (const r of red.rows)
			lines.push(
				`| Key redaction, ${r.what} (baseline: replaceAll of the literal key) | ${f(r.mb, 0)} MB | ${f(r.ms, 0)} ms | ${f(r.baselineMs, 0)} ms | ${f(r.ms / r.baselineMs, 1)} |`,
			);
		for (const r of benchFloods())
			lines.push(
				`| Chat stream reader, ${r.what}: ${r.outcome} (baseline: decoding the same chunks) | ${f(r.mib, 0)} MiB | ${f(r.ms, 0)} ms | ${f(r.baselineMs, 0)} ms | ${f(r.ms / r.baselineMs, 1)} |`,
			);
		for (const r of await benchIndices())
			lines.push(
				`| Worst event-loop gap, ${r.what} | | ${f(r.lagMs, 0)} ms | ${f(r.baselineLagMs, 0)} ms | ${f(r.lagMs / Math.max(1, r.baselineLagMs), 1)} |`,
			);
		lines.push(
			'',
			`Redaction time 64 MB / 8 MB = ${f(red.growth, 1)} (linear ≈ 8; a quadratic search ≈ 64).`,
			'',
			`Redaction time of a backslash run, 1 MB / 0.25 MB = ${f(red.runGrowth, 1)} (linear ≈ 4; quadratic ≈ 16).`,
			'',
		);
		show();
	}
	if (want('images')) {
		const ns = (process.env.BENCH_IMAGE_ITEMS ?? '4,12,24').split(',').map(Number);
		process.stdout.write(
			`P6 N items × 12 MiB images through the Chat node (N = ${ns.join(', ')}) …\n`,
		);
		const rows = await benchImages(ns);
		lines.push(
			`## P6 memory per item in flight: N items × a 12 MiB image through the Chat node`,
			'',
			"Held = heap + Buffers after a full garbage collection, sampled in-process when each request reaches a loopback gateway, minus the same just before the Chat node ran (the images in n8n's filesystem binary store). Growth independent of N: the batch's images are not held at once (issue 42 measured +361 to +371 MiB for 24 items before).",
			'',
			'| N | requests | held at the first request | most held at any request |',
			'|---:|---:|---:|---:|',
		);
		for (const r of rows)
			lines.push(`| ${r.n} | ${r.requests} | ${f(r.firstMiB, 0)} MiB | ${f(r.maxMiB, 0)} MiB |`);
		const [lo, hi] = [rows[0], rows[rows.length - 1]];
		lines.push(
			'',
			`Most held at N = ${hi.n} / at N = ${lo.n}: ${f(hi.maxMiB / lo.maxMiB)} (independent of N ≈ 1; held per batch ≈ ${f(hi.n / lo.n, 0)}). \`BENCH_IMAGE_ITEMS=2,4 npm run bench -- images\` runs it alone.`,
			'',
		);
		show();
	}
	if (want('queue')) {
		// BENCH_QUEUE_WORKERS=1,2,4, BENCH_QUEUE_IMAGES=200 (two a row: 100 executions), BENCH_QUEUE_CONCURRENCY=10
		const workers = (process.env.BENCH_QUEUE_WORKERS ?? '1,2,4').split(',').map(Number);
		const images = Number(process.env.BENCH_QUEUE_IMAGES ?? 200);
		const concurrency = Number(process.env.BENCH_QUEUE_CONCURRENCY ?? 10);
		process.stdout.write(`P7 queue mode with ${workers.join(', ')} workers, ${images} images …\n`);
		const rows = await benchQueue(workers, images, concurrency, (s) =>
			process.stdout.write(`${s}\n`),
		);
		const one = rows.find((r) => r.workers === 1) ?? rows[0];
		lines.push(
			`## P7 queue mode: the same batch with ${workers.join(', ')} workers`,
			'',
			`n8n 2.41.1 in queue mode (Redis, PostgreSQL, one \`n8n start\`, N \`n8n worker\` at --concurrency ${concurrency}) on this machine, the P1 gateway (50 submissions started a second). ${images} images as ${images / 2} executions, one per row of a sheet asking for two (the demo's text-to-image workflow behind a production webhook), all webhook calls at once. Floor = P1's floor for the whole batch at the gateway's pace: no number of workers goes under it. Scaling = throughput / the 1-worker throughput.`,
			'',
			'| workers | executions | wall | images/s | scaling | floor | wall / floor | executions per worker | paid POSTs per task | charged once | problems |',
			'|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|',
		);
		for (const r of rows)
			lines.push(
				`| ${r.workers} | ${r.executions} | ${f(r.wallMs / 1000, 1)} s | ${f(r.perSecond)} | ${f(r.perSecond / one.perSecond)} | ${f(r.floorMs / 1000, 1)} s | ${f(r.wallMs / r.floorMs)} | ${r.perWorker.join(' / ')} | ${f(r.postsPerTask)} | ${r.chargedOnce}/${r.images} | ${r.problems.length ? r.problems.join('; ') : 'none'} |`,
			);
		lines.push('');
		show();
	}
	if (!only.length) writeFileSync(join(__dirname, 'results.md'), `${lines.join('\n')}\n`);
}

main().then(
	() => process.exit(0),
	(err) => {
		console.error(err);
		process.exit(1);
	},
);
