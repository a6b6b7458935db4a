/**
 * README, "Install into your n8n": the install-from-checkout block run as written (the block after the
 * `install-from-checkout` marker; only its CHECKOUT and NODES lines get this test's folders) on a copy of this
 * checkout, into the nodes folder of a fresh n8n user folder, and then n8n 2.41.1 started on it runs a GenGateway node
 * against the simulator. The package it installs is the one the other e2e tests install the way n8n's installer does
 * (scripts/lib/n8n/state.ts packAndInstall): the same files. The Docker steps are not run (no Docker here); their install
 * command is held to the same one.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readdirSync,
	rmSync,
	symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { crashedAfterRun } from '../../scripts/demo/summary';
import { npmEnv } from '../../scripts/lib/package';
import { startSimulator, type Simulator } from '../../simulator';
import { PACKAGE_NAME, ROOT } from '../../scripts/lib/repo';
import { NODE_HOME } from '../../scripts/lib/n8n/runtime';
import { executeWorkflow, nodeOutput, runFailure } from '../../scripts/lib/n8n/cli';
import { importCredentials, importWorkflow } from '../../scripts/lib/n8n/imports';
import { newState, removeState, removeTemplate } from '../../scripts/lib/n8n/state';

jest.setTimeout(300_000);

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
	name: string;
	version: string;
};

/** The fenced bash block after an HTML comment that starts with `<!-- marker`. */
function blockAfter(marker: string): string {
	const at = README.indexOf(`<!-- ${marker}`);
	if (at < 0) throw new Error(`README.md has no "<!-- ${marker}" marker`);
	const m = /```bash\n([\s\S]*?)```/.exec(README.slice(at));
	if (!m) throw new Error(`README.md has no bash block after "<!-- ${marker}"`);
	return m[1];
}

/** Every file under `dir` (relative path → sha256), leaving out `skip`. */
function fileHashes(dir: string, skip: (rel: string) => boolean): Record<string, string> {
	const out: Record<string, string> = {};
	const walk = (d: string) => {
		for (const e of readdirSync(d, { withFileTypes: true })) {
			const p = join(d, e.name);
			const rel = relative(dir, p);
			if (skip(rel)) continue;
			if (e.isDirectory()) walk(p);
			else out[rel] = createHash('sha256').update(readFileSync(p)).digest('hex');
		}
	};
	walk(dir);
	return out;
}

/** A shell as a user's: the Node that runs n8n first on PATH, and none of the npm_config_* that `npm test` exports. */
function userEnv(): NodeJS.ProcessEnv {
	return { ...npmEnv(), PATH: `${join(NODE_HOME, 'bin')}:${process.env.PATH ?? ''}` };
}

/** A copy of this checkout as it is (the files git tracks or would track, changes included), its npm packages linked. */
function copyCheckout(): string {
	const dir = mkdtempSync(join(tmpdir(), 'gg-checkout-'));
	const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
		cwd: ROOT,
		encoding: 'utf8',
	});
	if (r.status !== 0) throw new Error(`git ls-files failed: ${r.stderr}`);
	for (const f of r.stdout.split('\0').filter(Boolean)) {
		if (!existsSync(join(ROOT, f))) continue;
		mkdirSync(dirname(join(dir, f)), { recursive: true });
		cpSync(join(ROOT, f), join(dir, f));
	}
	// the README's precondition: the checkout's npm packages are installed (npm ci)
	symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
	return dir;
}

describe('README: install from a checkout into a self-hosted n8n', () => {
	const block = blockAfter('install-from-checkout');
	const tarball = `${pkg.name}-${pkg.version}.tgz`;
	let sim: Simulator;
	let state: string;
	let checkout: string;
	let nodes: string;
	/** the package's files as the other e2e tests install it (the state template: n8n's installer's way) */
	let e2eInstall: Record<string, string>;
	const took: Record<string, number> = {};

	beforeAll(async () => {
		sim = await startSimulator({ quiet: true });
		// a migrated n8n state of the driver's; its nodes folder is removed, so the README's steps fill an empty one
		state = await newState();
		nodes = join(state, '.n8n/nodes');
		e2eInstall = fileHashes(
			join(nodes, 'node_modules', PACKAGE_NAME),
			(rel) => rel === 'node_modules' || rel === 'package.json',
		);
		rmSync(nodes, { recursive: true, force: true });
		checkout = copyCheckout();
	});
	afterAll(async () => {
		await sim?.stop();
		if (state) removeState(state);
		if (checkout) rmSync(checkout, { recursive: true, force: true });
		removeTemplate();
		console.log(
			`install-readme: ${Object.entries(took)
				.map(([k, v]) => `${k} ${Math.round(v / 100) / 10} s`)
				.join(', ')}`,
		);
	});

	it("the README's block names this version's tarball and sets only CHECKOUT and NODES for the reader", () => {
		const lines = block.trim().split('\n');
		expect(lines.filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split('=')[0])).toEqual([
			'CHECKOUT',
			'NODES',
		]);
		expect(block).toContain('npm run build && npm pack');
		expect(block).toContain(`./${tarball}`);
		expect(block).not.toMatch(/\bsudo\b|\s-g\b|--global/);
	});

	it('runs as written: builds and packs the checkout, installs the tarball into an empty nodes folder without the peer dependencies', () => {
		const script = block
			.replace(/^CHECKOUT=.*$/m, `CHECKOUT=${JSON.stringify(checkout)}`)
			.replace(/^NODES=.*$/m, `NODES=${JSON.stringify(nodes)}`);
		const started = Date.now();
		const r = spawnSync('bash', ['-e', '-c', script], {
			cwd: tmpdir(),
			env: userEnv(),
			encoding: 'utf8',
			maxBuffer: 64 << 20,
		});
		took['README steps'] = Date.now() - started;
		if (r.status !== 0)
			throw new Error(
				`the README's install steps failed (exit ${r.status}):\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`,
			);
		// the checkout was built and packed by the steps (not the repository's own dist/)
		expect(
			existsSync(join(checkout, 'dist/nodes/GenGatewayPricing/GenGatewayPricing.node.js')),
		).toBe(true);
		expect(existsSync(join(nodes, tarball))).toBe(true);
		const installed = join(nodes, 'node_modules', PACKAGE_NAME);
		expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version).toBe(
			pkg.version,
		);
		// n8n's own n8n-workflow and AI node SDK serve the nodes: no copy of them in the nodes folder
		for (const peer of ['n8n-workflow', '@n8n/ai-node-sdk']) {
			expect(existsSync(join(nodes, 'node_modules', peer))).toBe(false);
			expect(existsSync(join(installed, 'node_modules', peer))).toBe(false);
		}
		for (const dep of ['undici', 'zod', 'eventsource-parser', 'image-size', 'sharp'])
			expect(existsSync(join(nodes, 'node_modules', dep))).toBe(true);
	});

	it('installs the same files the other e2e tests install (the way n8n installs a community package)', () => {
		const readme = fileHashes(
			join(nodes, 'node_modules', PACKAGE_NAME),
			(rel) => rel === 'node_modules' || rel === 'package.json',
		);
		expect(Object.keys(readme).length).toBeGreaterThan(100);
		expect(readme).toEqual(e2eInstall);
	});

	it('after the restart n8n loads the package: a GenGateway Pricing workflow with the credential runs against the simulator', async () => {
		expect(existsSync(join(nodes, 'node_modules', PACKAGE_NAME))).toBe(true);
		const started = Date.now();
		// each n8n command below is a fresh n8n process: the "restart" of the README's steps
		await importCredentials(state, [
			{
				id: 'ggcredreadme',
				name: 'Gateway',
				type: 'genGatewayApi',
				data: { apiKey: sim.keys.demo, baseUrl: `${sim.baseUrl}/v1/` },
			},
		]);
		await importWorkflow(state, {
			id: 'ggreadme1',
			name: 'readme install',
			active: false,
			nodes: [
				{
					id: 'n1',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'n2',
					name: 'Models',
					type: `${PACKAGE_NAME}.genGatewayPricing`,
					typeVersion: 1,
					position: [200, 0],
					parameters: { operation: 'listModels' },
					credentials: { genGatewayApi: { id: 'ggcredreadme', name: 'Gateway' } },
				},
			],
			connections: { Start: { main: [[{ node: 'Models', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		});
		const res = await executeWorkflow(state, 'ggreadme1');
		took['n8n import and execute'] = Date.now() - started;
		if (res.code !== 0 && !crashedAfterRun(res)) throw new Error(runFailure(res));
		const items = nodeOutput(res, 'Models');
		expect(items.find((i) => i.json.model === 'alpha-image-2-4k')?.json.callable).toBe(true);
		expect(sim.log.filter((l) => l.path === '/v1/models')).toHaveLength(1);
	});

	it('the Docker steps (not run here) build and pack the same way and install with the same npm command, in the mounted folder', () => {
		const docker = /\*\*Docker\*\*[\s\S]*?```bash\n([\s\S]*?)```/.exec(README)?.[1];
		expect(docker).toBeDefined();
		const install = /^npm install .*$/m.exec(block)![0];
		expect(docker).toContain('npm run build && npm pack');
		expect(docker).toContain(`docker cp ${tarball} n8n:/home/node/.n8n/nodes/`);
		expect(docker).toContain(`docker exec -w /home/node/.n8n/nodes n8n ${install}`);
		expect(docker).toContain('docker restart n8n');
	});
});
