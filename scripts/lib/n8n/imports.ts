/** Importing credentials and workflows into an n8n state folder (`n8n import:credentials`, `n8n import:workflow`). */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runN8n } from './cli';

export interface Credential {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

export async function importCredentials(stateDir: string, creds: Credential[]): Promise<void> {
	const f = join(stateDir, `creds-${Date.now()}.json`);
	writeFileSync(f, JSON.stringify(creds));
	const r = await runN8n(stateDir, ['import:credentials', `--input=${f}`]);
	rmSync(f, { force: true });
	if (r.code !== 0)
		throw new Error(`import:credentials failed (${r.code}): ${r.stderr.slice(-2000)}`);
}

export async function importWorkflow(stateDir: string, wf: Record<string, unknown>): Promise<void> {
	const f = join(stateDir, `wf-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
	writeFileSync(f, JSON.stringify(wf));
	const r = await runN8n(stateDir, ['import:workflow', `--input=${f}`]);
	rmSync(f, { force: true });
	if (r.code !== 0) throw new Error(`import:workflow failed (${r.code}): ${r.stderr.slice(-2000)}`);
}
