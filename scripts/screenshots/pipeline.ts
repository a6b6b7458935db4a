/**
 * Screenshots of the scheduled pipeline for the README: both workflows in the real n8n editor, and a mail the
 * pipeline delivered (a real run: scripts/pipeline/run.ts), rendered as a mail client shows it.
 * Manual, not part of CI; needs Debian's chromium and playwright-core (see scripts/screenshots/take.ts):
 *   PLAYWRIGHT_CORE=/tmp/pw/node_modules/playwright-core npx tsx scripts/screenshots/pipeline.ts
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { ROOT } from '../lib/repo';
import { importCredentials, importWorkflow } from '../lib/n8n/imports';
import { newState, removeState, removeTemplate } from '../lib/n8n/state';
import { openEditor, type Editor } from './editor';
import { CREDENTIAL_ID } from '../demo/workflows';
import { demoPrompts, pipelineWorkflow, runPipeline } from '../pipeline/run';
import { PIPELINE } from '../pipeline/workflows';

/** in the page: does a node (its box or label) reach down to the Execute workflow button? (a string: no transpiled helpers) */
const UNDER_BUTTON = `(() => {
	const button = document.querySelector('[data-test-id="execute-workflow-button"]');
	if (!button) return false;
	const top = button.getBoundingClientRect().top - 8;
	return [...document.querySelectorAll('[data-test-id="canvas-node"], [data-test-id="canvas-node"] *')].some((e) => e.getBoundingClientRect().bottom > top);
})()`;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

async function main() {
	// a real run first: the mail comes from it
	const keep = mkdtempSync(join(tmpdir(), 'gg-pipe-keep-'));
	await runPipeline({ prompts: demoPrompts(1, 0), keepDir: keep, log: () => undefined });
	const mail = await simpleParser(readFileSync(join(keep, 'mail/001.eml')));
	const mailPage = join(keep, 'mail.html');
	writeFileSync(
		mailPage,
		`<!doctype html><html><body style="margin:0;font-family:sans-serif;background:#f3f4f6">
<div style="margin:24px;background:#fff;border:1px solid #d1d5db;border-radius:8px;overflow:hidden">
<div style="padding:16px 20px;border-bottom:1px solid #e5e7eb;background:#fafafa">
<div style="font-size:20px;font-weight:600;margin-bottom:10px">${esc(mail.subject ?? '')}</div>
<div style="color:#374151;line-height:1.6"><b>From:</b> ${esc(mail.from?.text ?? '')}<br><b>To:</b> ${esc(
			[mail.to ?? []]
				.flat()
				.map((a) => a.text)
				.join(', '),
		)}<br><b>Date:</b> ${esc(mail.date?.toUTCString() ?? '')}</div>
</div>
<pre style="padding:16px 20px;margin:0;font-size:15px;white-space:pre-wrap">${esc(mail.text ?? '')}</pre>
</div></body></html>`,
	);

	const state = await newState();
	await importCredentials(state, [
		{
			id: CREDENTIAL_ID,
			name: 'GenGateway account',
			type: 'genGatewayApi',
			data: { apiKey: 'sk-screenshot-placeholder', baseUrl: 'https://gateway.example.com' },
		},
		{
			id: 'ggpipepg',
			name: 'Pipeline database',
			type: 'postgres',
			data: {
				host: '127.0.0.1',
				port: 5432,
				database: 'pipeline',
				user: 'n8n',
				password: '',
				ssl: 'disable',
			},
		},
		{
			id: 'ggpipes3',
			name: 'Object store',
			type: 's3',
			data: {
				endpoint: 'http://127.0.0.1:9000',
				region: 'us-east-1',
				accessKeyId: 'KEY',
				secretAccessKey: 'SECRET',
				forcePathStyle: true,
			},
		},
		{
			id: 'ggpipesmtp',
			name: 'Mail server',
			type: 'smtp',
			data: { host: '127.0.0.1', port: 2525, user: 'pipeline', password: 'x', secure: false },
		},
	]);
	for (const w of PIPELINE)
		await importWorkflow(
			state,
			pipelineWorkflow(w.folder, { resultsUrl: 'https://objects.example.com/gen-results' }),
		);
	let editor: Editor | undefined;
	try {
		editor = await openEditor(state, { width: 1400, height: 800, scale: 2 }); // scale 2: sticky notes stay readable when the README image is opened
		const { page } = editor;
		const open = editor.openWorkflow;
		for (const w of PIPELINE) {
			await open(w.id);
			await page.click('[data-test-id="zoom-to-fit"]');
			await page.waitForTimeout(800);
			// zoomed to fit, the lowest node labels can sit under the Execute workflow button: step out until clear
			for (let k = 0; k < 3 && (await page.evaluate(UNDER_BUTTON)); k++) {
				await page.click('[data-test-id="zoom-out-button"]');
				await page.waitForTimeout(800);
			}
			await page.mouse.move(1, 400); // no hover highlight on a node
			await page.screenshot({ path: join(ROOT, 'docs/screenshots', `${w.folder}.png`) });
		}
		await page.setViewportSize({ width: 900, height: 500 });
		await page.goto(`file://${mailPage}`);
		// cut below the card (its margin kept), so no empty band under a short mail
		const card = await page.locator('body > div').boundingBox();
		const height = Math.min(500, Math.ceil(card ? card.y + card.height + 24 : 500));
		await page.screenshot({
			path: join(ROOT, 'docs/screenshots/pipeline-mail.png'),
			clip: { x: 0, y: 0, width: 900, height },
		});
		process.stdout.write('screenshots written to docs/screenshots/\n');
	} finally {
		await editor?.close();
		removeState(state);
		removeTemplate();
		rmSync(keep, { recursive: true, force: true });
	}
}

main().then(
	() => process.exit(0),
	(err) => {
		console.error(err);
		process.exit(1);
	},
);
