/** `npm run bench`: every benchmark side by side in one run; writes bench/results.md. Timings are never asserted in tests. */
import { cpus, totalmem } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchMemory } from './memory-n8n';
import { benchPolling, benchRetryAfter } from './polling';
import { benchSse } from './sse';
import { benchTransport } from './transport';

const f = (n: number, d = 2) => n.toFixed(d);

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
	lines.push(`# Benchmark results`, '', `Date: ${new Date().toISOString()}  `, `Machine: ${machine}`, '');
	show();
	if (want('p1')) {
		const L = 10_000;
		const poll = 3000;
		process.stdout.write('P1/P2 polling …\n');
		const rows = await benchPolling([10, 100, 500], L, poll);
		const seq = rows.find((r) => r.sequentialMeasured === r.n) ?? rows[0];
		lines.push(
			`## P1 Task Wait on N tasks of latency L = ${L / 1000} s (poll_after_ms ${poll})`,
			'',
			'| N | Task Wait wall | wall / L | target 1.3 × L + 1 s | within target | submit + wait (ours, end to end) | baseline: submit and wait one item at a time | baseline / ours | pre-submitted, polled one at a time | that / Task Wait |',
			'|---:|---:|---:|---:|:---:|---:|---:|---:|---:|---:|',
		);
		for (const r of rows) {
			const est = r.sequentialMeasured < r.n ? ' *' : '';
			lines.push(`| ${r.n} | ${f(r.concurrentMs / 1000)} s | ${f(r.concurrentMs / L)} | ${f(r.target / 1000)} s | ${r.concurrentMs <= r.target ? 'yes' : 'no'} | ${f(r.endToEndMs / 1000)} s | ${f(r.sequentialMs / 1000, 1)} s${est} | ${f(r.sequentialMs / r.endToEndMs, 1)}${est} | ${f(r.baselineMs / 1000)} s | ${f(r.baselineMs / r.concurrentMs)} |`);
		}
		lines.push(
			'',
			`The common community-node pattern submits an item's task and polls it until done before the next item: N × about L. It ran for real on ${seq.sequentialMeasured} items (${f(seq.sequentialMs / seq.sequentialMeasured / 1000)} s per item); * = that per-item time × N. Polling tasks that were all submitted beforehand one at a time costs about the same as Task Wait, since they all finish together after L: the gain comes from submitting every item at once and waiting for all of them together.`,
			'',
		);
		lines.push(`## P2 polls per task and poll spacing`, '', '| N | polls per task | ideal ceil(L / poll_after) + 1 | ratio | shortest interval | poll_after_ms |', '|---:|---:|---:|---:|---:|---:|');
		for (const r of rows) lines.push(`| ${r.n} | ${f(r.pollsPerTask)} | ${r.idealPolls} | ${f(r.pollsPerTask / r.idealPolls)} | ${r.shortestIntervalMs} ms | ${poll} ms |`);
		const ra = await benchRetryAfter(2);
		lines.push('', `With 429 + Retry-After ${ra.retryAfterMs / 1000} s on polls: shortest gap after a 429 = ${ra.shortestAfter429Ms} ms (ratio to Retry-After ${f(ra.shortestAfter429Ms / ra.retryAfterMs)}).`, '');
		show();
	}
	if (want('p3')) {
		process.stdout.write('P3 1 GiB download in real n8n …\n');
		const m = await benchMemory();
		lines.push(
			`## P3 ${m.fileMiB} MiB video into n8n's filesystem binary store`,
			'',
			`| Node | where | RSS growth during the ${m.fileMiB} MiB download | growth / file size | same for a ${m.smallMiB} MiB file | within 64 MiB | time (${m.fileMiB} MiB) |`,
			'|---|---|---:|---:|---:|:---:|---:|',
		);
		for (const r of m.rows) lines.push(`| ${r.name} | ${r.where} | ${f(r.bigGrowthMiB, 0)} MiB | ${f(r.bigGrowthMiB / m.fileMiB, 3)} | ${f(r.smallGrowthMiB, 0)} MiB | ${r.bigGrowthMiB <= 64 ? 'yes' : 'no'} | ${f(r.ms / 1000, 1)} s |`);
		const [ours, theirs, oursTuned, theirsTuned, control] = m.rows;
		lines.push(
			'',
			`Growth = peak RSS of the process from the moment the request reaches the file's host to the end of the run, minus its RSS just before (sampled every 20 ms from outside; median of ${m.repeats} runs). Ours / HTTP Request = ${f(ours.bigGrowthMiB / theirs.bigGrowthMiB)} with n8n's defaults, ${f(oursTuned.bigGrowthMiB / theirsTuned.bigGrowthMiB)} with the smaller young generation; ours / bare Node 24 control = ${f(ours.bigGrowthMiB / control.bigGrowthMiB)}.`,
			'',
		);
		show();
	}
	if (want('p4')) {
		process.stdout.write('P4 transport and SSE …\n');
		const t = await benchTransport();
		const s = await benchSse(50);
		lines.push(`## P4 transport overhead and SSE parsing`, '', '| Measure | ours | baseline | ratio |', '|---|---:|---:|---:|');
		lines.push(`| GET requests/s on loopback (${t.requests} requests, ${t.concurrency} in flight): GatewayTransport vs raw undici | ${f(t.transportRps, 0)} | ${f(t.rawRps, 0)} | ${f(t.ratio)} |`);
		lines.push(`| Chat SSE parsing, ${f(s.mb, 0)} MB stream (MB/s): eventsource-parser reader vs naive split | ${f(s.parserMBs, 1)} | ${f(s.naiveMBs, 1)} | ${f(s.ratio)} |`, '');
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
