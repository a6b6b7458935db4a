/**
 * The built and packed package: dist/ built when a source is newer (ensureBuilt), what `npm pack` puts in the tarball,
 * and the tarball itself. Used by the tarball and scanner tests (test/package/), `npm run scan` and the n8n driver's
 * install (scripts/lib/n8n/state.ts).
 * The rule of what the tarball may hold lives here, beside the listing: what n8n loads and nothing else.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ROOT } from './repo';

function newestMtime(dir: string): number {
	let newest = 0;
	for (const e of readdirSync(dir, { withFileTypes: true })) {
		const p = join(dir, e.name);
		if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
		else newest = Math.max(newest, statSync(p).mtimeMs);
	}
	return newest;
}

/** Builds dist/ when any source is newer than it. */
export function ensureBuilt(): void {
	const marker = join(ROOT, 'dist/index.js');
	const src = Math.max(
		newestMtime(join(ROOT, 'nodes')),
		newestMtime(join(ROOT, 'credentials')),
		newestMtime(join(ROOT, 'icons')),
		statSync(join(ROOT, 'index.ts')).mtimeMs,
	);
	if (!existsSync(marker) || statSync(marker).mtimeMs < src)
		execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

/**
 * The environment for npm here: none of the npm_config_* a surrounding `npm run` / `npm publish` exports (under
 * `npm publish --dry-run`, prepublishOnly's tests would inherit dry-run and pack nothing), only what reaches the
 * registry (as scripts/lib/npm-env.sh keeps).
 */
export function npmEnv(): NodeJS.ProcessEnv {
	const env = { ...process.env };
	for (const k of Object.keys(env))
		if (
			/^npm_config_/i.test(k) &&
			!/^npm_config_(registry|cache|userconfig|globalconfig|proxy|https_proxy|noproxy|no_proxy|cafile|ca|strict_ssl|fetch_.*|maxsockets)$/i.test(
				k,
			)
		)
			delete env[k];
	return env;
}

/** The files `npm pack` would put in the tarball (paths inside it, without the `package/` prefix), sorted. */
export function packedFiles(): string[] {
	ensureBuilt();
	const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], {
		cwd: ROOT,
		encoding: 'utf8',
		env: npmEnv(),
	});
	const [report] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
	return report.files.map((f) => f.path).sort();
}

/** Packs the built package into `destDir`; returns the tarball's path. */
export function packTarball(destDir: string): string {
	ensureBuilt();
	mkdirSync(destDir, { recursive: true });
	const out = execFileSync(
		'npm',
		['pack', '--json', '--loglevel=error', '--pack-destination', destDir],
		{ cwd: ROOT, encoding: 'utf8', env: npmEnv() },
	);
	const [report] = JSON.parse(out) as Array<{ filename: string }>;
	return join(destDir, report.filename);
}

/** Unpacks a tarball into `dir` (its `package/` folder becomes `dir`). */
export function unpack(tarball: string, dir: string): string {
	mkdirSync(dir, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
	return dir;
}

/** What the tarball may hold: what n8n loads (compiled nodes and credential, icons, codex) and the package's papers. */
export const TARBALL_RULES: Array<{ what: string; match: RegExp }> = [
	{ what: "the package's papers", match: /^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/ },
	{
		what: "a compiled node, one of its operations (n8n's <operation>.operation.js), or a module the nodes load",
		match:
			/^dist\/nodes\/(?:[A-Za-z0-9_-]+\/)*[A-Za-z0-9_-]+(?:\.node|\.operation|\.descriptions)?\.js$/,
	},
	{
		what: 'a codex file beside its node',
		match: /^dist\/nodes\/[A-Za-z0-9]+\/[A-Za-z0-9]+\.node\.json$/,
	},
	{ what: 'the compiled credential', match: /^dist\/credentials\/[A-Za-z0-9]+\.credentials\.js$/ },
	{ what: 'an icon', match: /^dist\/icons\/[A-Za-z0-9.-]+\.svg$/ },
];

/** Files no rule allows, each with what it looks like (a declaration, a source map, a test file, …). */
export function disallowed(files: string[]): string[] {
	const kind = (f: string) =>
		/\.d\.[cm]?ts$/.test(f)
			? 'a declaration file'
			: /\.map$/.test(f)
				? 'a source map'
				: /(\.test\.|\.spec\.|(^|\/)(test|tests|__tests__|fixtures|harness)\/)/.test(f)
					? 'a test file or helper'
					: /\.ts$/.test(f)
						? 'a TypeScript source'
						: 'not something n8n loads';
	return files
		.filter((f) => !TARBALL_RULES.some((r) => r.match.test(f)))
		.map((f) => `${f} (${kind(f)})`);
}

/**
 * The compiled modules n8n reaches from the registered nodes and credential (package.json "n8n"), following every
 * relative require() of the packed files. A packed module outside this set is dead weight or a test helper.
 */
export function reachableModules(files: string[], read: (file: string) => string): Set<string> {
	const pkg = JSON.parse(read('package.json')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const packed = new Set(files);
	const seen = new Set<string>();
	const queue = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
	while (queue.length) {
		const file = queue.pop()!;
		if (seen.has(file) || !packed.has(file)) continue;
		seen.add(file);
		for (const m of read(file).matchAll(/\brequire\(\s*["'](\.{1,2}\/[^"']*)["']\s*\)/g)) {
			const base = posix.normalize(posix.join(posix.dirname(file), m[1]));
			const target = [`${base}.js`, base, `${base}/index.js`].find((c) => packed.has(c));
			if (target) queue.push(target);
		}
	}
	return seen;
}

/** Reads a file of the repository the way the tarball will hold it (relative path). */
export const readFromRoot = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
