import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { createTransport } from '../../nodes/shared/credentials';
import { cleanupBinaryData, runWorkflow } from './workflow';

class ProbeNode implements INodeType {
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
		properties: [{ displayName: 'Path', name: 'path', type: 'string', default: '/v1/models' }],
	};
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const t = await createTransport(this);
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			const res = await t.getJson(this.getNodeParameter('path', i) as string);
			const binary = await this.helpers.prepareBinaryData(
				Buffer.from(JSON.stringify(res.body)),
				'body.json',
				'application/json',
			);
			out.push({ json: res.body as never, binary: { data: binary }, pairedItem: { item: i } });
		}
		return [out];
	}
}

describe('in-process n8n harness', () => {
	let server: Server;
	let base: string;
	const seen: Array<{ url?: string; auth?: string }> = [];
	beforeAll(async () => {
		server = createServer((req, res) => {
			seen.push({ url: req.url, auth: req.headers.authorization });
			res.setHeader('content-type', 'application/json');
			res.end(JSON.stringify({ object: 'list', data: [{ id: 'alpha-image-2-4k' }] }));
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		await new Promise((r) => server.close(r));
		cleanupBinaryData();
	});

	it('runs a credentialed node over real HTTP and stores binary data on disk', async () => {
		const r = await runWorkflow({
			nodes: [{ name: 'Probe', type: new ProbeNode(), parameters: { path: '/v1/models' } }],
			input: [{ json: { a: 1 } }, { json: { a: 2 } }],
			credentials: { apiKey: 'sk-harness', baseUrl: `${base}/v1/` },
		});
		expect(r.error).toBeUndefined();
		const items = r.output('Probe');
		expect(items).toHaveLength(2);
		expect(items[1].pairedItem).toEqual({ item: 1 });
		expect(items[0].json.data).toEqual([{ id: 'alpha-image-2-4k' }]);
		expect(items[0].binary?.data.id).toMatch(/^filesystem/);
		expect(JSON.parse((await r.binaryBuffer(items[0])).toString()).object).toBe('list');
		expect(seen[0]).toEqual({ url: '/v1/models', auth: 'Bearer sk-harness' });
	});
});
