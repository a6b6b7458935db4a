/**
 * `npm run demo -- --n8n 1` as a user types it: the README's demo command selects the n8n 1.x runtime and every
 * demo workflow succeeds there (runs in the e2e-n8n1 project, after the in-process demo checks of demo.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SummaryEntry } from '../../scripts/demo';
import { N8N_MAJOR, N8N_VERSION, NODE_VERSION, ROOT } from '../../scripts/lib/n8n';

jest.setTimeout(900_000);

it(`npm run demo -- --n8n ${N8N_MAJOR} runs every demo workflow in n8n ${N8N_VERSION} on Node ${NODE_VERSION}`, async () => {
	const out = mkdtempSync(join(tmpdir(), 'gg-demo-select-'));
	try {
		const env = { ...process.env };
		delete env.GG_N8N_MAJOR;
		for (const k of Object.keys(env)) if (/^npm_config_/i.test(k) || /^GATEWAY_/.test(k)) delete env[k];
		const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
			const child = spawn('npm', ['run', 'demo', '--', '--n8n', N8N_MAJOR, '--out', out], { cwd: ROOT, env });
			let stdout = '';
			let stderr = '';
			child.stdout.on('data', (d) => (stdout += d));
			child.stderr.on('data', (d) => (stderr += d));
			child.on('close', (code) => resolve({ code, stdout, stderr }));
		});
		expect({ code: r.code, tail: r.code === 0 ? '' : (r.stdout + r.stderr).slice(-3000) }).toEqual({ code: 0, tail: '' });
		expect(r.stdout).toContain(`[demo] n8n ${N8N_VERSION} on Node ${NODE_VERSION}`);
		const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as SummaryEntry[];
		expect(summary.length).toBeGreaterThanOrEqual(20);
		expect(summary.filter((e) => !e.ok)).toEqual([]);
	} finally {
		rmSync(out, { recursive: true, force: true });
	}
});
