/** The simulator's state: options, keys, tasks, hosted results, request log and billing ledger. */
import type { ImageFormat } from './media/images';
import { FaultBook } from './faults/book';
import { QUOTA_PER_UNIT, type TokenUsage } from './catalog/billing';
import { DEFAULT_KEYS, type KeyConfig, type KeyInfo } from './catalog/keys';
import { PriceList, type PricingConfig } from './catalog/price-list';
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
	/**
	 * the gateway's acceptance pace: it starts at most this many task-creating POSTs a second; the others wait their
	 * turn in its queue, so their answers come later as the load grows (default unlimited)
	 */
	submitsPerSecond?: number;
	/** the gateway's cap on a request body: larger bodies are refused with 413 (default 64 MiB) */
	maxBodyBytes?: number;
	/** changes to the default price list (see `sim.setPricing`) */
	pricing?: PricingConfig;
	/** keys to add to (or reconfigure among) the default ones (see `sim.addKey`) */
	keys?: KeyConfig[];
	/**
	 * Play another gateway that follows the spec and nothing beyond it in chat: it ignores the request fields the spec
	 * does not define that ask for a format (`response_format`, responses `text.format`), and its model calls every
	 * tool it is offered (default false: the scripted model of the table in README.md)
	 */
	specOnlyChat?: boolean;
}

export type ServerName = 'gateway' | 'alt' | 'result';

export interface RequestLogEntry {
	time: number;
	method: string;
	server: ServerName;
	path: string;
	status: number;
	auth: boolean;
	/** the gateway's ID of the request (also its `X-Oneapi-Request-Id` header); ledger lines name it */
	requestId?: string;
	/** name of the key used (never the secret) */
	keyName?: string;
	model?: string;
	taskId?: string;
}

/** How a ledger line's amount was computed. */
export type LedgerBasis =
	/** model price × group ratio × quota per unit, per unit (image, request), × n */
	| { billing: 'per_call'; modelPrice: number; n: number; quotaPerUnit: number }
	/** the usage the answer reported, weighted by the model's ratios (absent ratios: 1) */
	| {
			billing: 'per_token';
			usage: TokenUsage;
			modelRatio: number;
			completionRatio?: number;
			cacheRatio?: number;
			createCacheRatio?: number;
			imageRatio?: number;
			audioRatio?: number;
			audioCompletionRatio?: number;
	  }
	/** video tokens (the estimate for a reservation, the reported usage for a settlement) × unit price */
	| {
			billing: 'per_video_token';
			tokens: number;
			unitPrice: number;
			withRefVideo: boolean;
			quotaPerUnit: number;
			fee: number;
	  };

export interface LedgerEntry {
	time: number;
	/** the key's name (never the secret) */
	key: string;
	/** the key's group and the ratio this line was charged at (for task lines: those of the submission) */
	group: string;
	groupRatio: number;
	/** charge: a final charge; reserve: a delta-video estimate; settle: actual minus reserved; refund: money returned */
	kind: 'charge' | 'reserve' | 'settle' | 'refund';
	model: string;
	/** quota units, signed: charges and reservations positive, refunds negative, a settlement actual − reserved */
	amount: number;
	/** settle lines: a top-up (amount > 0), a refund of the difference (< 0), or exact (0) */
	settlement?: 'top-up' | 'refund' | 'exact';
	/** refund lines: why (the task's terminal status) */
	reason?: 'failed' | 'cancelled' | 'expired';
	taskId?: string;
	/** the paid request the line belongs to (for a task's later lines: its submission), as in the log and `X-Oneapi-Request-Id` */
	requestId?: string;
	basis?: LedgerBasis;
}

/** A ledger line as a route writes it (the time, key and group are filled in). */
export type LedgerLine = Omit<LedgerEntry, 'time' | 'key' | 'group'> & { group?: string };

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

/** The price basis of a task, fixed when it was accepted (later price changes do not apply to it). */
export interface TaskBilling {
	/** the submission's request ID */
	requestId?: string;
	group: string;
	groupRatio: number;
	quotaPerUnit: number;
	/** delta-video: the unit price (base quota per 1M video tokens) of the task's kind */
	unitPrice?: number;
}

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
	/** the price basis at acceptance (set when the task is charged) */
	billing?: TaskBilling;
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
	/** usage reported on completion (video tokens); undefined: the task completes without usage (`[usage=none]`) */
	tokens: number | undefined;
	/** the price basis at acceptance */
	billing?: TaskBilling;
	settled?: boolean;
	resultId?: string;
	error?: string;
}

export class SimState {
	readonly opts: Required<Omit<SimulatorOptions, 'imageFormat' | 'port' | 'host' | 'quiet'>> & {
		imageFormat?: ImageFormat;
	};
	/** task-creating POSTs being answered right now */
	submitsInFlight = 0;
	/** the most task-creating POSTs answered at once since the start or the last `reset()` (refused ones never count) */
	submitsInFlightPeak = 0;
	/** when the gateway's pace lets the next task-creating POST start (submitsPerSecond) */
	nextSubmitStart = 0;
	readonly keys: Map<string, KeyInfo>;
	readonly tasks = new Map<string, ImageTask | VideoTask>();
	readonly results = new Map<string, HostedResult>();
	readonly log: RequestLogEntry[] = [];
	readonly ledger: LedgerEntry[] = [];
	readonly faults = new FaultBook();
	/** the live price list (models, groups, ratios); kept across `reset()` */
	readonly prices: PriceList;
	/** what /api/status reports (display currency); kept across `reset()` */
	statusOverrides: StatusOverrides = {};
	/** the site's quota units per base unit (its /api/status setting), which per-call and video fees are billed in */
	get quotaPerUnit(): number {
		return this.statusOverrides.quota_per_unit ?? QUOTA_PER_UNIT;
	}
	urls = { gateway: '', alt: '', result: '' };
	/**
	 * Public host names the vision model reads image addresses from, each served by a loopback origin (tests: the open
	 * web, since the package refuses loopback addresses before sending); kept across `reset()`
	 */
	readonly imageHosts = new Map<string, string>();
	/** the thinking model's reasoning given with each tool call it made, by the call's ID (checked when it comes back) */
	readonly reasoningByCall = new Map<string, string>();
	private counter = 0;
	private requests = 0;
	private keysMade = 0;

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
			submitsPerSecond: o.submitsPerSecond ?? Infinity,
			maxBodyBytes: o.maxBodyBytes ?? 64 * 1024 * 1024,
			pricing: o.pricing ?? {},
			keys: o.keys ?? [],
			specOnlyChat: o.specOnlyChat ?? false,
		};
		this.keys = new Map(Object.entries(DEFAULT_KEYS).map(([k, v]) => [k, { ...v }]));
		this.prices = new PriceList(o.pricing);
		for (const k of o.keys ?? []) this.addKey(k);
	}

	keyByName(name: string): { secret: string; info: KeyInfo } | undefined {
		for (const [secret, info] of this.keys) if (info.name === name) return { secret, info };
		return undefined;
	}

	/** Adds a key, or reconfigures the key of that name; returns its secret. */
	addKey(c: KeyConfig): string {
		if (!c || typeof c.name !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(c.name))
			throw new Error('key: name must be 1-64 letters, digits, ".", "_" or "-"');
		if (c.group !== undefined && (typeof c.group !== 'string' || !c.group))
			throw new Error('key: group must be a non-empty string');
		if (
			c.quota !== undefined &&
			c.quota !== null &&
			(typeof c.quota !== 'number' || Number.isNaN(c.quota))
		)
			throw new Error('key: quota must be a number or null');
		if (
			c.models !== undefined &&
			c.models !== null &&
			(!Array.isArray(c.models) || c.models.some((m) => typeof m !== 'string'))
		)
			throw new Error('key: models must be a list of model IDs or null');
		const existing = this.keyByName(c.name);
		const quota = c.quota === undefined ? undefined : c.quota === null ? Infinity : c.quota;
		if (existing) {
			if (c.group !== undefined) existing.info.group = c.group;
			if (quota !== undefined) existing.info.quota = quota;
			if (c.models === null) delete existing.info.models;
			else if (c.models) existing.info.models = [...c.models];
			return existing.secret;
		}
		this.keysMade++;
		const secret =
			c.key ?? `sk-sim-${c.name}-${(0x5eed0000 + this.keysMade).toString(16).padStart(16, '0')}`;
		if (!/^\S+$/.test(secret) || this.keys.has(secret))
			throw new Error('key: the secret must be new and have no spaces');
		this.keys.set(secret, {
			name: c.name,
			group: c.group ?? 'default',
			quota: quota ?? Infinity,
			...(c.models ? { models: [...c.models] } : {}),
		});
		return secret;
	}

	/** A new request ID for the gateway's log, ledger and `X-Oneapi-Request-Id` (its own counter: task and result IDs do not move). */
	nextRequestId(): string {
		this.requests++;
		return `sim-req-${String(this.requests).padStart(6, '0')}`;
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
	newTask(
		prefix: string,
		owner: string,
		latencyMs: number,
	): { id: string; owner: string; createdAt: number; readyAt: number } {
		const createdAt = Date.now();
		return { id: this.nextId(prefix), owner, createdAt, readyAt: createdAt + latencyMs };
	}

	/** Writes a ledger line for `key` (its group unless the line names the group of the task's acceptance) and spends its quota. */
	charge(key: KeyInfo, line: LedgerLine): LedgerEntry {
		const { group, ...rest } = line;
		const entry: LedgerEntry = {
			time: Date.now(),
			key: key.name,
			group: group ?? key.group,
			...rest,
		};
		for (const k of Object.keys(entry) as Array<keyof LedgerEntry>)
			if (entry[k] === undefined) delete entry[k];
		this.ledger.push(entry);
		if (Number.isFinite(key.quota)) key.quota -= line.amount;
		return entry;
	}

	/** Quota units charged, net of refunds: in all, or of one key (name), task or request. */
	charged(filter: { key?: string; taskId?: string; requestId?: string } = {}): number {
		return this.ledger
			.filter(
				(l) =>
					(filter.key === undefined || l.key === filter.key) &&
					(filter.taskId === undefined || l.taskId === filter.taskId) &&
					(filter.requestId === undefined || l.requestId === filter.requestId),
			)
			.reduce((s, l) => s + l.amount, 0);
	}

	reset(): void {
		this.reasoningByCall.clear();
		this.log.length = 0;
		this.ledger.length = 0;
		this.faults.clear();
		this.submitsInFlightPeak = this.submitsInFlight;
	}
}
