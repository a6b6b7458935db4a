/**
 * The README's screenshot of the AI Agent workflow (examples/agent.json) in the real n8n editor.
 * Manual, not part of CI (needs Debian's chromium and playwright-core, see take.ts):
 *   npx tsx scripts/screenshots/agent.ts
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator } from '../../simulator';
import { ROOT } from '../lib/repo';
import { importCredentials, importWorkflow } from '../lib/n8n/imports';
import { newState, removeState, removeTemplate } from '../lib/n8n/state';
import { openEditor, type Editor } from './editor';

async function main() {
	const sim = await startSimulator({ quiet: true });
	const state = await newState();
	await importCredentials(state, [
		{
			id: 'ggdemocred',
			name: 'GenGateway account',
			type: 'genGatewayApi',
			data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		},
	]);
	await importWorkflow(
		state,
		JSON.parse(
			readFileSync(join(ROOT, 'examples/agent.json'), 'utf8')
				.split('REPLACE_CREDENTIAL_ID')
				.join('ggdemocred'),
		),
	);
	let editor: Editor | undefined;
	try {
		editor = await openEditor(state, { width: 1440, height: 820 });
		await editor.openWorkflow('ggdemo20');
		await editor.page.waitForTimeout(800);
		await editor.page.screenshot({ path: join(ROOT, 'docs/screenshots/workflow-agent.png') });
		process.stdout.write('docs/screenshots/workflow-agent.png written\n');
	} finally {
		await editor?.close();
		await sim.stop();
		removeState(state);
		removeTemplate();
	}
}

main().then(
	() => process.exit(0),
	(err) => {
		process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
		process.exit(1);
	},
);
