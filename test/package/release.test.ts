/**
 * What a registry and n8n read from package.json, and the release step (docs/development.md, "Release"): author,
 * homepage, repository and bugs; a LICENSE for the MIT license; a version that is the CHANGELOG's newest release
 * heading (package-lock.json too, as `npm version` writes both); and `prepublishOnly` building, linting and running the
 * unit tests, with a publish command that runs it under the project's `.npmrc` (`ignore-scripts=true`).
 */
import { execFileSync } from 'node:child_process';
import {
	copyFileSync,
	existsSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/repo';

const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
	name: string;
	version: string;
	license: string;
	author?: { name?: string; email?: string; url?: string };
	homepage?: string;
	repository?: { type?: string; url?: string };
	bugs?: { url?: string };
	scripts: Record<string, string>;
};
const REPO = 'https://github.com/gen-gateway/n8n-nodes-gen-gateway';

describe('package.json for the registry and n8n', () => {
	it('names an author with a name and an e-mail, the homepage, the repository and where bugs go, all one repository', () => {
		expect(pkg.author?.name?.trim()).toBeTruthy();
		expect(pkg.author?.email).toMatch(/^[^\s@<>]+@[^\s@<>]+\.[a-z]+$/);
		expect(pkg.homepage).toBe(`${REPO}#readme`);
		expect(pkg.repository).toEqual({ type: 'git', url: `git+${REPO}.git` });
		expect(pkg.bugs).toEqual({ url: `${REPO}/issues` });
	});

	it('has a LICENSE file with the MIT license that package.json names', () => {
		expect(pkg.license).toBe('MIT');
		expect(existsSync(join(ROOT, 'LICENSE'))).toBe(true);
		const license = read('LICENSE');
		expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} \S/);
		expect(license).toContain('Permission is hereby granted, free of charge');
	});
});

describe('version and CHANGELOG', () => {
	const headings = read('CHANGELOG.md')
		.split('\n')
		.filter((l) => l.startsWith('## '));

	it("package.json's version is the CHANGELOG's newest release heading (an Unreleased section above it has no version)", () => {
		expect(pkg.version).toMatch(/^\d+\.\d+\.\d+$/);
		const releases = headings.filter((h) => /^## \d+\.\d+\.\d+\b/.test(h));
		expect(releases[0]).toMatch(
			new RegExp(`^## ${pkg.version.replace(/\./g, '\\.')} \\(\\d{4}-\\d{2}-\\d{2}\\)$`),
		);
		const above = headings.slice(0, headings.indexOf(releases[0]));
		expect(above.every((h) => h === '## Unreleased')).toBe(true);
	});

	it("the README's install steps name this version's tarball", () => {
		const readme = read('README.md');
		const named = new Set(
			[...readme.matchAll(/\bn8n-nodes-gen-gateway-(\d+\.\d+\.\d+)\.tgz\b/g)].map((m) => m[1]),
		);
		expect([...named]).toEqual([pkg.version]);
	});

	it('package-lock.json carries the same version (npm version writes both)', () => {
		const lock = JSON.parse(read('package-lock.json')) as {
			version: string;
			packages: Record<string, { version?: string }>;
		};
		expect(lock.version).toBe(pkg.version);
		expect(lock.packages[''].version).toBe(pkg.version);
	});
});

describe('the release step', () => {
	it('prepublishOnly builds, then lints, then runs the unit tests (which pack, list and scan the tarball)', () => {
		expect(pkg.scripts.prepublishOnly).toBe('npm run build && npm run lint && npm run test:unit');
		expect(pkg.scripts['test:unit']).toMatch(/^jest --selectProjects unit\b/);
	});

	it('docs/development.md gives it: the CHANGELOG heading, npm version, and a publish that runs prepublishOnly', () => {
		const dev = read('docs/development.md');
		const section = dev.slice(dev.indexOf('## Release'));
		expect(section.startsWith('## Release')).toBe(true);
		expect(section).toMatch(/## Unreleased/);
		expect(section).toMatch(/npm version \d+\.\d+\.\d+ --no-git-tag-version/);
		expect(section).toContain('npm publish --ignore-scripts=false');
	});

	it("the documented publish runs prepublishOnly under the project's .npmrc (ignore-scripts=true); a plain npm publish would not", () => {
		expect(read('.npmrc')).toMatch(/^ignore-scripts=true$/m);
		const dir = mkdtempSync(join(tmpdir(), 'gg-release-'));
		try {
			copyFileSync(join(ROOT, '.npmrc'), join(dir, '.npmrc'));
			writeFileSync(
				join(dir, 'package.json'),
				JSON.stringify({
					name: 'gg-release-probe',
					version: '0.0.1',
					scripts: { prepublishOnly: "node -e \"require('fs').writeFileSync('ran', '')\"" },
				}),
			);
			const publish = (...args: string[]) =>
				execFileSync('npm', ['publish', '--dry-run', '--offline', '--loglevel=error', ...args], {
					cwd: dir,
					stdio: 'pipe',
				});
			publish();
			expect(existsSync(join(dir, 'ran'))).toBe(false);
			publish('--ignore-scripts=false');
			expect(existsSync(join(dir, 'ran'))).toBe(true);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
