/**
 * Screenshots for the README: the demo workflow and a node panel in the real n8n editor.
 * Manual, not part of CI. Needs Debian's chromium (scripts/install-system-deps.sh installs it) and playwright-core (a
 * dev dependency):
 *   npx tsx scripts/screenshots/take.ts
 */
import { join } from 'node:path';
import { startSimulator } from '../../simulator';
import { CRED, INPUT, OUT, WORKFLOWS, toN8n } from '../demo/workflows';
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
			data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl, videoBaseUrl: sim.altBaseUrl },
		},
	]);
	for (const w of WORKFLOWS) {
		await importWorkflow(
			state,
			JSON.parse(
				JSON.stringify(toN8n(w))
					.split(CRED)
					.join('ggdemocred')
					.split(INPUT)
					.join('/tmp/gg-input')
					.split(OUT)
					.join('/tmp/gg-out'),
			),
		);
	}
	let editor: Editor | undefined;
	try {
		editor = await openEditor(state, { width: 1440, height: 820 });
		const { page } = editor;
		const openWorkflow = editor.openWorkflow;
		const shot = async (file: string) =>
			page.screenshot({ path: join(ROOT, 'docs/screenshots', file) });
		const open = async (id: string) => {
			await openWorkflow(id);
			await page.waitForTimeout(300);
		};
		const openNode = async (label: string) => {
			await page
				.locator('[data-test-id="canvas-node"]')
				.filter({ hasText: label })
				.first()
				.dblclick({ force: true });
			await page.waitForTimeout(2500);
		};
		await open('ggdemo01');
		await shot('workflow-text-to-image.png');
		await open('ggdemo09');
		await shot('workflow-wait-loop.png');
		await open('ggdemo01');
		await openNode('Image Submit');
		await shot('node-image-submit.png');
		await open('ggdemo04');
		await openNode('Video Create');
		await shot('node-video-create.png');
		await open('ggdemo01');
		await openNode('Task Wait');
		await shot('node-task-wait.png');
		process.stdout.write('screenshots written to docs/screenshots/\n');
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
		console.error(err);
		process.exit(1);
	},
);
