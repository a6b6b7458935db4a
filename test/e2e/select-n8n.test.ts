/**
 * `npm run demo -- --n8n 1` as a user types it: the README's demo command selects the n8n 1.x runtime and a demo
 * workflow succeeds there (runs in the e2e-n8n1 project). One workflow proves the selection: every workflow and the
 * pipeline in n8n 1.x are proven by demo.test.ts in the same project.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DemoProof } from '../../scripts/demo/proof';
import type { SummaryEntry } from '../../scripts/demo/summary';
import { ROOT } from '../../scripts/lib/repo';
import { N8N_MAJOR, N8N_VERSION, NODE_VERSION } from '../../scripts/lib/n8n/runtime';

jest.setTimeout(600_000);

it(`npm run demo -- --n8n ${N8N_MAJOR} chat runs the workflow in n8n ${N8N_VERSION} on Node ${NODE_VERSION}`, async () => {
	const out = mkdtempSync(join(tmpdir(), 'gg-demo-select-'));
	try {
		const env = { ...process.env };
		delete env.GG_N8N_MAJOR;
		for (const k of Object.keys(env))
			if (/^npm_config_/i.test(k) || /^GATEWAY_/.test(k)) delete env[k];
		const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
			(resolve) => {
				const child = spawn(
					'npm',
					['run', 'demo', '--', '--n8n', N8N_MAJOR, '--out', out, 'chat'],
					{ cwd: ROOT, env },
				);
				let stdout = '';
				let stderr = '';
				child.stdout.on('data', (d) => (stdout += d));
				child.stderr.on('data', (d) => (stderr += d));
				child.on('close', (code) => resolve({ code, stdout, stderr }));
			},
		);
		expect({ code: r.code, tail: r.code === 0 ? '' : (r.stdout + r.stderr).slice(-3000) }).toEqual({
			code: 0,
			tail: '',
		});
		expect(r.stdout).toContain(`[demo] n8n ${N8N_VERSION} on Node ${NODE_VERSION}`);
		const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as SummaryEntry[];
		expect(summary.map((e) => [e.workflow, e.step, e.ok])).toEqual([
			['chat', 'Chat', true],
			['chat', 'Write Text', true],
		]);
		expect(readFileSync(join(out, 'chat/chat.txt'), 'utf8').trim().length).toBeGreaterThan(10);
		const proof = JSON.parse(readFileSync(join(out, 'demo-proof.json'), 'utf8')) as DemoProof;
		expect([
			proof.n8nVersion,
			proof.nodeVersion,
			proof.gateway,
			proof.workflows,
			proof.pipeline,
		]).toEqual([N8N_VERSION, NODE_VERSION, 'embedded', ['chat'], false]);
	} finally {
		rmSync(out, { recursive: true, force: true });
	}
});
