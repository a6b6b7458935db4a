import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';

it('npm run simulator: starts on the given port with the given options, prints the URLs and the demo key, stops on SIGTERM', async () => {
	const child = spawn(
		process.execPath,
		[
			join(__dirname, '../../node_modules/tsx/dist/cli.mjs'),
			join(__dirname, '../../simulator/cli.ts'),
			'--port',
			'0',
			'--poll-after',
			'123',
			'--submit-latency',
			'300',
			'--max-concurrent-submits',
			'1',
			'--submit-retry-after',
			'9',
			'--result-ttfb',
			'200',
			'--result-bandwidth',
			'10000000',
			'--image-bytes',
			'200000',
			'--fault',
			'{"route":"GET /v1/models","kind":"status","status":418}',
		],
		{ stdio: ['ignore', 'pipe', 'pipe'] },
	);
	let out = '';
	await new Promise<void>((resolve, reject) => {
		const t = setTimeout(() => reject(new Error(`no banner: ${out}`)), 20_000);
		child.stdout.on('data', (d) => {
			out += d;
			if (/demo key:/.test(out)) {
				clearTimeout(t);
				resolve();
			}
		});
	});
	const base = /base URL:\s+(\S+)/.exec(out)![1];
	const key = /demo key:\s+(\S+)/.exec(out)![1];
	expect(
		(await request(`${base}/v1/models`, { headers: { authorization: `Bearer ${key}` } }))
			.statusCode,
	).toBe(418);
	const submit = () =>
		request(`${base}/v1/images/generations`, {
			method: 'POST',
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: JSON.stringify({ model: 'alpha-image-2.5', prompt: 'x', background: true }),
		});
	const t0 = Date.now();
	const [task, refused] = await Promise.all([
		submit(),
		new Promise((r) => setTimeout(r, 50)).then(submit),
	]);
	expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
	expect(refused.statusCode).toBe(429);
	expect(refused.headers['retry-after']).toBe('9');
	await refused.body.dump();
	expect(((await task.body.json()) as { poll_after_ms: number }).poll_after_ms).toBe(123);
	const syncAnswer = await request(`${base}/v1/images/generations`, {
		method: 'POST',
		headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
		body: JSON.stringify({ model: 'alpha-image-2.5', prompt: 'x' }),
	});
	const sync = (await syncAnswer.body.json()) as { data: Array<{ url: string }> };
	const t1 = Date.now();
	const image = await request(sync.data[0].url);
	const bytes = Buffer.from(await image.body.arrayBuffer());
	expect(Date.now() - t1).toBeGreaterThanOrEqual(190);
	expect(bytes.length).toBeGreaterThanOrEqual(200_000);
	const exited = new Promise((r) => child.on('exit', r));
	child.kill('SIGTERM');
	expect(await exited).toBe(0);
}, 30_000);
