/**
 * The package's contract with n8n: what package.json registers, that each registered class exists with the
 * fixed type name, a GenGateway display name, a subtitle, themed icons and a codex file, and that
 * `dependencies` hold exactly what nodes/ and credentials/ load at run time.
 * (Fails until every node has landed: that is the point.)
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix, relative, resolve } from 'node:path';
import * as ts from 'typescript';
import type { ICredentialType, INodeType, INodeTypeDescription } from 'n8n-workflow';

const ROOT = resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
	name: string;
	main?: string;
	files?: string[];
	keywords?: string[];
	n8n: { n8nNodesApiVersion: number; nodes: string[]; credentials: string[] };
	dependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	devDependencies?: Record<string, string>;
};

const NODES = [
	{ cls: 'GenGatewayImageSubmit', name: 'genGatewayImageSubmit', icon: 'imageSubmit' },
	{ cls: 'GenGatewayTaskWait', name: 'genGatewayTaskWait', icon: 'taskWait' },
	{ cls: 'GenGatewayVideoCreate', name: 'genGatewayVideoCreate', icon: 'videoCreate' },
	{ cls: 'GenGatewayDownloadResult', name: 'genGatewayDownloadResult', icon: 'downloadResult' },
	{ cls: 'GenGatewayChat', name: 'genGatewayChat', icon: 'chat' },
	{ cls: 'GenGatewayResponses', name: 'genGatewayResponses', icon: 'responses' },
	{ cls: 'GenGatewayPricing', name: 'genGatewayPricing', icon: 'pricing' },
	{ cls: 'LmChatGenGateway', name: 'lmChatGenGateway', icon: 'chat' },
];
const CREDENTIAL = { cls: 'GenGatewayApi', name: 'genGatewayApi', icon: 'genGateway' };

const nodeSource = (cls: string) => join(ROOT, 'nodes', cls, `${cls}.node.ts`);
/** An icon reference `file:<relative>` resolved from where the compiled class lives (dist/...), mapped back to icons/. */
const iconFile = (ref: unknown, distDir: string) => {
	expect(typeof ref).toBe('string');
	expect(ref as string).toMatch(/^file:/);
	const inDist = posix.normalize(posix.join(distDir, (ref as string).slice('file:'.length)));
	expect(inDist).toMatch(/^dist\/icons\/[^/]+\.svg$/);
	return join(ROOT, inDist.replace(/^dist\/icons\//, 'icons/'));
};

describe('package.json', () => {
	it('registers exactly the eight nodes (seven action nodes and the Chat Model) and the credential, under dist/', () => {
		expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
		expect([...pkg.n8n.nodes].sort()).toEqual(
			NODES.map((n) => `dist/nodes/${n.cls}/${n.cls}.node.js`).sort(),
		);
		expect(new Set(pkg.n8n.nodes).size).toBe(pkg.n8n.nodes.length);
		expect(pkg.n8n.credentials).toEqual([`dist/credentials/${CREDENTIAL.cls}.credentials.js`]);
	});

	it('is a community node package that ships the compiled nodes, credential and icons (tarball.test.ts lists the tarball)', () => {
		expect(pkg.name).toMatch(/^n8n-nodes-/);
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.files).toEqual(['dist/nodes', 'dist/credentials', 'dist/icons', 'CHANGELOG.md']);
		expect(pkg.main).toBeUndefined();
	});

	it('n8n-workflow and the AI node SDK of the host are peer dependencies "*" and nothing else is', () => {
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*', '@n8n/ai-node-sdk': '*' });
		expect(pkg.dependencies?.['n8n-workflow']).toBeUndefined();
	});

	describe('dependencies are exactly what nodes/ and credentials/ load at run time', () => {
		const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
		const packageOf = (spec: string) =>
			spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
		const sources = (dir: string): string[] =>
			readdirSync(dir).flatMap((f) => {
				const p = join(dir, f);
				if (statSync(p).isDirectory()) return sources(p);
				return /\.ts$/.test(f) && !/\.(test|spec)\.ts$/.test(f) && !/\.d\.ts$/.test(f) ? [p] : [];
			});
		/** Compiles each file the way the build does (type-only imports elided) and collects what the output requires. */
		const runtimeImports = () => {
			const found = new Map<string, string[]>();
			for (const file of [...sources(join(ROOT, 'nodes')), ...sources(join(ROOT, 'credentials'))]) {
				const js = ts.transpileModule(readFileSync(file, 'utf8'), {
					compilerOptions: {
						module: ts.ModuleKind.CommonJS,
						target: ts.ScriptTarget.ES2022,
						esModuleInterop: true,
					},
					fileName: file,
				}).outputText;
				for (const m of js.matchAll(
					/\brequire\(\s*["']([^"']+)["']\s*\)|\bimport\(\s*["']([^"']+)["']\s*\)/g,
				)) {
					const spec = m[1] ?? m[2];
					if (spec.startsWith('.') || builtins.has(spec) || builtins.has(spec.split('/')[0]))
						continue;
					const p = packageOf(spec);
					found.set(p, [...(found.get(p) ?? []), relative(ROOT, file)]);
				}
			}
			return found;
		};

		it('every runtime import is declared (dependencies, or the n8n-workflow peer)', () => {
			const found = runtimeImports();
			const declared = new Set([
				...Object.keys(pkg.dependencies ?? {}),
				...Object.keys(pkg.peerDependencies ?? {}),
			]);
			const undeclared = [...found.entries()]
				.filter(([p]) => !declared.has(p))
				.map(([p, files]) => `${p} (${files.join(', ')})`);
			expect(undeclared).toEqual([]);
		});

		it('every dependency is imported at run time (no dead or dev-only entries)', () => {
			const found = runtimeImports();
			const unused = Object.keys(pkg.dependencies ?? {}).filter((d) => !found.has(d));
			expect(unused).toEqual([]);
		});

		it('dev-only packages are not loaded by nodes/ or credentials/ at run time', () => {
			const found = runtimeImports();
			const devOnly = [...found.keys()].filter(
				(p) => pkg.devDependencies?.[p] && !pkg.dependencies?.[p] && !pkg.peerDependencies?.[p],
			);
			expect(devOnly).toEqual([]);
		});
	});
});

describe.each(NODES)('node $cls', ({ cls, name, icon }) => {
	const load = (): INodeTypeDescription => {
		const mod = require(nodeSource(cls)) as Record<string, new () => INodeType>;
		expect(typeof mod[cls]).toBe('function');
		return new mod[cls]().description;
	};

	it('source file exists and exports the class named after its folder', () => {
		expect(existsSync(nodeSource(cls))).toBe(true);
		load();
	});

	it(`has the fixed type name "${name}", a "GenGateway " display name and a subtitle`, () => {
		const d = load();
		expect(d.name).toBe(name);
		expect(d.displayName).toMatch(/^GenGateway /);
		expect(d.defaults?.name).toMatch(/^GenGateway /);
		expect(typeof d.subtitle).toBe('string');
		expect((d.subtitle as string).length).toBeGreaterThan(0);
		expect(d.version).toBeDefined();
		expect(typeof d.description).toBe('string');
	});

	it(`has light and dark icons ${icon}.svg / ${icon}.dark.svg that exist in icons/`, () => {
		const d = load();
		expect(d.icon).toEqual({
			light: `file:../../icons/${icon}.svg`,
			dark: `file:../../icons/${icon}.dark.svg`,
		});
		const { light, dark } = d.icon as { light: string; dark: string };
		const distDir = `dist/nodes/${cls}`;
		for (const ref of [light, dark]) {
			const file = iconFile(ref, distDir);
			expect(existsSync(file)).toBe(true);
			expect(readFileSync(file, 'utf8')).toMatch(/^<svg[^>]*viewBox="0 0 60 60"/);
		}
	});

	it('uses the genGatewayApi credential and is usable as a tool', () => {
		const d = load();
		expect(d.credentials?.map((c) => c.name)).toEqual(['genGatewayApi']);
		// a sub-node is plugged into the AI Agent; the action nodes are tools
		expect(d.usableAsTool).toBe(cls === 'LmChatGenGateway' ? undefined : true);
	});

	it('has a codex file beside it', () => {
		const file = join(dirname(nodeSource(cls)), `${cls}.node.json`);
		expect(existsSync(file)).toBe(true);
		const codex = JSON.parse(readFileSync(file, 'utf8'));
		expect(codex).toMatchObject({
			node: `${pkg.name}.${name}`,
			nodeVersion: '1.0',
			codexVersion: '1.0',
		});
		// filed in a category; "AI" only on the Chat Model, built on the AI node SDK (test/package/coming-lint.test.ts)
		expect(codex.categories.length).toBeGreaterThan(0);
		expect(codex.categories.includes('AI')).toBe(cls === 'LmChatGenGateway');
	});
});

describe('credential GenGatewayApi', () => {
	const file = join(ROOT, 'credentials', `${CREDENTIAL.cls}.credentials.ts`);
	const load = (): ICredentialType => {
		const mod = require(file) as Record<string, new () => ICredentialType>;
		expect(typeof mod[CREDENTIAL.cls]).toBe('function');
		return new mod[CREDENTIAL.cls]();
	};

	it('source file exists and exports the class', () => {
		expect(existsSync(file)).toBe(true);
		expect(load().name).toBe(CREDENTIAL.name);
	});

	it('has light and dark icons that exist in icons/', () => {
		const c = load();
		expect(c.icon).toEqual({
			light: `file:../icons/${CREDENTIAL.icon}.svg`,
			dark: `file:../icons/${CREDENTIAL.icon}.dark.svg`,
		});
		const { light, dark } = c.icon as { light: string; dark: string };
		for (const ref of [light, dark])
			expect(existsSync(iconFile(ref, 'dist/credentials'))).toBe(true);
	});
});

describe('icons/', () => {
	it('holds a light and a dark SVG for every node and the credential, and nothing unused', () => {
		const expected = [...new Set([...NODES.map((n) => n.icon), CREDENTIAL.icon])]
			.flatMap((i) => [`${i}.svg`, `${i}.dark.svg`])
			.sort();
		expect(
			readdirSync(join(ROOT, 'icons'))
				.filter((f) => f.endsWith('.svg'))
				.sort(),
		).toEqual(expected);
	});

	it('light and dark variants differ', () => {
		for (const i of [...NODES.map((n) => n.icon), CREDENTIAL.icon]) {
			expect(readFileSync(join(ROOT, 'icons', `${i}.svg`), 'utf8')).not.toBe(
				readFileSync(join(ROOT, 'icons', `${i}.dark.svg`), 'utf8'),
			);
		}
	});
});

describe('index.ts', () => {
	it('exports every node class and the credential', () => {
		const mod = require(join(ROOT, 'index.ts')) as Record<string, unknown>;
		for (const { cls } of [...NODES, CREDENTIAL]) expect(typeof mod[cls]).toBe('function');
	});
});

describe('build output (when dist/ exists)', () => {
	const built = existsSync(join(ROOT, 'dist', 'index.js'));
	(built ? it : it.skip)('every registered file, codex and icon is in dist/', () => {
		for (const f of [...pkg.n8n.nodes, ...pkg.n8n.credentials])
			expect(existsSync(join(ROOT, f))).toBe(true);
		for (const { cls, icon } of NODES) {
			expect(existsSync(join(ROOT, 'dist', 'nodes', cls, `${cls}.node.json`))).toBe(true);
			expect(existsSync(join(ROOT, 'dist', 'icons', `${icon}.svg`))).toBe(true);
			expect(existsSync(join(ROOT, 'dist', 'icons', `${icon}.dark.svg`))).toBe(true);
		}
	});
});
