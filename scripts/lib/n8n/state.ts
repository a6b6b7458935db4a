/**
 * n8n state folders with this package installed: the package packed and installed the way n8n installs a community
 * package (`packAndInstall`), the state template (package installed, database migrated) built once and copied for each
 * new state, and their removal.
 */
import { execFileSync } from 'node:child_process';
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	renameSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureBuilt } from '../package';
import { PACKAGE_NAME, ROOT } from '../repo';
import { runN8n } from './cli';
import { N8N_NODE, N8N_VERSION, NODE_HOME, ensureN8n } from './runtime';
import { buildStamp } from './stamp';

/** Packs the repo and installs the tarball the way n8n installs a community package. */
export function packAndInstall(stateDir: string): string {
	ensureBuilt();
	const packDir = mkdtempSync(join(tmpdir(), 'gg-pack-'));
	const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', packDir], {
		cwd: ROOT,
		encoding: 'utf8',
	})
		.trim()
		.split('\n')
		.pop()!;
	const tarball = join(packDir, out);
	const nodesDir = join(stateDir, '.n8n/nodes');
	const pkgDir = join(nodesDir, 'node_modules', PACKAGE_NAME);
	mkdirSync(pkgDir, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', pkgDir, '--strip-components=1']);
	const pkgJsonPath = join(pkgDir, 'package.json');
	const pkg = JSON.parse(readFileSync(pkgJsonPath, 'utf8'));
	delete pkg.devDependencies;
	delete pkg.peerDependencies;
	delete pkg.optionalDependencies;
	writeFileSync(pkgJsonPath, JSON.stringify(pkg, null, 2));
	const npmCli = join(NODE_HOME, 'lib/node_modules/npm/bin/npm-cli.js');
	const npmArgs = [
		'install',
		'--audit=false',
		'--fund=false',
		'--bin-links=false',
		'--install-strategy=shallow',
		'--ignore-scripts=true',
		'--package-lock=false',
		'--loglevel=error',
	];
	const env = { ...process.env, PATH: `${join(NODE_HOME, 'bin')}:${process.env.PATH ?? ''}` };
	if (existsSync(npmCli))
		execFileSync(N8N_NODE, [npmCli, ...npmArgs], { cwd: pkgDir, env, stdio: 'pipe' });
	else execFileSync('npm', npmArgs, { cwd: pkgDir, env, stdio: 'pipe' });
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify(
			{ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: pkg.version } },
			null,
			2,
		),
	);
	rmSync(packDir, { recursive: true, force: true });
	return pkgDir;
}

let template: string | undefined;
/** whether `template` is the run's shared one (GG_N8N_TEMPLATES), which removeTemplate() leaves for the next process */
let templateShared = false;

async function buildTemplate(dir: string): Promise<void> {
	mkdirSync(dir, { recursive: true });
	packAndInstall(dir);
	// runs the migrations; the import itself may complain about the empty input
	await runN8n(dir, ['import:credentials', '--input=/dev/null']).catch(() => undefined);
}

/**
 * The state template of this n8n version and build. With GG_N8N_TEMPLATES (a folder; scripts/demo.sh and
 * scripts/test.sh set it to out/n8n-templates) it is shared by every process of a run: built once in
 * <folder>/n8n-<version>, stamped with buildStamp(), and built again only when the stamp differs (another build, or an
 * interrupted build without a stamp). Without it each process builds its own in a temporary folder.
 */
let templateBuilding: Promise<string> | undefined;

/** One build at a time in a process (the demo's workflows and its pipeline ask for a state at the same time). */
function stateTemplate(): Promise<string> {
	if (template) return Promise.resolve(template);
	templateBuilding ??= buildOrShareTemplate().finally(() => (templateBuilding = undefined));
	return templateBuilding;
}

async function buildOrShareTemplate(): Promise<string> {
	if (template) return template;
	const shared = process.env.GG_N8N_TEMPLATES;
	if (!shared) {
		template = mkdtempSync(join(tmpdir(), 'gg-n8n-template-'));
		await buildTemplate(template);
		return template;
	}
	const dir = join(resolve(shared), `n8n-${N8N_VERSION}`);
	const stampFile = join(dir, '.gg-template-stamp');
	const stamp = buildStamp();
	if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp) {
		rmSync(dir, { recursive: true, force: true });
		const building = `${dir}.building-${process.pid}`;
		rmSync(building, { recursive: true, force: true });
		await buildTemplate(building);
		if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
			// another process of the run (a second jest worker) finished first and may be copying from it: keep theirs
			rmSync(building, { recursive: true, force: true });
		} else {
			writeFileSync(join(building, '.gg-template-stamp'), stamp);
			rmSync(dir, { recursive: true, force: true });
			renameSync(building, dir);
		}
	}
	template = dir;
	templateShared = true;
	return template;
}

/**
 * A fresh n8n state folder with our package installed and the database migrated: a copy of the state template
 * (the first call in a process, or the first of a run with GG_N8N_TEMPLATES, packs, installs and migrates).
 */
export async function newState(): Promise<string> {
	ensureN8n();
	const from = await stateTemplate();
	const dir = mkdtempSync(join(tmpdir(), 'gg-n8n-state-'));
	cpSync(from, dir, { recursive: true, filter: (src) => !src.endsWith('.gg-template-stamp') });
	mkdirSync(join(dir, 'files'), { recursive: true });
	return dir;
}

export function removeState(dir: string): void {
	rmSync(dir, { recursive: true, force: true });
}

/** Removes this process's own template; a shared one (GG_N8N_TEMPLATES) stays for the run's other processes. */
export function removeTemplate(): void {
	if (template && !templateShared) rmSync(template, { recursive: true, force: true });
	template = undefined;
	templateShared = false;
}
