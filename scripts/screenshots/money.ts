/**
 * The README's screenshots for "Money you can see and cap": a two-node budget workflow run in the real n8n editor,
 * the first batch's output with its spend hint and an item's `cost` (execution-cost.png), and the stored execution in
 * the Executions tab with the custom data read by a last Code node (execution-custom-data.png): n8n 2.41.1's community
 * edition has no "Highlighted data" panel (licence feature advancedExecutionFilters) and its filter is disabled.
 * Manual, not part of CI (needs Debian's chromium and playwright-core, see take.ts):
 *   npx tsx scripts/screenshots/money.ts            (GG_SHOT_DEBUG=/some/dir also saves every step there)
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator } from '../../simulator';
import { OUT } from '../demo/workflows';
import { ROOT } from '../lib/repo';
import { importCredentials, importWorkflow } from '../lib/n8n/imports';
import { newState, removeState, removeTemplate } from '../lib/n8n/state';
import { openEditor, type Editor } from './editor';

const CRED_ID = 'ggdemocred';

/** examples/budget.json as shipped, writing into `outDir`, with one more node: a Code node returning the custom data */
function budgetWorkflow(outDir: string) {
	const wf = JSON.parse(
		readFileSync(join(ROOT, 'examples/budget.json'), 'utf8')
			.split('REPLACE_CREDENTIAL_ID')
			.join(CRED_ID)
			.split(`${OUT}/budget`)
			.join(outDir),
	);
	const last = wf.nodes.find((n: { name: string }) => n.name === 'Second batch');
	// the community edition's editor shows custom data nowhere (no "Highlighted data" without a licence), so a node reads it
	wf.nodes.push({
		id: 'ggmoney-custom',
		name: 'Custom data',
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		position: [last.position[0] + 240, last.position[1]],
		parameters: { jsCode: 'return [{ json: $execution.customData.getAll() }];' },
	});
	wf.connections['Second batch'] = { main: [[{ node: 'Custom data', type: 'main', index: 0 }]] };
	return wf as Record<string, unknown> & { id: string };
}

async function main() {
	const debugDir = process.env.GG_SHOT_DEBUG;
	if (debugDir) mkdirSync(debugDir, { recursive: true });
	const sim = await startSimulator({ quiet: true });
	const state = await newState();
	// the editor's n8n allows file access to <state>/files only (n8nEnv's default)
	const outDir = join(state, 'files', 'budget');
	mkdirSync(outDir, { recursive: true });
	await importCredentials(state, [
		{
			id: CRED_ID,
			name: 'GenGateway account',
			type: 'genGatewayApi',
			data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		},
	]);
	const wf = budgetWorkflow(outDir);
	await importWorkflow(state, wf);
	let editor: Editor | undefined;
	try {
		editor = await openEditor(state, { width: 1440, height: 900 });
		const { page } = editor;
		let step = 0;
		const debug = async (label: string) => {
			if (debugDir)
				await page.screenshot({
					path: join(debugDir, `${String(++step).padStart(2, '0')}-${label}.png`),
				});
		};
		const shot = async (file: string) => {
			await page.screenshot({ path: join(ROOT, 'docs/screenshots', file) });
			process.stdout.write(`docs/screenshots/${file} written\n`);
		};
		const closeToasts = () =>
			page
				.locator('.el-notification__closeBtn')
				.evaluateAll((els: Array<{ click(): void }>) => els.forEach((e) => e.click()));
		await editor.openWorkflow(wf.id);
		await debug('opened');
		// run it as a user does, so n8n stores the execution (the Executions tab shows it)
		await page.locator('[data-test-id="execute-workflow-button"]').first().click();
		await page.getByText('Workflow executed successfully').first().waitFor({ timeout: 120_000 });
		await page.waitForTimeout(1500);
		await closeToasts();
		await page.waitForTimeout(800);
		await debug('executed');

		// 1. the first batch's output: the price and spend hints above it, the first item's `cost` (a taller window fits both)
		await page.setViewportSize({ width: 1440, height: 1380 });
		await page
			.locator('[data-test-id="canvas-node"]')
			.filter({ hasText: 'First batch' })
			.first()
			.dblclick({ force: true });
		await page.waitForTimeout(2500);
		const out = page.locator('[data-test-id="output-panel"]');
		await out.getByText('JSON', { exact: true }).first().click();
		await page.waitForTimeout(1500);
		await out.getByText('"cost"').first().scrollIntoViewIfNeeded();
		await out.getByText('This node:').first().waitFor();
		await page.waitForTimeout(500);
		await shot('execution-cost.png');
		await page.keyboard.press('Escape');
		await page.setViewportSize({ width: 1440, height: 900 });
		await page.waitForTimeout(800);
		if (debugDir) {
			await page
				.locator('[data-test-id="canvas-node"]')
				.filter({ hasText: 'Second batch' })
				.first()
				.dblclick({ force: true });
			await page.waitForTimeout(2500);
			await debug('second-batch');
			await page.keyboard.press('Escape');
			await page.waitForTimeout(800);
		}

		// 2. the stored execution in the Executions tab. The community edition has no "Highlighted data" button there
		// (n8n draws it only with the advancedExecutionFilters licence feature) and the list's "Highlighted data"
		// filter is disabled, so the custom data is shown by the workflow's last node, a Code node reading
		// $execution.customData.getAll(), opened in that stored execution.
		await page.getByText('Executions', { exact: true }).first().click();
		await page.waitForTimeout(4000);
		await debug('executions');
		if (debugDir) {
			await page.locator('[data-test-id="executions-filter-button"]').first().click();
			await page.waitForTimeout(1500);
			await debug('executions-filter');
			await page.locator('[data-test-id="executions-filter-button"]').first().click();
			await page.waitForTimeout(800);
		}
		await page
			.locator('[data-test-id="canvas-node"]')
			.filter({ hasText: 'Custom data' })
			.first()
			.dblclick({ force: true });
		await page.waitForTimeout(2500);
		await page
			.locator('[data-test-id="output-panel"]')
			.getByText('gengateway_spent_text')
			.first()
			.waitFor();
		await shot('execution-custom-data.png');
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
