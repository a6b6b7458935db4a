/**
 * Issue 44, bullet 3: every Docs link the package carries — each node's `documentationUrl` and codex
 * `resources.primaryDocumentation`, the credential's `documentationUrl` — opens this project's README on the
 * repository's page (package.json's homepage and repository) at the section of that node or the credential: an
 * anchor GitHub makes from one of the README's headings, and a heading that names the node.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ICredentialType, INodeType } from 'n8n-workflow';
import { ROOT } from '../../scripts/lib/repo';
import { GenGatewayApi } from '../../credentials/GenGatewayApi.credentials';

/** GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
export function githubSlug(heading: string): string {
	const text = heading
		.replace(/`([^`]*)`/g, '$1')
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.trim()
		.toLowerCase();
	return text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
}

/** The README's headings with their anchors (a repeated slug gets -1, -2 …, as GitHub numbers them). */
export function anchors(markdown: string): Map<string, string> {
	const out = new Map<string, string>();
	const seen = new Map<string, number>();
	let fenced = false;
	for (const line of markdown.split('\n')) {
		if (line.startsWith('```')) fenced = !fenced;
		const m = !fenced && /^#{1,6} (.+)$/.exec(line);
		if (!m) continue;
		const slug = githubSlug(m[1]);
		const n = seen.get(slug) ?? 0;
		seen.set(slug, n + 1);
		out.set(n ? `${slug}-${n}` : slug, m[1]);
	}
	return out;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
	homepage: string;
	repository: { url: string };
};
const README_HEADINGS = anchors(readFileSync(join(ROOT, 'README.md'), 'utf8'));
const BASE = pkg.homepage.replace(/#.*$/, '');

/** The README heading a Docs link points at, or why it points nowhere of ours. */
function headingOf(url: unknown): string {
	if (typeof url !== 'string') return `no address: ${String(url)}`;
	const [base, anchor] = url.split('#');
	if (base !== BASE) return `not the repository's page: ${url}`;
	return README_HEADINGS.get(anchor ?? '') ?? `no README heading has the anchor #${anchor}`;
}

const nodeFolders = readdirSync(join(ROOT, 'nodes')).filter((d) =>
	existsSync(join(ROOT, 'nodes', d, `${d}.node.ts`)),
);

describe('how this test reads addresses (examples)', () => {
	it("makes GitHub's anchors", () => {
		expect(githubSlug('The AI Agent: GenGateway Chat Model')).toBe(
			'the-ai-agent-gengateway-chat-model',
		);
		expect(githubSlug('GenGateway API (credential)')).toBe('gengateway-api-credential');
		expect(githubSlug('Development: layout, `npm test` & CI')).toBe(
			'development-layout-npm-test--ci',
		);
		expect([...anchors('# A\n```\n# not a heading\n```\n## A\n').keys()]).toEqual(['a', 'a-1']);
	});

	it('the base is the repository: homepage and repository name the same GitHub page', () => {
		expect(BASE).toBe('https://github.com/gen-gateway/n8n-nodes-gen-gateway');
		expect(pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')).toBe(BASE);
	});

	it('refuses an address elsewhere and an anchor no heading has', () => {
		expect(headingOf('https://www.npmjs.com/package/n8n-nodes-gen-gateway')).toMatch(
			/^not the repository/,
		);
		expect(headingOf(`${BASE}#no-such-section`)).toMatch(/^no README heading/);
		expect(headingOf(`${BASE}#money-you-can-see-and-cap`)).toBe('Money you can see and cap');
	});
});

describe.each(nodeFolders)('%s: its Docs link opens its README section', (folder) => {
	const mod = require(join(ROOT, 'nodes', folder, `${folder}.node.ts`)) as Record<
		string,
		new () => INodeType
	>;
	const d = new mod[folder]().description;
	const codex = JSON.parse(
		readFileSync(join(ROOT, 'nodes', folder, `${folder}.node.json`), 'utf8'),
	) as {
		resources?: { primaryDocumentation?: Array<{ url?: string }> };
	};

	it("the description's documentationUrl: a README heading that names the node", () => {
		expect(headingOf(d.documentationUrl)).toContain(d.displayName);
	});

	it("the codex's primaryDocumentation: the same address", () => {
		expect(codex.resources?.primaryDocumentation?.map((r) => r.url)).toEqual([d.documentationUrl]);
	});
});

it("the credential's Docs link opens the README section that names it", () => {
	const cred: ICredentialType = new GenGatewayApi();
	expect(headingOf(cred.documentationUrl)).toContain(cred.displayName);
	expect(headingOf(cred.documentationUrl)).toMatch(/credential/);
});
