/** The package installed into a real n8n 2.41.1 the way n8n installs community packages, run with `n8n execute`. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../simulator';
import { PACKAGE_NAME } from '../../scripts/lib/repo';
import { N8N_NODE } from '../../scripts/lib/n8n/runtime';
import {
	executeWorkflow,
	nodeOutput,
	storedRun,
	type ExecuteResult,
} from '../../scripts/lib/n8n/cli';
import { importCredentials, importWorkflow } from '../../scripts/lib/n8n/imports';
import { newState, removeState, removeTemplate } from '../../scripts/lib/n8n/state';
import { crashedAfterRun } from '../../scripts/demo/summary';

jest.setTimeout(600_000);

describe('real n8n smoke test', () => {
	let sim: Simulator;
	let state: string;
	beforeAll(async () => {
		sim = await startSimulator({ quiet: true });
		state = await newState();
	});
	afterAll(async () => {
		await sim.stop();
		removeState(state);
		removeTemplate();
	});

	it('installs without devDependencies and resolves every runtime dependency from the package folder', () => {
		const pkgDir = join(state, '.n8n/nodes/node_modules', PACKAGE_NAME);
		const pkg = require(join(pkgDir, 'package.json'));
		expect(pkg.devDependencies).toBeUndefined();
		for (const dep of Object.keys(pkg.dependencies)) {
			const where = execFileSync(
				N8N_NODE,
				['-e', `process.stdout.write(require.resolve(${JSON.stringify(dep)}))`],
				{ cwd: pkgDir, encoding: 'utf8' },
			);
			expect(where).toContain(join(pkgDir, 'node_modules'));
		}
		// n8n-workflow must come from n8n itself, never from the package
		expect(() =>
			execFileSync(N8N_NODE, ['-e', "require.resolve('n8n-workflow')"], {
				cwd: pkgDir,
				stdio: 'pipe',
			}),
		).toThrow();
	});

	it('runs a workflow with the credential and a node against a local gateway', async () => {
		await importCredentials(state, [
			{
				id: 'ggcred1',
				name: 'Gateway',
				type: 'genGatewayApi',
				data: { apiKey: sim.keys.demo, baseUrl: `${sim.baseUrl}/v1/` },
			},
		]);
		await importWorkflow(state, {
			id: 'ggsmoke1',
			name: 'smoke',
			active: false,
			nodes: [
				{
					id: 'n1',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'n2',
					name: 'Models',
					type: `${PACKAGE_NAME}.genGatewayPricing`,
					typeVersion: 1,
					position: [200, 0],
					parameters: { operation: 'listModels' },
					credentials: { genGatewayApi: { id: 'ggcred1', name: 'Gateway' } },
				},
			],
			connections: { Start: { main: [[{ node: 'Models', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		});
		const res = await executeWorkflow(state, 'ggsmoke1');
		if (res.code !== 0 && !crashedAfterRun(res))
			throw new Error(
				`n8n execute failed (exit ${res.code}, signal ${res.signal}): ${res.stderr.slice(-3000)}\n${res.stdout.slice(-2000)}`,
			);
		const items = nodeOutput(res, 'Models');
		// what n8n stored is what it printed (the demo reads it when n8n's process dies while printing a finished run)
		const stored = storedRun(state, 'ggsmoke1') as
			{ status?: string; finished?: boolean; startedAt?: string } | undefined;
		expect(stored).toMatchObject({ status: 'success', finished: true });
		expect(
			nodeOutput({ ...res, data: stored as ExecuteResult['data'] }, 'Models').map(
				(i) => i.json.model,
			),
		).toEqual(items.map((i) => i.json.model));
		expect(
			Math.abs(
				Date.parse(stored!.startedAt!) -
					Date.parse((res.data as { startedAt?: string }).startedAt!),
			),
		).toBeLessThan(1000);
		expect(items.find((i) => i.json.model === 'alpha-image-2-4k')?.json.callable).toBe(true);
		const calls = sim.log.filter((l) => l.path === '/v1/models');
		expect(calls).toHaveLength(1);
		expect(calls[0]).toMatchObject({ auth: true, status: 200, keyName: 'demo' });
		expect(res.stdout + res.stderr).not.toContain(sim.keys.demo);
	});
});
