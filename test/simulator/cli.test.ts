import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';

it('npm run simulator: starts on the given port with the given options, prints the URLs and the demo key, stops on SIGTERM', async () => {
	const child = spawn(process.execPath, [join(__dirname, '../../node_modules/tsx/dist/cli.mjs'), join(__dirname, '../../simulator/cli.ts'), '--port', '0', '--poll-after', '123', '--fault', '{"route":"GET /v1/models","kind":"status","status":418}'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
	expect((await request(`${base}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(418);
	const task = await request(`${base}/v1/images/generations/async`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'alpha-image-2.5', prompt: 'x' }) });
	expect(((await task.body.json()) as { poll_after_ms: number }).poll_after_ms).toBe(123);
	const exited = new Promise((r) => child.on('exit', r));
	child.kill('SIGTERM');
	expect(await exited).toBe(0);
}, 30_000);
