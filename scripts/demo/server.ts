/**
 * The demo workflows that need a running n8n (`n8n start`) rather than `n8n execute` alone (a workflow's `server`):
 *
 * - `approve` (examples/quote-approve.json): `n8n execute` runs it up to its Wait node (*On Form Submitted*), where
 *   the execution waits; then `n8n start` on the same state serves the form and the demo answers it as a person
 *   would, a multipart POST of "Approve" to n8n's own form endpoint (/form-waiting/<execution>), and waits for the
 *   resumed execution to finish.
 * - `report` (examples/spend-report.json): the owner is set up over n8n's REST API as in the editor, an n8n API key
 *   created (/rest/api-keys), the *n8n API* credential and the workflow created through n8n's public API, its daily
 *   Schedule Trigger set to tick every 2 s, published, and its first execution awaited, then unpublished.
 *
 * Returns each workflow's run as n8n stored it, and the time windows the judge needs (what the gateway saw while the
 * quote ran, and while the approved run ran).
 */
import { request } from 'undici';
import { freePort } from '../lib/port';
import { executeWorkflow, storedRun, type ExecuteResult } from '../lib/n8n/cli';
import type { N8nEnvOptions } from '../lib/n8n/env';
import { spawnN8n, type N8nProcess } from '../queue/processes';

export interface ServerRun {
	res: ExecuteResult;
	/** approve: [start, end] of the quoted run (before the form) and of the approved run (form answered → finished) */
	quoted?: [number, number];
	approved?: [number, number];
	/** report: the id n8n gave the workflow created through the public API */
	workflowId?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The workflow's last execution once it is no longer running or waiting (n8n's database); throws at the timeout. */
async function finishedRun(
	state: string,
	workflowId: string,
	timeoutMs: number,
): Promise<NonNullable<ExecuteResult['data']>> {
	const end = Date.now() + timeoutMs;
	for (;;) {
		const run = storedRun(state, workflowId);
		if (run?.status && !['running', 'waiting', 'new'].includes(run.status)) return run;
		if (Date.now() > end)
			throw new Error(
				`the execution of workflow ${workflowId} did not finish within ${timeoutMs / 1000} s (status ${run?.status ?? 'none'})`,
			);
		await sleep(500);
	}
}

async function json(
	method: string,
	url: string,
	body: unknown,
	headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; cookie?: string }> {
	const res = await request(url, {
		method: method as 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.body.text();
	if (res.statusCode >= 300)
		throw new Error(
			`${method} ${new URL(url).pathname}: HTTP ${res.statusCode} ${text.slice(0, 300)}`,
		);
	const cookie = String(res.headers['set-cookie'] ?? '').split(';')[0];
	return { status: res.statusCode, body: text ? JSON.parse(text) : {}, cookie };
}

/** The owner set up over REST as in the editor's first screen, and an API key of every scope the owner may give it. */
async function ownerApiKey(base: string): Promise<string> {
	const setup = await json('POST', `${base}/rest/owner/setup`, {
		email: 'demo@example.com',
		firstName: 'Demo',
		lastName: 'User',
		password: 'Demo-Passw0rd!',
	});
	if (!setup.cookie?.includes('=')) throw new Error('owner setup gave no session cookie');
	const auth = { cookie: setup.cookie };
	const scopes = (await json('GET', `${base}/rest/api-keys/scopes`, undefined, auth)).body
		.data as string[];
	const key = await json(
		'POST',
		`${base}/rest/api-keys`,
		{ label: 'spend report', scopes, expiresAt: null },
		auth,
	);
	const raw = (key.body.data as { rawApiKey?: string }).rawApiKey;
	if (!raw) throw new Error('POST /rest/api-keys gave no key');
	return raw;
}

/**
 * Runs the `server` workflows in `state` (where the demo's workflows ran, so the report has their executions to add
 * up). `approve`: the id of the imported quote-approve workflow; `report`: the spend report's workflow JSON.
 */
export async function runServerWorkflows(
	state: string,
	opts: {
		approve?: string;
		report?: Record<string, unknown>;
		env: N8nEnvOptions;
		timeoutMs: number;
		log: (s: string) => void;
	},
): Promise<{ approve?: ServerRun; report?: ServerRun }> {
	const out: { approve?: ServerRun; report?: ServerRun } = {};
	let quoteExecution: string | undefined;
	/** the form's address as $execution.resumeFormUrl gives it: n8n 2 signs it with the execution's resume token */
	let formPath = '';
	let quoted: [number, number] | undefined;
	if (opts.approve) {
		const t0 = Date.now();
		const res = await executeWorkflow(state, opts.approve, {
			...opts.env,
			timeoutMs: opts.timeoutMs,
		});
		quoted = [t0, Date.now()];
		const run = storedRun(state, opts.approve);
		if (run?.status !== 'waiting' || !run.id) {
			out.approve = { res, quoted };
			opts.log(
				`[demo] quote-approve: the run did not stop at the approval form (status ${run?.status ?? 'none'})`,
			);
		} else {
			quoteExecution = run.id;
			const token = (run.data as { resumeToken?: string } | undefined)?.resumeToken;
			formPath = `/form-waiting/${run.id}${token ? `?signature=${encodeURIComponent(token)}` : ''}`;
		}
	}
	if (!quoteExecution && !opts.report) return out;

	const port = await freePort();
	const base = `http://127.0.0.1:${port}`;
	let n8n: N8nProcess | undefined;
	try {
		n8n = await spawnN8n('server', state, ['start'], {
			...opts.env,
			extra: {
				...opts.env.extra,
				N8N_PORT: String(port),
				N8N_LISTEN_ADDRESS: '127.0.0.1',
				N8N_SECURE_COOKIE: 'false',
				WEBHOOK_URL: `${base}/`,
			},
		});
		await n8n.waitFor('Editor is now accessible', 180_000);

		if (quoteExecution && opts.approve) {
			// the person's answer: the form's one field (field-0, "Decision") as n8n's form page posts it
			const form = new FormData();
			form.append('field-0', 'Approve');
			const t2 = Date.now();
			const res = await fetch(`${base}${formPath}`, { method: 'POST', body: form });
			await res.text();
			if (res.status >= 300) throw new Error(`the approval form answered HTTP ${res.status}`);
			const data = await finishedRun(state, opts.approve, opts.timeoutMs);
			out.approve = {
				res: { code: 0, stdout: '', stderr: '', data },
				quoted,
				approved: [t2, Date.now()],
			};
		}

		if (opts.report) {
			const key = await ownerApiKey(base);
			const api = { 'X-N8N-API-KEY': key };
			const cred = await json(
				'POST',
				`${base}/api/v1/credentials`,
				{ name: 'n8n account', type: 'n8nApi', data: { apiKey: key, baseUrl: `${base}/api/v1` } },
				api,
			);
			const wf = JSON.parse(JSON.stringify(opts.report)) as {
				name: string;
				nodes: Array<{ type: string; parameters: Record<string, unknown>; credentials?: unknown }>;
				connections: unknown;
			};
			for (const n of wf.nodes) {
				if (n.type === 'n8n-nodes-base.n8n')
					n.credentials = { n8nApi: { id: String(cred.body.id), name: 'n8n account' } };
				// the daily schedule ticks every 2 s in the demo
				if (n.type === 'n8n-nodes-base.scheduleTrigger')
					n.parameters.rule = { interval: [{ field: 'seconds', secondsInterval: 2 }] };
			}
			const created = await json(
				'POST',
				`${base}/api/v1/workflows`,
				{
					name: wf.name,
					nodes: wf.nodes,
					connections: wf.connections,
					settings: { executionOrder: 'v1' },
				},
				api,
			);
			const id = String(created.body.id);
			await json('POST', `${base}/api/v1/workflows/${id}/activate`, undefined, api);
			const data = await finishedRun(state, id, opts.timeoutMs);
			await json('POST', `${base}/api/v1/workflows/${id}/deactivate`, undefined, api);
			out.report = { res: { code: 0, stdout: '', stderr: '', data }, workflowId: id };
		}
		return out;
	} finally {
		await n8n?.stop();
	}
}
