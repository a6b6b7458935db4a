/**
 * Screenshots for the README: the demo workflow and a node panel in the real n8n editor.
 * Manual, not part of CI. Needs Debian's chromium and playwright-core (not a dependency of the package):
 *   apt-get install -y chromium && (cd /tmp/pw && npm install --no-save playwright-core@1)
 *   PLAYWRIGHT_CORE=/tmp/pw/node_modules/playwright-core npx tsx scripts/screenshots/take.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startSimulator } from '../../simulator';
import { CRED, INPUT, OUT, WORKFLOWS, toN8n } from '../demo/workflows';
import { N8N_BIN, N8N_NODE, ROOT, freePort, importCredentials, importWorkflow, n8nEnv, newState, removeState, removeTemplate } from '../../test/e2e/n8n';

async function main() {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { chromium } = require(process.env.PLAYWRIGHT_CORE ?? 'playwright-core');
	const sim = await startSimulator({ quiet: true });
	const state = await newState();
	const port = await freePort();
	await importCredentials(state, [{ id: 'ggdemocred', name: 'GenGateway account', type: 'genGatewayApi', data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl, videoBaseUrl: sim.altBaseUrl } }]);
	for (const w of WORKFLOWS) {
		await importWorkflow(state, JSON.parse(JSON.stringify(toN8n(w)).split(CRED).join('ggdemocred').split(INPUT).join('/tmp/gg-input').split(OUT).join('/tmp/gg-out')));
	}
	const env = { ...n8nEnv(state, await freePort()), N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1', N8N_SECURE_COOKIE: 'false' };
	const n8n = spawn(N8N_NODE, [N8N_BIN, 'start'], { env, cwd: state, detached: true, stdio: 'ignore' });
	const base = `http://127.0.0.1:${port}`;
	try {
		for (let k = 0; ; k++) {
			const ok = await request(`${base}/healthz/readiness`).then((r) => r.statusCode === 200, () => false);
			if (ok) break;
			if (k > 120) throw new Error('n8n did not become ready');
			await new Promise((r) => setTimeout(r, 500));
		}
		const setup = await request(`${base}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ email: 'demo@example.com', firstName: 'Demo', lastName: 'User', password: 'Demo-Passw0rd!' }),
		});
		const cookie = String(setup.headers['set-cookie'] ?? '').split(';')[0];
		await setup.body.dump();
		if (!cookie.includes('=')) throw new Error(`owner setup gave no cookie (HTTP ${setup.statusCode})`);
		const [name, value] = cookie.split('=');
		const userDir = mkdtempSync(join(tmpdir(), 'gg-chromium-'));
		const browser = await chromium.launchPersistentContext(userDir, {
			executablePath: '/usr/bin/chromium',
			headless: true,
			viewport: { width: 1440, height: 820 },
			args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
		});
		await browser.addCookies([{ name, value, domain: '127.0.0.1', path: '/' }]);
		const page = browser.pages()[0] ?? (await browser.newPage());
		const shot = async (file: string) => page.screenshot({ path: join(ROOT, 'docs/screenshots', file) });
		const open = async (id: string) => {
			await page.goto(`${base}/workflow/${id}`, { waitUntil: 'networkidle' });
			await page.waitForSelector('[data-test-id="canvas-node"]', { timeout: 90_000 });
			await page.waitForTimeout(1500);
			await page.keyboard.press('Escape');
			await page.waitForTimeout(300);
		};
		const openNode = async (label: string) => {
			await page.locator('[data-test-id="canvas-node"]').filter({ hasText: label }).first().dblclick({ force: true });
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
		await browser.close();
		rmSync(userDir, { recursive: true, force: true });
		process.stdout.write('screenshots written to docs/screenshots/\n');
	} finally {
		try {
			process.kill(-n8n.pid!, 'SIGTERM');
		} catch {
			/* gone */
		}
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
