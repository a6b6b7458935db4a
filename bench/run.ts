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
	const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version} (benchmarks) / Node 24 (n8n)`;
	lines.push(`# Benchmark results`, '', `Date: ${new Date().toISOString()}  `, `Machine: ${machine}`, '');
	if (want('p1')) {
		const L = 10_000;
		const poll = 3000;
		process.stdout.write('P1/P2 polling …\n');
		const rows = await benchPolling([10, 100, 500], L, poll);
		lines.push(`## P1 Task Wait on N tasks of latency L = ${L / 1000} s (poll_after_ms ${poll})`, '', '| N | wall (all at once) | wall / L | baseline: one item at a time | baseline / ours | target 1.3 × L + 1 s | within target |', '|---:|---:|---:|---:|---:|---:|:---:|');
		for (const r of rows) lines.push(`| ${r.n} | ${f(r.concurrentMs / 1000)} s | ${f(r.concurrentMs / L)} | ${f(r.baselineMs / 1000)} s | ${f(r.baselineMs / r.concurrentMs)} | ${f(r.target / 1000)} s | ${r.concurrentMs <= r.target ? 'yes' : 'no'} |`);
		lines.push('', `## P2 polls per task and poll spacing`, '', '| N | polls per task | ideal ceil(L / poll_after) + 1 | ratio | shortest interval | poll_after_ms |', '|---:|---:|---:|---:|---:|---:|');
		for (const r of rows) lines.push(`| ${r.n} | ${f(r.pollsPerTask)} | ${r.idealPolls} | ${f(r.pollsPerTask / r.idealPolls)} | ${r.shortestIntervalMs} ms | ${poll} ms |`);
		const ra = await benchRetryAfter(2);
		lines.push('', `With 429 + Retry-After ${ra.retryAfterMs / 1000} s on polls: shortest gap after a 429 = ${ra.shortestAfter429Ms} ms (ratio to Retry-After ${f(ra.shortestAfter429Ms / ra.retryAfterMs)}).`, '');
	}
	if (want('p3')) {
		process.stdout.write('P3 1 GiB download in real n8n …\n');
		const m = await benchMemory();
		lines.push(`## P3 ${m.fileMiB} MiB video into n8n's filesystem binary store (real n8n 2.41.1, Node 24)`, '', '| Node | peak RSS growth | growth / file size | time |', '|---|---:|---:|---:|');
		lines.push(`| GenGateway Download Result | ${f(m.downloadResultGrowthMiB, 0)} MiB | ${f(m.downloadResultGrowthMiB / m.fileMiB, 3)} | ${f(m.downloadResultMs / 1000, 1)} s |`);
		lines.push(`| n8n HTTP Request (file response) | ${f(m.httpRequestGrowthMiB, 0)} MiB | ${f(m.httpRequestGrowthMiB / m.fileMiB, 3)} | ${f(m.httpRequestMs / 1000, 1)} s |`);
		lines.push('', `Growth is peak RSS of the \`n8n execute\` process minus the peak of a trivial workflow (${f(m.baselinePeakMiB, 0)} MiB). Target: at most 64 MiB; ours / HTTP Request = ${f(m.downloadResultGrowthMiB / m.httpRequestGrowthMiB)}.`, '');
	}
	if (want('p4')) {
		process.stdout.write('P4 transport and SSE …\n');
		const t = await benchTransport();
		const s = await benchSse(50);
		lines.push(`## P4 transport overhead and SSE parsing`, '', '| Measure | ours | baseline | ratio |', '|---|---:|---:|---:|');
		lines.push(`| GET requests/s on loopback (${t.requests} requests, ${t.concurrency} in flight): GatewayTransport vs raw undici | ${f(t.transportRps, 0)} | ${f(t.rawRps, 0)} | ${f(t.ratio)} |`);
		lines.push(`| Chat SSE parsing, ${f(s.mb, 0)} MB stream (MB/s): eventsource-parser reader vs naive split | ${f(s.parserMBs, 1)} | ${f(s.naiveMBs, 1)} | ${f(s.ratio)} |`, '');
	}
	const md = lines.join('\n');
	if (!only.length) writeFileSync(join(__dirname, 'results.md'), md + '\n');
	process.stdout.write(`\n${md}\n`);
}

main().then(
	() => process.exit(0),
	(err) => {
		console.error(err);
		process.exit(1);
	},
);
