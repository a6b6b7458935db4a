/**
 * The real n8n editor for screenshots: `n8n start` on a prepared state folder, its owner set up, and Debian's
 * chromium (through playwright-core, not a dependency of the package) logged in to it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort } from '../lib/port';
import { N8N_BIN, N8N_NODE } from '../lib/n8n/runtime';
import { n8nEnv } from '../lib/n8n/env';

// playwright-core's types are not installed with the project
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Page = any;

export interface Editor {
	page: Page;
	base: string;
	/** opens a workflow on the canvas and waits until its nodes are drawn */
	openWorkflow(id: string): Promise<void>;
	close(): Promise<void>;
}

export async function openEditor(
	state: string,
	view: { width: number; height: number; scale?: number },
): Promise<Editor> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { chromium } = require(process.env.PLAYWRIGHT_CORE ?? 'playwright-core');
	const port = await freePort();
	const env = {
		...n8nEnv(state, await freePort()),
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
	};
	const n8n = spawn(N8N_NODE, [N8N_BIN, 'start'], {
		env,
		cwd: state,
		detached: true,
		stdio: 'ignore',
	});
	const stopN8n = () => {
		try {
			process.kill(-n8n.pid!, 'SIGTERM');
		} catch {
			/* gone */
		}
	};
	const base = `http://127.0.0.1:${port}`;
	const userDir = mkdtempSync(join(tmpdir(), 'gg-chromium-'));
	try {
		for (let k = 0; ; k++) {
			const ok = await request(`${base}/healthz/readiness`).then(
				(r) => r.statusCode === 200,
				() => false,
			);
			if (ok) break;
			if (k > 120) throw new Error('n8n did not become ready');
			await new Promise((r) => setTimeout(r, 500));
		}
		const setup = await request(`${base}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				email: 'demo@example.com',
				firstName: 'Demo',
				lastName: 'User',
				password: 'Demo-Passw0rd!',
			}),
		});
		const cookie = String(setup.headers['set-cookie'] ?? '').split(';')[0];
		await setup.body.dump();
		if (!cookie.includes('='))
			throw new Error(`owner setup gave no cookie (HTTP ${setup.statusCode})`);
		const [name, value] = cookie.split('=');
		const browser = await chromium.launchPersistentContext(userDir, {
			executablePath: '/usr/bin/chromium',
			headless: true,
			viewport: { width: view.width, height: view.height },
			deviceScaleFactor: view.scale ?? 1,
			args: [
				'--no-sandbox',
				'--disable-gpu',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
				'--no-first-run',
				'--disable-quic',
			],
		});
		await browser.addCookies([{ name, value, domain: '127.0.0.1', path: '/' }]);
		const page = browser.pages()[0] ?? (await browser.newPage());
		return {
			page,
			base,
			openWorkflow: async (id) => {
				await page.goto(`${base}/workflow/${id}`, { waitUntil: 'networkidle' });
				await page.waitForSelector('[data-test-id="canvas-node"]', { timeout: 90_000 });
				await page.waitForTimeout(1500);
				await page.keyboard.press('Escape');
			},
			close: async () => {
				await browser.close();
				rmSync(userDir, { recursive: true, force: true });
				stopN8n();
			},
		};
	} catch (err) {
		stopN8n();
		rmSync(userDir, { recursive: true, force: true });
		throw err;
	}
}
