/**
 * The install step that builds n8n's native modules (scripts/lib/rebuild-native.sh, run by install-n8n.sh for
 * sqlite3) under the environment `npm run` gives it: npm exports the project's .npmrc (ignore-scripts=true) as
 * npm_config_ignore_scripts, which once made the build a silent no-op and left an n8n that could not load sqlite3.
 * A tiny N-API addon with a node-gyp install script stands in for sqlite3 (seconds instead of a 6-minute install);
 * the real sqlite3 of each installed n8n is loaded too.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/repo';
import { N8N_HOME, N8N_NODE, NODE_HOME, n8nInstalled } from '../../scripts/lib/n8n/runtime';

jest.setTimeout(300_000);

describe('native modules of the private n8n', () => {
	let app: string;
	beforeAll(() => {
		app = mkdtempSync(join(tmpdir(), 'gg-native-'));
		cpSync(join(ROOT, 'test/fixtures/native-addon'), join(app, 'fixture'), { recursive: true });
		writeFileSync(
			join(app, 'package.json'),
			JSON.stringify({
				name: 'app',
				private: true,
				dependencies: { 'gg-native-fixture': 'file:./fixture' },
			}),
		);
		// installed as the n8n app is: scripts off
		execFileSync(
			'npm',
			[
				'install',
				'--ignore-scripts',
				'--install-links',
				'--no-audit',
				'--no-fund',
				'--loglevel=error',
			],
			{ cwd: app, stdio: 'pipe' },
		);
	});
	afterAll(() => rmSync(app, { recursive: true, force: true }));

	const loads = () =>
		spawnSync(
			N8N_NODE,
			['-e', "process.stdout.write(String(require('gg-native-fixture').answer()))"],
			{ cwd: app, encoding: 'utf8' },
		);

	it('the addon does not load before the step (its install script was skipped)', () => {
		expect(loads().status).not.toBe(0);
	});

	it("the step builds it against the private Node under npm's exported ignore-scripts=true, and it loads", () => {
		// `npm exec` from the project exports the project's configuration exactly as `npm run demo` / `npm test` do
		const env = { ...process.env };
		for (const k of Object.keys(env)) if (/^npm_config_/i.test(k)) delete env[k];
		const probe = spawnSync('npm', ['exec', '-c', 'printf %s "$npm_config_ignore_scripts"'], {
			cwd: ROOT,
			env,
			encoding: 'utf8',
		});
		expect(probe.stdout).toBe('true');
		const r = spawnSync(
			'npm',
			[
				'exec',
				'-c',
				`bash scripts/lib/rebuild-native.sh ${JSON.stringify(app)} ${JSON.stringify(NODE_HOME)} gg-native-fixture`,
			],
			{ cwd: ROOT, env, encoding: 'utf8' },
		);
		expect({ status: r.status, out: r.stdout + r.stderr }).toMatchObject({ status: 0 });
		expect(r.stdout).toContain('gg-native-fixture rebuilt and loads');
		expect(loads().stdout).toBe('42');
	});

	it("the same when the user's own npm configuration says ignore-scripts=true", () => {
		rmSync(join(app, 'node_modules/gg-native-fixture/build'), { recursive: true, force: true });
		expect(loads().status).not.toBe(0);
		const userrc = join(app, 'user.npmrc');
		writeFileSync(userrc, 'ignore-scripts=true\n');
		const env: NodeJS.ProcessEnv = { ...process.env, npm_config_userconfig: userrc };
		for (const k of Object.keys(env))
			if (/^npm_config_/i.test(k) && k !== 'npm_config_userconfig') delete env[k];
		const r = spawnSync(
			'npm',
			[
				'exec',
				'-c',
				`bash scripts/lib/rebuild-native.sh ${JSON.stringify(app)} ${JSON.stringify(NODE_HOME)} gg-native-fixture`,
			],
			{ cwd: ROOT, env, encoding: 'utf8' },
		);
		expect({ status: r.status, out: r.stdout + r.stderr }).toMatchObject({ status: 0 });
		expect(loads().stdout).toBe('42');
	});

	it('the installed n8n loads sqlite3 and isolated-vm with its own Node', () => {
		expect(n8nInstalled()).toBe(true);
		const app = join(N8N_HOME, 'app');
		expect(existsSync(join(app, 'node_modules/sqlite3'))).toBe(true);
		const r = spawnSync(
			N8N_NODE,
			['-e', "require('sqlite3'); require('isolated-vm'); process.stdout.write('ok')"],
			{ cwd: app, encoding: 'utf8' },
		);
		expect(r.stdout + r.stderr).toBe('ok');
	});
});
