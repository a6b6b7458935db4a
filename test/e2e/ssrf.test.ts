/**
 * n8n's SSRF protection in a real n8n 2.41.1 started with `N8N_SSRF_PROTECTION_ENABLED=true` and n8n's default lists,
 * which block loopback (127.0.0.0/8, ::1). The simulator runs on loopback: its gateway origin is the credential's
 * Base URL, its result host a separate loopback origin. One workflow: Image Submit → Task Wait (downloads the result)
 * → Download Result (given the same result address as a URL) and n8n's own HTTP Request node on that address.
 *
 * - protection on: the gateway calls on the credential's origin work (submit, task query), the result address is
 *   refused by Task Wait and Download Result with a failed item (`failed_at: "download"`) that names the address,
 *   the setting and what to do, n8n's own HTTP Request node refuses it too, and the result host accepted no connection;
 * - protection on with the result host's range allowed (`N8N_SSRF_ALLOWED_IP_RANGES=127.0.0.1/32`): all three reach it.
 * With the protection off (every other e2e test) downloads from loopback work as before.
 */
import { startSimulator, type Simulator } from '../../simulator';
import { PACKAGE_NAME } from '../../scripts/lib/repo';
import {
	executeWorkflow,
	nodeOutput,
	runFailure,
	type ExecuteResult,
} from '../../scripts/lib/n8n/cli';
import { importCredentials, importWorkflow } from '../../scripts/lib/n8n/imports';
import { newState, removeState, removeTemplate } from '../../scripts/lib/n8n/state';

jest.setTimeout(600_000);

const CRED = { id: 'ggssrfcred', name: 'Gateway' };
const WF = 'ggssrf01';

function workflow(): Record<string, unknown> {
	const ours = (name: string, type: string, parameters: Record<string, unknown>) => ({
		name,
		type: `${PACKAGE_NAME}.${type}`,
		typeVersion: 1,
		parameters,
		credentials: { genGatewayApi: CRED },
	});
	const nodes = [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
		ours('Submit', 'genGatewayImageSubmit', {
			operation: 'generate',
			mode: 'async',
			model: { __rl: true, mode: 'id', value: 'alpha-image-2.5' },
			prompt: 'a red square',
			size: '1024x1024',
			options: {},
		}),
		ours('Wait', 'genGatewayTaskWait', {
			taskId: '={{ $json.task_id }}',
			taskKind: 'auto',
			options: {},
		}),
		// the result address Task Wait was handed, from whichever output it came out of
		{
			name: 'Address',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: {
				jsCode:
					'return $input.all().map((i) => ({ json: { url: i.json.result_urls?.[0] ?? i.json.files?.[0]?.sourceUrl ?? i.json.files?.[0]?.url } }));',
			},
		},
		{
			...ours('Download', 'genGatewayDownloadResult', {
				source: 'url',
				url: '={{ $json.url }}',
				resultType: 'image',
			}),
			onError: 'continueRegularOutput',
		},
		{
			name: 'n8n HTTP Request',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: { url: '={{ $json.url }}', options: {} },
			onError: 'continueRegularOutput',
		},
	].map((n, k) => ({ id: `${WF}-${k}`, position: [k * 220, 0], ...n }));
	const main = (to: string[]) => ({
		main: [to.map((node) => ({ node, type: 'main', index: 0 }))],
	});
	return {
		id: WF,
		name: 'SSRF protection',
		active: false,
		nodes,
		connections: {
			Start: main(['Submit']),
			Submit: main(['Wait']),
			// Completed (0) and Failed (1) both lead to the address
			Wait: {
				main: [
					[{ node: 'Address', type: 'main', index: 0 }],
					[{ node: 'Address', type: 'main', index: 0 }],
				],
			},
			Address: main(['Download', 'n8n HTTP Request']),
		},
		settings: { executionOrder: 'v1' },
	};
}

describe("n8n's SSRF protection in a real n8n 2.41.1", () => {
	let sim: Simulator;
	let state: string;
	beforeAll(async () => {
		sim = await startSimulator({ quiet: true, taskLatencyMs: 300, pollAfterMs: 300 });
		state = await newState();
		await importCredentials(state, [
			{
				...CRED,
				type: 'genGatewayApi',
				data: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
			},
		]);
		await importWorkflow(state, workflow());
	});
	afterAll(async () => {
		await sim.stop();
		removeState(state);
		removeTemplate();
	});

	async function run(extra: Record<string, string>): Promise<ExecuteResult> {
		const res = await executeWorkflow(state, WF, { extra });
		if (!res.data?.data?.resultData?.runData?.Download)
			throw new Error(`the workflow did not reach Download Result:\n${runFailure(res)}`);
		return res;
	}

	it('refuses a result address on a blocked range (loopback) in Task Wait and Download Result, with a clear reason and no connection; the credential’s origin stays usable', async () => {
		sim.log.length = 0;
		const resultConnections = sim.connections.result;
		const res = await run({ N8N_SSRF_PROTECTION_ENABLED: 'true' });

		// the credential's origin (loopback too): the submit and the task query went through
		expect(sim.log.filter((l) => l.server === 'gateway' && l.method === 'POST')).toHaveLength(1);
		expect(
			sim.log.some((l) => l.server === 'gateway' && l.method === 'GET' && l.status === 200),
		).toBe(true);

		const [failed] = nodeOutput(res, 'Wait', 1);
		expect(nodeOutput(res, 'Wait', 0)).toEqual([]);
		const address = String((failed.json.result_urls as string[])[0]);
		expect(address.startsWith(sim.resultBaseUrl)).toBe(true);
		expect(failed.json).toMatchObject({ status: 'failed', failed_at: 'download' });
		expect(failed.json.download_later).toBeUndefined();
		const why = String(failed.json.error);
		expect(why).toContain(address);
		expect(why).toContain('N8N_SSRF_PROTECTION_ENABLED');
		expect(why).toContain('No connection was made');
		expect(why).toContain('N8N_SSRF_ALLOWED_IP_RANGES');
		expect(why).not.toContain(sim.keys.demo);

		const [download] = nodeOutput(res, 'Download');
		expect(download.json).toMatchObject({ status: 'failed', failed_at: 'download' });
		expect(String(download.json.error)).toContain(address);
		expect(String(download.json.error)).toContain('N8N_SSRF_PROTECTION_ENABLED');
		expect(download.binary).toBeUndefined();

		// n8n's own HTTP Request node gives the same verdict on the same address
		const [own] = nodeOutput(res, 'n8n HTTP Request');
		expect(own.json.error).toMatchObject({ name: 'SsrfBlockedIpError', ip: '127.0.0.1' });

		// nothing reached the result host: no request, not even a connection
		expect(sim.log.filter((l) => l.server === 'result')).toEqual([]);
		expect(sim.connections.result).toBe(resultConnections);
		expect(res.stdout + res.stderr).not.toContain(sim.keys.demo);
	});

	it('with the result host’s range allowed (N8N_SSRF_ALLOWED_IP_RANGES), Task Wait, Download Result and n8n’s HTTP Request reach it', async () => {
		sim.log.length = 0;
		const res = await run({
			N8N_SSRF_PROTECTION_ENABLED: 'true',
			N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.1/32',
		});
		const [done] = nodeOutput(res, 'Wait', 0);
		expect(done?.json).toMatchObject({ status: 'completed' });
		expect(String(done.binary?.data?.mimeType)).toMatch(/^image\//);
		const [download] = nodeOutput(res, 'Download');
		expect(download.json).toMatchObject({ status: 'completed' });
		expect(String(download.binary?.data?.mimeType)).toMatch(/^image\//);
		const [own] = nodeOutput(res, 'n8n HTTP Request');
		expect(own.json.error).toBeUndefined();
		expect(
			sim.log.filter((l) => l.server === 'result' && l.status === 200).length,
		).toBeGreaterThanOrEqual(3);
	});
});
