/** The simulator's state: options, keys, tasks, hosted results, request log and billing ledger. */
import type { ImageFormat } from './media/images';
import { FaultBook } from './faults/book';
import { QUOTA_PER_UNIT } from './catalog/billing';
import { DEFAULT_KEYS, type KeyInfo } from './catalog/keys';
import type { StatusOverrides } from './catalog/pricing';

export interface SimulatorOptions {
	port?: number;
	host?: string;
	seed?: number;
	taskLatencyMs?: number;
	videoLatencyMs?: number;
	pollAfterMs?: number;
	retentionMs?: number;
	syncLatencyMs?: number;
	videoBytes?: number;
	imageFormat?: ImageFormat;
	/** accepted and ignored: the library prints nothing (the CLI prints its banner) */
	quiet?: boolean;
	/** every request that creates a task or generates answers only after this delay (default 0) */
	submitLatencyMs?: number;
	/** the result host and video `/content` wait this long before the first byte (default 0) */
	resultTtfbMs?: number;
	/** bytes per second per connection for result downloads and `/content` (default unlimited) */
	resultBandwidth?: number;
	/** result images are padded to at least this many bytes, staying valid files (default 0: natural size) */
	imageBytes?: number;
	/** task-creating POSTs in flight beyond this are refused at once with 429 (default unlimited) */
	maxConcurrentSubmits?: number;
	/** `Retry-After` of those refusals, in seconds (default 1) */
	submitRetryAfterSec?: number;
}

export type ServerName = 'gateway' | 'alt' | 'result';

export interface RequestLogEntry {
	time: number;
	method: string;
	server: ServerName;
	path: string;
	status: number;
	auth: boolean;
	/** name of the key used (never the secret) */
	keyName?: string;
	model?: string;
	taskId?: string;
}

export interface LedgerEntry {
	time: number;
	key: string;
	kind: 'charge' | 'reserve' | 'settle' | 'refund';
	model: string;
	/** quota units; refunds are negative */
	amount: number;
	taskId?: string;
}

export interface HostedResult {
	kind: 'image' | 'video';
	width?: number;
	height?: number;
	format?: ImageFormat;
	seed: number;
	bytes?: number;
	durationSec?: number;
}

export type ImageOutcome = 'ok' | 'fail' | 'empty' | 'uncertain-fail' | 'cancelled' | 'expired';

export interface ImageTask {
	kind: 'image';
	id: string;
	owner: string;
	model: string;
	createdAt: number;
	readyAt: number;
	outcome: ImageOutcome;
	/** images actually delivered on success (n, or fewer for a partial result) */
	delivered: number;
	/** data items as b64_json instead of hosted URLs */
	b64?: boolean;
	width: number;
	height: number;
	format: ImageFormat;
	n: number;
	finishedAt?: number;
	resultIds?: string[];
	charged: number;
	refunded?: boolean;
	requestId: string;
	error?: string;
}

export interface VideoTask {
	kind: 'video';
	id: string;
	owner: string;
	family: 'delta' | 'gamma';
	model: string;
	server: ServerName;
	createdAt: number;
	readyAt: number;
	outcome: 'ok' | 'fail' | 'fail-silent';
	seconds: number;
	resolution: string;
	withRefVideo: boolean;
	variant: number;
	reserved: number;
	/** usage reported on completion (video tokens) */
	tokens: number;
	settled?: boolean;
	resultId?: string;
	error?: string;
}

export class SimState {
	readonly opts: Required<Omit<SimulatorOptions, 'imageFormat' | 'port' | 'host' | 'quiet'>> & { imageFormat?: ImageFormat };
	/** task-creating POSTs being answered right now */
	submitsInFlight = 0;
	readonly keys: Map<string, KeyInfo>;
	readonly tasks = new Map<string, ImageTask | VideoTask>();
	readonly results = new Map<string, HostedResult>();
	readonly log: RequestLogEntry[] = [];
	readonly ledger: LedgerEntry[] = [];
	readonly faults = new FaultBook();
	/** what /api/status reports (display currency); kept across `reset()` */
	statusOverrides: StatusOverrides = {};
	/** the site's quota units per base unit (its /api/status setting), which per-call and video fees are billed in */
	get quotaPerUnit(): number {
		return this.statusOverrides.quota_per_unit ?? QUOTA_PER_UNIT;
	}
	urls = { gateway: '', alt: '', result: '' };
	private counter = 0;

	constructor(o: SimulatorOptions) {
		this.opts = {
			seed: o.seed ?? 1,
			taskLatencyMs: o.taskLatencyMs ?? 2000,
			videoLatencyMs: o.videoLatencyMs ?? 4000,
			pollAfterMs: o.pollAfterMs ?? 3000,
			retentionMs: o.retentionMs ?? 2 * 3600_000,
			syncLatencyMs: o.syncLatencyMs ?? 20,
			videoBytes: o.videoBytes ?? 200_000,
			imageFormat: o.imageFormat,
			submitLatencyMs: o.submitLatencyMs ?? 0,
			resultTtfbMs: o.resultTtfbMs ?? 0,
			resultBandwidth: o.resultBandwidth ?? Infinity,
			imageBytes: o.imageBytes ?? 0,
			maxConcurrentSubmits: o.maxConcurrentSubmits ?? Infinity,
			submitRetryAfterSec: o.submitRetryAfterSec ?? 1,
		};
		this.keys = new Map(Object.entries(DEFAULT_KEYS).map(([k, v]) => [k, { ...v }]));
	}

	/** Deterministic IDs from the seed and a counter. */
	nextId(prefix: string): string {
		this.counter++;
		const n = (this.opts.seed * 7919 + this.counter * 104729) >>> 0;
		return `${prefix}_${n.toString(36)}${this.counter.toString(36).padStart(4, '0')}`;
	}

	get sequence(): number {
		return this.counter;
	}

	/** What every new task starts with: an ID, its owner, its creation time and when it will be ready. */
	newTask(prefix: string, owner: string, latencyMs: number): { id: string; owner: string; createdAt: number; readyAt: number } {
		const createdAt = Date.now();
		return { id: this.nextId(prefix), owner, createdAt, readyAt: createdAt + latencyMs };
	}

	charge(key: KeyInfo, kind: LedgerEntry['kind'], model: string, amount: number, taskId?: string): void {
		this.ledger.push({ time: Date.now(), key: key.name, kind, model, amount, taskId });
		if (Number.isFinite(key.quota)) key.quota -= amount;
	}

	reset(): void {
		this.log.length = 0;
		this.ledger.length = 0;
		this.faults.clear();
	}
}
