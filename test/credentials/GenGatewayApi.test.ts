/**
 * The credential: its fields, the Authorization header n8n builds from it (n8n-workflow's Expression), and the
 * Test button as n8n finds and runs it (tester.ts), sent to a real loopback server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
	Expression,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import {
	CREDENTIAL_TEST,
	CREDENTIAL_TYPE,
	createTransport,
	testGatewayCredential,
} from '../../nodes/shared/credentials';
import { setDispatcher } from '../../nodes/shared/transport';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { NODE_CLASSES, cred, credentialTestFunction, loadNode, testCredential } from './tester';
const KEY = 'sk-cred-test-4f9a0c';

/** How n8n resolves a credential expression: the leading "=" marks it, `$credentials` is the decrypted data. */
const resolve = (expr: string, credentials: Record<string, unknown>) => {
	expect(expr.startsWith('=')).toBe(true);
	return Expression.resolveWithoutWorkflow(expr.slice(1), { $credentials: credentials });
};

describe('GenGatewayApi properties', () => {
	const prop = (name: string) => {
		const p = cred.properties.find((x) => x.name === name);
		if (!p) throw new Error(`no property ${name}`);
		return p;
	};

	it('is the genGatewayApi credential the nodes ask for, with themed icons', () => {
		expect(cred.name).toBe('genGatewayApi');
		expect(cred.name).toBe(CREDENTIAL_TYPE);
		expect(cred.displayName).toBe('GenGateway API');
		expect(cred.icon).toEqual({
			light: 'file:../icons/genGateway.svg',
			dark: 'file:../icons/genGateway.dark.svg',
		});
		expect(cred.documentationUrl).toMatch(/^https:\/\//);
	});

	it('has exactly apiKey, baseUrl, videoBaseUrl, keyGroup', () => {
		expect(cred.properties.map((p) => p.name)).toEqual([
			'apiKey',
			'baseUrl',
			'videoBaseUrl',
			'keyGroup',
		]);
	});

	it('apiKey is a required password field', () => {
		expect(prop('apiKey')).toMatchObject({
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
		});
	});

	it('baseUrl is a required plain string with a placeholder', () => {
		const p = prop('baseUrl');
		expect(p).toMatchObject({ type: 'string', required: true, default: '' });
		expect(p.typeOptions?.password).toBeFalsy();
		expect(p.placeholder).toMatch(/^https:\/\//);
	});

	it('videoBaseUrl is optional', () => {
		const p = prop('videoBaseUrl');
		expect(p).toMatchObject({ type: 'string', default: '' });
		expect(p.required).toBeFalsy();
	});
});

describe('authenticate', () => {
	it('is a generic header exactly `=Bearer {{$credentials.apiKey}}`', () => {
		expect(cred.authenticate).toEqual({
			type: 'generic',
			properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
		});
	});

	it('resolves to "Bearer <key>" with one space', () => {
		const header = (cred.authenticate as { properties: { headers: Record<string, string> } })
			.properties.headers.Authorization;
		expect(resolve(header, { apiKey: KEY, baseUrl: 'https://gw.example.com' })).toBe(
			`Bearer ${KEY}`,
		);
	});
});

describe('the Test button', () => {
	it('has no declarative test request, so n8n asks the nodes: each names genGatewayApiTest and carries that one function', () => {
		expect((cred as unknown as { test?: unknown }).test).toBeUndefined();
		for (const cls of NODE_CLASSES) {
			const node = loadNode(cls);
			expect(node.description.credentials).toEqual([
				{ name: 'genGatewayApi', required: true, testedBy: CREDENTIAL_TEST },
			]);
			// whichever node n8n looks at first gives the same test
			expect(credentialTestFunction([node])).toBe(testGatewayCredential);
		}
	});

	describe('against a real server', () => {
		let server: Server;
		let origin: string;
		const seen: Array<{ method?: string; url?: string; auth?: string }> = [];
		beforeAll(async () => {
			setDispatcher(undefined);
			server = createServer((req, res) => {
				seen.push({ method: req.method, url: req.url, auth: req.headers.authorization });
				res.setHeader('content-type', 'application/json');
				res.end(JSON.stringify({ object: 'list', data: [{ id: 'alpha-image-2.5' }] }));
			});
			await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
			origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		});
		afterAll(async () => {
			server.closeAllConnections();
			await new Promise((r) => server.close(r));
		});
		beforeEach(() => {
			seen.length = 0;
		});

		it.each([
			['', '/v1/models'],
			['/', '/v1/models'],
			['/v1', '/v1/models'],
			['/v1/', '/v1/models'],
			['/V1', '/v1/models'],
			['/v1beta', '/v1/models'],
			['/gw', '/gw/v1/models'],
			['/gw/v1/', '/gw/v1/models'],
		])('base URL form %j → one GET %s with the trimmed key, and success', async (suffix, path) => {
			const verdict = await testCredential({
				apiKey: `  ${KEY}\n`,
				baseUrl: `  ${origin}${suffix} `,
			});
			expect(verdict).toEqual({
				status: 'OK',
				message: expect.stringMatching(/^Connection successful! /),
			});
			expect(seen).toEqual([{ method: 'GET', url: path, auth: `Bearer ${KEY}` }]);
		});
	});
});

describe('createTransport reads the credential', () => {
	class Probe implements INodeType {
		description: INodeTypeDescription = {
			displayName: 'Probe',
			name: 'probe',
			group: ['transform'],
			version: 1,
			description: 'test',
			defaults: { name: 'Probe' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'genGatewayApi', required: true }],
			properties: [],
		};
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const t = await createTransport(this);
			const a = await t.getJson<Record<string, unknown>>('/v1/models');
			const b = await t.getJson<Record<string, unknown>>('/v1/videos/v1', { origin: 'video' });
			return [
				[{ json: { a: a.body, b: b.body, video: t.root('video').root }, pairedItem: { item: 0 } }],
			];
		}
	}

	let server: Server;
	let origin: string;
	const seen: Array<{ url?: string; auth?: string }> = [];
	beforeAll(async () => {
		setDispatcher(undefined);
		server = createServer((req, res) => {
			seen.push({ url: req.url, auth: req.headers.authorization });
			res.setHeader('content-type', 'application/json');
			res.end('{}');
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		server.closeAllConnections();
		await new Promise((r) => server.close(r));
		cleanupBinaryData();
	});
	beforeEach(() => {
		seen.length = 0;
	});

	it('trims the key, normalises the base URL; a blank video URL means the base origin', async () => {
		const r = await runWorkflow({
			nodes: [{ name: 'Probe', type: new Probe() }],
			credentials: { apiKey: `  ${KEY}\n`, baseUrl: `${origin}/v1/`, videoBaseUrl: '   ' },
		});
		expect(r.error).toBeUndefined();
		expect(seen).toEqual([
			{ url: '/v1/models', auth: `Bearer ${KEY}` },
			{ url: '/v1/videos/v1', auth: `Bearer ${KEY}` },
		]);
	});

	it('a malformed base URL fails before any request, naming the credential field', async () => {
		const r = await runWorkflow({
			nodes: [{ name: 'Probe', type: new Probe() }],
			credentials: { apiKey: KEY, baseUrl: `${origin}/v1?key=${KEY}` },
		});
		expect(r.error).toMatch(/^Credential Base URL: must not contain a query string/);
		expect(r.error).not.toContain(KEY);
		expect(seen).toEqual([]);
	});

	it('a malformed video base URL names the video field', async () => {
		const r = await runWorkflow({
			nodes: [{ name: 'Probe', type: new Probe() }],
			credentials: { apiKey: KEY, baseUrl: origin, videoBaseUrl: 'ftp://video.example.com' },
		});
		expect(r.error).toMatch(/^Credential Video Base URL: must use http or https/);
		expect(seen).toEqual([]);
	});

	it('an empty key fails before any request', async () => {
		const r = await runWorkflow({
			nodes: [{ name: 'Probe', type: new Probe() }],
			credentials: { apiKey: '', baseUrl: origin },
		});
		expect(r.error).toMatch(/API Key/);
		expect(seen).toEqual([]);
	});

	it('errors are NodeOperationErrors (shown on the node, not as a crash)', async () => {
		const r = await runWorkflow({
			nodes: [{ name: 'Probe', type: new Probe() }],
			credentials: { apiKey: KEY, baseUrl: 'nope' },
		});
		expect(r.run.data.resultData.error).toMatchObject({
			name: 'NodeOperationError',
			message: expect.stringMatching(
				/^Credential Base URL: must start with http:\/\/ or https:\/\//,
			),
		});
	});
});
