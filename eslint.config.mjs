// Lint for the community-node package: n8n's own node and credential rules
// (@n8n/eslint-plugin-community-nodes, the `recommended` preset that n8n's verification scan uses),
// plus `no-console` as the scan adds it, plus the design rule that only the shared transport talks HTTP.
//
// Disabled rules, and why, are listed in docs/lint-exceptions.md, each only where it cannot hold:
//   - no-runtime-dependencies   package.json (undici, zod, eventsource-parser, image-size, sharp are runtime deps)
//   - no-restricted-imports     nodes/shared/** (those dependencies and node: modules)
//   - require-node-api-error, missing-paired-item   nodes/** (one error mapper, pairing by the item runners)
import { defineConfig } from 'eslint/config';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tseslint from 'typescript-eslint';

const recommended = n8nCommunityNodesPlugin.configs.recommended;
const P = '@n8n/community-nodes';

/** HTTP clients other than the shared transport; nodes call GatewayTransport instead. */
const HTTP_MODULES = ['undici', 'axios', 'node-fetch', 'got', 'http', 'https', 'node:http', 'node:https', 'http2', 'node:http2', 'net', 'node:net'];
/** What leaves for n8n (hints, chat chunks, stored binary data) goes through the one exit, nodes/shared/exit/. */
const EXIT_DOORS = "MemberExpression[property.name=/^(addExecutionHints|sendChunk|prepareBinaryData)$/]";
const HTTP_HELPERS =
	"MemberExpression[object.property.name='helpers'][property.name=/^(request|requestWithAuthentication|requestOAuth1|requestOAuth2|httpRequest|httpRequestWithAuthentication)$/]";

export default defineConfig([
	{ ignores: ['dist/**', 'node_modules/**', 'out/**', 'coverage/**', '.n8n-state/**'] },

	// n8n's rules for node and credential sources
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { sourceType: 'module', ecmaVersion: 2022 },
		},
		plugins: recommended.plugins,
		rules: {
			...recommended.rules,
			'no-console': 'error',
		},
	},

	// The shared library is where the package's runtime dependencies live by design (its waits and timeouts use
	// n8n-workflow's sleep, so no-restricted-globals stays on everywhere).
	{
		files: ['nodes/shared/**/*.ts'],
		rules: {
			[`${P}/no-restricted-imports`]: 'off',
		},
	},

	// Errors and item pairing have one home each (docs/lint-exceptions.md): nodes throw typed errors that the
	// single error mapper (errors.ts toNodeError) turns into NodeApiError / NodeOperationError with the item
	// index, and the two item runners (runners/paid.ts, runners/free.ts) set pairedItem on every item.
	{
		files: ['nodes/**/*.ts'],
		rules: {
			[`${P}/require-node-api-error`]: 'off',
			[`${P}/missing-paired-item`]: 'off',
		},
	},

	// Only nodes/shared/transport/ talks HTTP (docs/development.md, docs/lint-exceptions.md): no other client, no fetch, no n8n request helpers.
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		ignores: ['nodes/shared/transport/**'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					paths: HTTP_MODULES.map((name) => ({ name, message: 'Only nodes/shared/transport talks HTTP: use GatewayTransport (createTransport).' })),
				},
			],
			'no-restricted-globals': [
				'error',
				{ name: 'fetch', message: 'Only nodes/shared/transport talks HTTP: use GatewayTransport (createTransport).' },
				{ name: 'XMLHttpRequest', message: 'Only nodes/shared/transport talks HTTP.' },
			],
			'no-restricted-syntax': [
				'error',
				{ selector: HTTP_HELPERS, message: 'Use GatewayTransport: it pins the key to the gateway origins, never follows redirects and never resends a paid POST.' },
				{ selector: EXIT_DOORS, message: 'Everything the package hands n8n leaves through the one exit: exitOf(ctx).hint / .chat / .binary (nodes/shared/exit).' },
			],
		},
	},

	// The one exit itself calls n8n's hint, chunk and binary helpers (and the transport may use helpers-free code only)
	{
		files: ['nodes/shared/exit/**/*.ts'],
		rules: {
			'no-restricted-syntax': ['error', { selector: HTTP_HELPERS, message: 'Use GatewayTransport.' }],
		},
	},

	// The package.json rules (n8n block, peer dependencies, author, ...) when package.json is linted
	// (`npx eslint package.json`). TypeScript parses .json as one expression, which these rules walk.
	{
		files: ['package.json'],
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
		plugins: recommended.plugins,
		rules: {
			...recommended.rules,
			[`${P}/no-runtime-dependencies`]: 'off',
		},
	},
]);
