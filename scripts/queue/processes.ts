/**
 * Long-running n8n processes (`n8n start`, `n8n worker`) for queue mode, with their output kept for
 * inspection; scripts/lib/n8n/cli.ts has the one-shot commands.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../lib/port';
import { N8N_BIN, N8N_NODE } from '../lib/n8n/runtime';
import { n8nEnv, type N8nEnvOptions } from '../lib/n8n/env';
import { runN8n } from '../lib/n8n/cli';
import { reapWithThisProcess } from '../lib/n8n/reap';

export interface N8nProcess {
	name: string;
	child: ChildProcess;
	/** everything the process printed so far */
	output(): string;
	/** resolves when the output contains `text` */
	waitFor(text: string | RegExp, timeoutMs: number): Promise<void>;
	stop(): Promise<void>;
}

export async function spawnN8n(
	name: string,
	stateDir: string,
	args: string[],
	opts: N8nEnvOptions,
): Promise<N8nProcess> {
	const child = spawn(N8N_NODE, [N8N_BIN, ...args], {
		env: n8nEnv(stateDir, await freePort(), opts),
		cwd: stateDir,
		detached: true,
	});
	let out = '';
	child.stdout!.on('data', (d) => (out += d));
	child.stderr!.on('data', (d) => (out += d));
	const closed = new Promise<void>((res) => child.once('close', () => res()));
	reapWithThisProcess(child.pid, closed);
	return {
		name,
		child,
		output: () => out,
		async waitFor(text, timeoutMs) {
			const end = Date.now() + timeoutMs;
			const found = () => (typeof text === 'string' ? out.includes(text) : text.test(out));
			while (!found()) {
				if (child.exitCode !== null)
					throw new Error(
						`${name} exited (${child.exitCode}) before printing ${String(text)}:\n${out.slice(-3000)}`,
					);
				if (Date.now() > end)
					throw new Error(
						`${name} did not print ${String(text)} within ${timeoutMs} ms:\n${out.slice(-3000)}`,
					);
				await new Promise((r) => setTimeout(r, 200));
			}
		},
		async stop() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			// SIGTERM: n8n shuts down gracefully (a worker finishes its running jobs first)
			process.kill(-child.pid!, 'SIGTERM');
			const t = setTimeout(() => {
				try {
					process.kill(-child.pid!, 'SIGKILL');
				} catch {
					/* gone */
				}
			}, 30_000);
			await closed;
			clearTimeout(t);
		},
	};
}

/** A one-shot n8n command that must succeed. */
export async function n8nCommand(
	stateDir: string,
	args: string[],
	opts: N8nEnvOptions,
): Promise<string> {
	const r = await runN8n(stateDir, args, opts);
	if (r.code !== 0)
		throw new Error(
			`n8n ${args.join(' ')} failed (${r.code}): ${(r.stderr || r.stdout).slice(-2000)}`,
		);
	return r.stdout + r.stderr;
}
