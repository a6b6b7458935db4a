/**
 * P4a: GatewayTransport.getJson against raw undici `request` on loopback, same server, same run.
 * Prints requests per second for both and the ratio (transport / raw).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { normaliseBaseUrl } from '../nodes/shared/transport/baseUrl';
import { GatewayTransport, setDispatcher } from '../nodes/shared/transport';
import { startSimulator } from '../simulator';

export interface TransportBenchResult {
	rawRps: number;
	transportRps: number;
	ratio: number;
	requests: number;
	concurrency: number;
}

async function drive(
	total: number,
	concurrency: number,
	one: () => Promise<unknown>,
): Promise<number> {
	let next = 0;
	const start = process.hrtime.bigint();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < total) {
				next++;
				await one();
			}
		}),
	);
	const secs = Number(process.hrtime.bigint() - start) / 1e9;
	return total / secs;
}

export async function benchTransport(
	total = 20_000,
	concurrency = 32,
): Promise<TransportBenchResult> {
	const body = JSON.stringify({
		id: 'task_bench',
		status: 'processing',
		state: 'queued',
		poll_after_ms: 3000,
	});
	const server = createServer((_req, res) => {
		res.writeHead(200, {
			'content-type': 'application/json',
			'content-length': Buffer.byteLength(body),
		});
		res.end(body);
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const raw = new Agent({ keepAliveTimeout: 10_000 });
	setDispatcher(new Agent({ keepAliveTimeout: 10_000 }));
	const transport = new GatewayTransport({ apiKey: 'sk-bench', base: normaliseBaseUrl(base) });
	const url = `${base}/v1/images/tasks/task_bench`;
	const rawOnce = async () => {
		const res = await request(url, {
			dispatcher: raw,
			headers: { authorization: 'Bearer sk-bench', accept: 'application/json' },
		});
		return res.body.json();
	};
	const transportOnce = () => transport.getJson('/v1/images/tasks/task_bench');
	// warm-up both, then alternate rounds so neither profits from order
	await drive(2000, concurrency, rawOnce);
	await drive(2000, concurrency, transportOnce);
	const rawRuns: number[] = [];
	const tRuns: number[] = [];
	for (let round = 0; round < 3; round++) {
		rawRuns.push(await drive(total / 3, concurrency, rawOnce));
		tRuns.push(await drive(total / 3, concurrency, transportOnce));
	}
	const median = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
	await raw.close();
	setDispatcher(undefined);
	await new Promise((r) => server.close(r));
	const rawRps = median(rawRuns);
	const transportRps = median(tRuns);
	return { rawRps, transportRps, ratio: transportRps / rawRps, requests: total, concurrency };
}

if (require.main === module) {
	benchTransport().then((r) => console.log(JSON.stringify(r, null, 2)));
}

export interface PacedDownloadResult {
	bytes: number;
	bytesPerSec: number;
	/** ms from the first body byte to the last, median of the runs */
	transferMs: number;
	/** the knob's own time for the body: bytes / bytesPerSec */
	expectedMs: number;
}

/**
 * The simulator's result host paces a download to `resultBandwidth` (test/simulator/latency-knobs.test.ts checks it is
 * not a burst; that it is not slower than the knob is a time, measured here): 400 kB at 400 kB/s, about one second.
 */
export async function benchPacedDownload(runs = 3): Promise<PacedDownloadResult> {
	const bytes = 400_000;
	const bytesPerSec = 400_000;
	const sim = await startSimulator({
		quiet: true,
		taskLatencyMs: 10,
		syncLatencyMs: 0,
		resultTtfbMs: 0,
		resultBandwidth: bytesPerSec,
		imageBytes: bytes,
		imageFormat: 'png',
	});
	const times: number[] = [];
	try {
		for (let k = 0; k < runs; k++) {
			const { body } = await request(`${sim.baseUrl}/v1/images/generations`, {
				method: 'POST',
				headers: { authorization: `Bearer ${sim.keys.demo}`, 'content-type': 'application/json' },
				body: JSON.stringify({ model: 'alpha-image-2.5', prompt: 'bench', n: 1 }),
			});
			const url = ((await body.json()) as { data: Array<{ url: string }> }).data[0].url;
			const res = await request(url);
			let first = 0;
			for await (const chunk of res.body)
				if (!first && (chunk as Buffer).length) first = Date.now();
			times.push(Date.now() - first);
		}
	} finally {
		await sim.stop();
	}
	const transferMs = times.sort((x, y) => x - y)[Math.floor(times.length / 2)];
	return { bytes, bytesPerSec, transferMs, expectedMs: (bytes / bytesPerSec) * 1000 };
}
