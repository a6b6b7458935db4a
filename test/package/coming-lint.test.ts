/**
 * Issue 45, bullet 6: n8n's community-node lint rules that its repository holds and its next plugin release will
 * enforce (packages/@n8n/eslint-plugin-community-nodes/src/rules; the plugin this package lints with, 0.32.0, does not
 * carry them yet). This test checks them the way the rules do, over the source nodes, until the plugin's release
 * carries them; then the plugin's rules replace this test.
 * - `require-continue-on-fail`: the `execute()` method of a class that implements INodeType contains a call
 *   `this.continueOnFail()` somewhere in its body.
 * - `no-ai-codex-category` and `no-codex-subcategories`: a codex (a `.node.json`, or an inline `codex: {…}` of a
 *   `.node.ts`) has no "AI" category and no `subcategories`, unless its `.node.ts` has a top-level import from
 *   `@n8n/ai-node-sdk` (a node built on the AI node SDK: here the Chat Model only).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../../scripts/lib/repo';

const SDK_MODULES = ['@n8n/ai-node-sdk', 'ai-node-sdk'];

const parse = (code: string) =>
	ts.createSourceFile('x.node.ts', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

function someDescendant(node: ts.Node, test: (n: ts.Node) => boolean): boolean {
	return (
		test(node) || (ts.forEachChild(node, (c) => someDescendant(c, test) || undefined) ?? false)
	);
}

const isThisContinueOnFail = (n: ts.Node) =>
	ts.isCallExpression(n) &&
	ts.isPropertyAccessExpression(n.expression) &&
	n.expression.expression.kind === ts.SyntaxKind.ThisKeyword &&
	n.expression.name.text === 'continueOnFail';

const implementsINodeType = (c: ts.ClassDeclaration) =>
	(c.heritageClauses ?? []).some((h) =>
		h.types.some((t) => ts.isIdentifier(t.expression) && t.expression.text === 'INodeType'),
	);

/** require-continue-on-fail: the node classes whose `execute()` never calls `this.continueOnFail()`. */
export function executeWithoutContinueOnFail(code: string): string[] {
	const classes = parse(code).statements.filter(ts.isClassDeclaration).filter(implementsINodeType);
	return classes
		.filter((c) =>
			c.members.some(
				(m) =>
					ts.isMethodDeclaration(m) &&
					m.name.getText() === 'execute' &&
					!!m.body &&
					!someDescendant(m.body, isThisContinueOnFail),
			),
		)
		.map((c) => c.name?.text ?? '(anonymous)');
}

/** Whether a node file is built on the AI node SDK, as the codex rules tell it: a top-level import from the SDK. */
export function importsAiNodeSdk(code: string): boolean {
	return parse(code).statements.some(
		(s) =>
			ts.isImportDeclaration(s) &&
			ts.isStringLiteral(s.moduleSpecifier) &&
			SDK_MODULES.includes(s.moduleSpecifier.text),
	);
}

interface Codex {
	categories?: string[];
	subcategories?: unknown;
}

/** no-ai-codex-category and no-codex-subcategories: what a codex of a node not built on the SDK may not hold. */
export function codexFindings(codex: Codex): string[] {
	return [
		...((codex.categories ?? []).includes('AI') ? ['the "AI" category'] : []),
		...('subcategories' in codex ? ['subcategories'] : []),
	];
}

const nodeFolders = readdirSync(join(ROOT, 'nodes')).filter((d) =>
	existsSync(join(ROOT, 'nodes', d, `${d}.node.ts`)),
);
const source = (d: string) => readFileSync(join(ROOT, 'nodes', d, `${d}.node.ts`), 'utf8');
const codexOf = (d: string) =>
	JSON.parse(readFileSync(join(ROOT, 'nodes', d, `${d}.node.json`), 'utf8')) as Codex;

describe('the rules as this test reads them (good and bad examples)', () => {
	const node = (body: string) =>
		`class N implements INodeType {\n\tasync execute(this: IExecuteFunctions) {\n${body}\n\t}\n}`;

	it('require-continue-on-fail: a call anywhere in execute() passes, none fails', () => {
		expect(
			executeWithoutContinueOnFail(node('return run(this, () => this.continueOnFail());')),
		).toEqual([]);
		expect(executeWithoutContinueOnFail(node('if (this.continueOnFail()) return [];'))).toEqual([]);
		expect(executeWithoutContinueOnFail(node('return run(this);'))).toEqual(['N']);
		expect(executeWithoutContinueOnFail(node('return run(ctx.continueOnFail());'))).toEqual(['N']);
		// a class that is not a node, and a node without execute(), are not the rule's
		expect(executeWithoutContinueOnFail('class C { async execute() { return 1; } }')).toEqual([]);
		expect(
			executeWithoutContinueOnFail('class S implements INodeType { supplyData() {} }'),
		).toEqual([]);
	});

	it('the codex rules: the SDK import exempts a node, a type-only one too', () => {
		expect(importsAiNodeSdk("import type { Tool } from '@n8n/ai-node-sdk';")).toBe(true);
		expect(
			importsAiNodeSdk("import { x } from './model/sdk';\nconst y = require('@n8n/ai-node-sdk');"),
		).toBe(false);
		expect(
			codexFindings({ categories: ['AI', 'Utility'], subcategories: { AI: ['Root Nodes'] } }),
		).toEqual(['the "AI" category', 'subcategories']);
		expect(codexFindings({ categories: ['Utility'] })).toEqual([]);
	});
});

describe.each(nodeFolders)('%s meets the coming rules', (folder) => {
	const code = source(folder);

	it('require-continue-on-fail', () => {
		expect(executeWithoutContinueOnFail(code)).toEqual([]);
	});

	it('no-ai-codex-category and no-codex-subcategories (its .node.json; no inline codex)', () => {
		expect(parse(code).getFullText()).not.toMatch(/\bcodex\s*:/);
		if (!importsAiNodeSdk(code)) expect(codexFindings(codexOf(folder))).toEqual([]);
	});
});

it('only the Chat Model is built on the AI node SDK, and it is filed under AI', () => {
	expect(nodeFolders.filter((d) => importsAiNodeSdk(source(d)))).toEqual(['LmChatGenGateway']);
	expect(codexOf('LmChatGenGateway').categories).toContain('AI');
	for (const d of nodeFolders.filter((f) => f !== 'LmChatGenGateway'))
		expect([d, codexOf(d).categories]).toEqual([d, expect.not.arrayContaining(['AI'])]);
});

it('every action node has an execute() (the rule has something to check)', () => {
	const actions = nodeFolders.filter((d) => d !== 'LmChatGenGateway');
	expect(actions).toHaveLength(7);
	for (const d of actions) expect([d, /\basync execute\(/.test(source(d))]).toEqual([d, true]);
});
