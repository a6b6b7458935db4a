/**
 * The gateway simulator: a stateful local implementation of the gateway spec with fault injection.
 * Three servers on loopback: the gateway origin, an alternative video origin, and a result host.
 * Every request goes through the fault layer (faults/layer.ts) in front of the faithful gateway (gateway/routes.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FaultSpec } from './faults/book';
import { FaultLayer } from './faults/layer';
import { json, openAiError, writeAnswer, type Answer } from './gateway/answer';
import { answerGateway, readBody } from './gateway/front';
import { resultHost, sendDownload } from './gateway/results';
import type { KeyConfig } from './catalog/keys';
import type { PricingConfig, PricingSnapshot } from './catalog/price-list';
import type { StatusOverrides } from './catalog/pricing';
import {
	SimState,
	type LedgerEntry,
	type RequestLogEntry,
	type ServerName,
	type SimulatorOptions,
} from './state';

export type { EchoWhere, FaultSpec, FaultKind } from './faults/book';
export type { LedgerBasis, LedgerEntry, RequestLogEntry, SimulatorOptions } from './state';
export type { KeyConfig } from './catalog/keys';
export type { PriceEntryInput, PricingConfig, PricingSnapshot } from './catalog/price-list';
export type { TokenUsage } from './catalog/billing';

export interface Simulator {
	baseUrl: string;
	altBaseUrl: string;
	resultBaseUrl: string;
	keys: { demo: string; limited: string; other: string; broke: string; [name: string]: string };
	log: RequestLogEntry[];
	/** TCP connections each server accepted since the start (a client that refused an address before connecting adds none) */
	readonly connections: Readonly<Record<ServerName, number>>;
	ledger: LedgerEntry[];
	state: SimState;
	fault(f: FaultSpec | FaultSpec[]): void;
	clearFaults(): void;
	/** changes what /api/status reports (display currency) */
	setStatus(o: StatusOverrides): void;
	/** adds a key in any group (or reconfigures the key of that name); returns its secret, also in `keys[name]` */
	addKey(k: KeyConfig): string;
	/** changes the price list (models, ratios, groups, hidden groups); kept across `reset()` */
	setPricing(p: PricingConfig): void;
	/** the price list back to the defaults */
	resetPricing(): void;
	/** the price list as the simulator knows it (hidden group ratios included) */
	readonly pricing: PricingSnapshot;
	/** quota units charged net of refunds: in all, or of one key (by name), task or request (`X-Oneapi-Request-Id`) */
	charged(filter?: { key?: string; taskId?: string; requestId?: string }): number;
	reset(): void;
	stop(): Promise<void>;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
	const sim = new SimState(opts);
	const host = opts.host ?? '127.0.0.1';

	const handle = (server: ServerName) => async (raw: IncomingMessage, res: ServerResponse) => {
		const path = new URL(raw.url ?? '/', 'http://x').pathname;
		const method = raw.method ?? 'GET';
		if (server === 'gateway' && path.startsWith('/__sim/')) return admin(raw, res, path, method);
		const auth = typeof raw.headers.authorization === 'string';
		const entry: RequestLogEntry = { time: Date.now(), method, server, path, status: 0, auth };
		if (server !== 'result') {
			// the gateway's request ID, as new-api style gateways send it; ledger lines of the request name it
			entry.requestId = sim.nextRequestId();
			res.setHeader('x-oneapi-request-id', entry.requestId);
		}
		sim.log.push(entry);
		res.on('finish', () => (entry.status = res.statusCode));
		res.on('close', () => {
			if (!res.writableFinished && !entry.status) entry.status = -1;
		});
		const faults = new FaultLayer(sim, server, raw);
		const write = (a: Answer) =>
			writeAnswer(res, faults.answer(a), (r, d) => sendDownload(sim, r, d));
		try {
			if (server === 'result') return await write(resultHost(sim, raw));
			const early = await faults.beforeGateway();
			return await write(
				early ?? (await answerGateway(sim, server, raw, res, entry, faults.upstream)),
			);
		} catch (err) {
			if (!res.headersSent)
				await write(
					openAiError(
						500,
						`simulator error: ${(err as Error).message}`,
						'internal_error',
						'api_error',
					),
				);
			else res.destroy();
		}
	};

	const reply = (res: ServerResponse, status: number, body: unknown) =>
		void writeAnswer(res, json(status, body), (r, d) => sendDownload(sim, r, d));

	const addKey = (k: KeyConfig): string => {
		const secret = sim.addKey(k);
		keys[k.name] = secret;
		return secret;
	};

	async function admin(
		raw: IncomingMessage,
		res: ServerResponse,
		path: string,
		method: string,
	): Promise<void> {
		const body = await readBody(raw);
		let json: unknown;
		try {
			json = body !== 'too-large' && body.length ? JSON.parse(body.toString('utf8')) : undefined;
			return await adminRoute(res, path, method, json);
		} catch (err) {
			return reply(res, 400, { ok: false, error: (err as Error).message });
		}
	}

	async function adminRoute(
		res: ServerResponse,
		path: string,
		method: string,
		json: any,
	): Promise<void> {
		if (path === '/__sim/faults' && method === 'POST') {
			sim.faults.add(json);
			return reply(res, 200, { ok: true, faults: sim.faults.list() });
		}
		if (path === '/__sim/faults' && method === 'DELETE') {
			sim.faults.clear();
			return reply(res, 200, { ok: true });
		}
		if (path === '/__sim/log') return reply(res, 200, sim.log);
		if (path === '/__sim/ledger') return reply(res, 200, sim.ledger);
		if (path === '/__sim/reset' && method === 'POST') {
			sim.reset();
			return reply(res, 200, { ok: true });
		}
		if (path === '/__sim/status' && method === 'POST') {
			sim.statusOverrides = json ?? {};
			return reply(res, 200, { ok: true });
		}
		if (path === '/__sim/keys' && method === 'POST') {
			const secret = addKey(json);
			const info = sim.keys.get(secret)!;
			return reply(res, 200, { ok: true, name: info.name, group: info.group, key: secret });
		}
		if (path === '/__sim/keys' && method === 'GET') {
			return reply(
				res,
				200,
				[...sim.keys.values()].map((k) => ({
					name: k.name,
					group: k.group,
					group_ratio: sim.prices.ratioOf(k.group),
					quota: Number.isFinite(k.quota) ? k.quota : null,
					...(k.models ? { models: k.models } : {}),
				})),
			);
		}
		if (path === '/__sim/pricing' && method === 'POST') {
			sim.prices.apply(json ?? {});
			return reply(res, 200, { ok: true });
		}
		if (path === '/__sim/pricing' && method === 'DELETE') {
			sim.prices.reset();
			return reply(res, 200, { ok: true });
		}
		if (path === '/__sim/pricing' && method === 'GET')
			return reply(res, 200, sim.prices.snapshot());
		return reply(res, 404, { error: 'unknown admin route' });
	}

	const keys = Object.fromEntries(
		[...sim.keys.entries()].map(([secret, info]) => [info.name, secret]),
	) as Simulator['keys'];

	const listen = (s: Server, port: number) =>
		new Promise<string>((resolve, reject) => {
			s.once('error', reject);
			s.listen(port, host, () => resolve(`http://${host}:${(s.address() as AddressInfo).port}`));
		});
	const gateway = createServer(handle('gateway'));
	const alt = createServer(handle('alt'));
	const result = createServer(handle('result'));
	const connections: Record<ServerName, number> = { gateway: 0, alt: 0, result: 0 };
	for (const [name, s] of [
		['gateway', gateway],
		['alt', alt],
		['result', result],
	] as const) {
		s.keepAliveTimeout = 5000;
		s.on('connection', () => connections[name]++);
	}
	sim.urls.gateway = await listen(gateway, opts.port ?? 0);
	sim.urls.alt = await listen(alt, 0);
	sim.urls.result = await listen(result, 0);

	return {
		baseUrl: sim.urls.gateway,
		altBaseUrl: sim.urls.alt,
		resultBaseUrl: sim.urls.result,
		keys,
		log: sim.log,
		connections,
		ledger: sim.ledger,
		state: sim,
		fault: (f) => sim.faults.add(f),
		clearFaults: () => sim.faults.clear(),
		setStatus: (o) => (sim.statusOverrides = o),
		addKey,
		setPricing: (p) => sim.prices.apply(p),
		resetPricing: () => sim.prices.reset(),
		get pricing() {
			return sim.prices.snapshot();
		},
		charged: (filter) => sim.charged(filter),
		reset: () => sim.reset(),
		stop: async () => {
			await Promise.all(
				[gateway, alt, result].map(
					(s) =>
						new Promise<void>((r) => {
							s.closeAllConnections();
							s.close(() => r());
						}),
				),
			);
		},
	};
}
