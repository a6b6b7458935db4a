/**
 * The money properties' invariants, judged after every generated run from what the gateway received (the recording
 * proxy: every paid POST with its place marker), what it charged (the simulator's ledger, by request ID), the oracle's
 * prices (./money-oracle.ts, from the spec's billing rules) and what n8n kept (run data, custom data):
 *
 * (a) the cap: for every batch of an action node that sent anything under a Max Expected Spend C (the strictest of
 *     its valid items), what the gateway charged for every call sent up to that batch's last request is ≤ C —
 *     leaving out the batch's own calls when the user let calls with no price pass (Allow Unpriced Models on a
 *     per-token Chat node), and earlier calls that have no figure even after they were sent (a per-token call
 *     whose answer was lost, with no bound), which the package names in the record's text instead;
 *     for every Chat Model turn under the Chat Model's cap C: with Maximum Number of Tokens, the charges of every
 *     earlier call plus this turn's are ≤ C (the documented bound: the request's bytes as prompt tokens, Maximum
 *     Number of Tokens as completion tokens — the oracle checks the gateway kept to it); without it, the charges
 *     of every earlier call are < C (the turn is sent only while the spend is under the cap; one turn may pass it);
 *     a per-token Chat node with a cap and Allow Unpriced Models off sends nothing; a batch with a bad money option
 *     sends nothing;
 * (b) the record: `gengateway_spent` ≥ what the gateway charged for the calls that have a figure; equal to all it
 *     charged when every call's multiplier was known (Group Name of a published group, or Group Multiplier) and
 *     every call was answered; ≤ the oracle's price at the highest published ratio (at the known one when known)
 *     of every call, bounds of lost turns included; the calls with no figure are counted in `gengateway_spent_text`;
 * (c) each paid call sent at most once per execution: per place (node, run, Start item; an agent's question and
 *     whether the turn answers a tool result), never more than one POST that may have spent (429s and other 4xx,
 *     which created nothing, are not counted);
 * (d) every input item of a paid node's run yields exactly one output item (paired to it), on the main or the error
 *     output; a paid node that sent a request never fails the run;
 * (e) every item's answer is its own: an agent item's answers are those of its own questions, an image's or video's
 *     output carries its own prompt (a re-run that reuses what a place got must hand it to the same place);
 * (k) Quote Only, when drawn from the node's description (README, "A quote before paying"; docs/configuration.md for
 *     how a switch given as text, empty or null reads): an item whose Quote Only reads on, or is no switch, has no
 *     paid request at its place;
 * and the oracle agrees with the simulator: every answered call was charged the oracle's price at the key's ratio.
 * The text calls are those of Chat Completions and of the Responses API (the Chat Model's *Use Responses API*).
 */
import type { IRunData, ITaskData } from 'n8n-workflow';
import type { LedgerEntry, RequestLogEntry } from '../../simulator';
import type { RunResult } from '../harness/workflow';
import { MAX_SENDS } from '../../nodes/shared/runners/send';
import type { Exchange } from './money-proxy';
import {
	displayToQuota,
	highestPublished,
	isPerCall,
	perCallPrice,
	perTokenPrice,
	usageOfAnswer,
	type PriceFacts,
	type Usage,
} from './money-oracle';
import {
	FAN,
	keptOf,
	START,
	type ChatModelCase,
	type ItemOptions,
	type MoneyCase,
	type NodeCase,
} from './money-workflow';

export interface Observed {
	exchanges: Exchange[];
	log: RequestLogEntry[];
	ledger: LedgerEntry[];
	result: RunResult;
	facts: PriceFacts;
	/** the ratio the key's group is charged at */
	keyRatio: number;
	/** the case's number, in every prompt's marker */
	cid: number;
	/** how many times n8n ran each node's execute (tries included) */
	tries?: Record<string, number>;
}

export interface Call {
	ex: Exchange;
	n: number;
	r: number;
	k: number;
	/** agent turns: the question and whether the turn answers a tool result; a Chat node's JSON Schema repair */
	q?: number;
	phase?: 'ask' | 'tool' | 'repair';
	place: string;
	model: string;
	viaModel: boolean;
	maySpend: boolean;
	requestId?: string;
	gross: number;
	/** the usage the client saw (none when the answer was lost) */
	usage?: Usage;
	/** the usage the gateway reported (lost or not) */
	gatewayUsage?: Usage;
	/** the client got the whole answer (with its usage, per token) */
	answered: boolean;
}

const PAID = /^\/v1\/(images\/generations\/async|videos|chat\/completions|responses)(\?|$)/;
/** The text routes: Chat Completions, and the Responses API (the Chat Model's *Use Responses API*) */
const TEXT = /^\/v1\/(chat\/completions|responses)(\?|$)/;
/** (i): how long after a refusal ended a request already on its way may still arrive */
const LEARN_MS = 250;
const MARKER = /#c(\d+) n(\d+) r(\d+) k(\d+)(?:#| q(\d+)#)/;

function contentText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content
			.map((p) =>
				p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
					? (p as { text: string }).text
					: '',
			)
			.join(' ');
	return '';
}

/** The usage a chat answer reported: one JSON body, or the usage chunk of an SSE stream. */
function reportedUsage(answer: string): Usage | undefined {
	const t = answer.trim();
	if (t.startsWith('{')) {
		try {
			return usageOfAnswer((JSON.parse(t) as { usage?: unknown }).usage);
		} catch {
			return undefined;
		}
	}
	let found: Usage | undefined;
	for (const line of t.split(/\r?\n/)) {
		if (!line.startsWith('data:')) continue;
		const data = line.slice(5).trim();
		if (data === '[DONE]') continue;
		try {
			// a Chat Completions chunk's usage, or the Responses API's `response.completed` event's
			const j = JSON.parse(data) as { usage?: unknown; response?: { usage?: unknown } };
			const u = usageOfAnswer(j.usage ?? j.response?.usage);
			if (u) found = u;
		} catch {
			// not JSON
		}
	}
	return found;
}

/** The reasonings a chat answer gave (a JSON answer's message, or a stream's deltas joined). */
function reasoningsOf(answer: string): string[] {
	const t = answer.trim();
	const field = (x: Record<string, unknown> | undefined) => x?.reasoning_content ?? x?.reasoning;
	if (t.startsWith('{')) {
		try {
			const j = JSON.parse(t) as { choices?: Array<{ message?: Record<string, unknown> }> };
			const r = field(j.choices?.[0]?.message);
			return typeof r === 'string' && r ? [r] : [];
		} catch {
			return [];
		}
	}
	let joined = '';
	for (const line of t.split(/\r?\n/)) {
		if (!line.startsWith('data:')) continue;
		try {
			const j = JSON.parse(line.slice(5).trim()) as {
				choices?: Array<{ delta?: Record<string, unknown> }>;
			};
			const r = field(j.choices?.[0]?.delta);
			if (typeof r === 'string') joined += r;
		} catch {
			// [DONE] or not JSON
		}
	}
	return joined ? [joined] : [];
}

/**
 * A text request's conversation: Chat Completions' `messages`, or the Responses API's `input` (text, or items: a
 * message, a function call (the assistant's), a function call's output (the tool's), reasoning (the assistant's)).
 */
function messagesOf(body: Record<string, unknown>): Array<{ role: string; content: unknown }> {
	if (Array.isArray(body.messages))
		return body.messages as Array<{ role: string; content: unknown }>;
	const input = body.input;
	if (typeof input === 'string') return [{ role: 'user', content: input }];
	if (!Array.isArray(input)) return [];
	return (input as Array<Record<string, unknown>>).map((x) => ({
		role:
			typeof x.role === 'string'
				? x.role
				: x.type === 'function_call_output'
					? 'tool'
					: 'assistant',
		content: x.content ?? x.output ?? x.arguments ?? '',
	}));
}

/** The paid POSTs the gateway received, each with its place, its charges and what it answered. */
export function paidCalls(c: MoneyCase, o: Observed): { calls: Call[]; problems: string[] } {
	const problems: string[] = [];
	const byRequest = new Map<string, LedgerEntry[]>();
	for (const l of o.ledger)
		if (l.requestId) byRequest.set(l.requestId, [...(byRequest.get(l.requestId) ?? []), l]);
	const claimed = new Set<string>();
	const calls: Call[] = [];
	for (const ex of o.exchanges) {
		if (ex.method !== 'POST' || !PAID.test(ex.path)) continue;
		let body: Record<string, unknown>;
		try {
			body = JSON.parse(ex.body) as Record<string, unknown>;
		} catch {
			problems.push(`[oracle] POST ${ex.path} #${ex.seq} has a body that is not JSON`);
			continue;
		}
		const isChat = TEXT.test(ex.path);
		let text = String(body.prompt ?? '');
		let phase: Call['phase'];
		/** an agent's question as the README defines it: the conversation without its system messages */
		let question = '';
		if (isChat) {
			const messages = messagesOf(body);
			// the place marker is in the user's last own message (a repair's request ends with the repair prompt)
			const users = messages.filter((m) => m.role === 'user').map((m) => contentText(m.content));
			text = [...users].reverse().find((u) => MARKER.test(u)) ?? users[users.length - 1] ?? '';
			const last = messages[messages.length - 1]?.role;
			phase = last === 'tool' ? 'tool' : 'ask';
			if (c.nodes[Number(MARKER.exec(text)?.[2])]?.kind === 'chat')
				phase = messages.some((m) => m.role === 'assistant') ? 'repair' : undefined;
			question = messages
				.filter((m) => m.role !== 'system')
				.map((m) => `${m.role}:${contentText(m.content)}`)
				.join('|');
		}
		const m = MARKER.exec(text);
		if (!m) {
			problems.push(
				`[oracle] POST ${ex.path} #${ex.seq} carries no place marker: ${text.slice(0, 120)}`,
			);
			continue;
		}
		// a request of an earlier case (it outlived its run) is not this case's
		if (Number(m[1]) !== o.cid) continue;
		const [n, r, k] = [Number(m[2]), Number(m[3]), Number(m[4])];
		const q = m[5] === undefined ? undefined : Number(m[5]);
		const viaModel = c.nodes[n]?.kind === 'agent';
		// an agent's turn is known by its place and its question (a changed user text is a new call); a repair by its own
		const place = `node ${n} run ${r} item ${k}${q === undefined ? (phase === 'repair' ? ' repair' : '') : ` question ${q} ${phase} ${JSON.stringify(question)}`}`;
		// what the client saw: a lost answer is a 500 or a dropped connection
		const status = ex.lost === '500' ? 500 : ex.lost === 'drop' ? -1 : (ex.status ?? -1);
		const maySpend = !(status >= 400 && status < 500);
		// the gateway's request ID: from the answer's headers, else (the connection dropped before any) the log line
		let requestId = ex.requestId;
		if (!requestId) {
			const line = o.log.find(
				(l) =>
					l.method === 'POST' &&
					l.path === ex.path.split('?')[0] &&
					l.status === -1 &&
					l.requestId &&
					!claimed.has(l.requestId),
			);
			requestId = line?.requestId;
		}
		if (requestId) claimed.add(requestId);
		const lines = requestId ? (byRequest.get(requestId) ?? []) : [];
		const gross = lines
			.filter((l) => l.kind === 'charge' || l.kind === 'reserve')
			.reduce((s, l) => s + l.amount, 0);
		const gatewayUsage = isChat ? reportedUsage(ex.answer) : undefined;
		const usage = ex.lost ? undefined : gatewayUsage;
		const answered =
			status >= 200 && status < 300 && ex.ended !== undefined && (!isChat || usage !== undefined);
		const model = String(body.model ?? '');
		calls.push({
			ex,
			n,
			r,
			k,
			q,
			phase,
			place,
			model,
			viaModel,
			maySpend,
			requestId,
			gross,
			usage,
			gatewayUsage,
			answered,
		});
	}
	return { calls, problems };
}

/** The ¤ cap one item's values give a node (undefined: none; 'bad': a value that breaks its rule). */
function itemCap(
	node: NodeCase,
	io: ItemOptions,
	c: MoneyCase,
	facts: PriceFacts,
): number | 'bad' | undefined {
	const caps: number[] = [];
	if (node.options.cap && io.cap !== '') {
		if (typeof io.cap !== 'number' || !(io.cap > 0)) return 'bad';
		caps.push(io.cap);
	}
	if (node.options.spend && io.spend !== '') {
		const s = io.spend;
		caps.push(
			s.startsWith('¤')
				? Number(s.slice(1))
				: displayToQuota(s.replace(/^\$/, ''), c.display, facts.quotaPerUnit),
		);
	}
	return caps.length ? Math.min(...caps) : undefined;
}

function modelCap(
	m: ChatModelCase,
	c: MoneyCase,
	facts: PriceFacts,
	io: ItemOptions | undefined,
): number | undefined {
	const caps: number[] = [];
	// a cap read per item holds for that item's turns (the package holds the strictest of the items in flight)
	if (m.capPerItem) {
		if (typeof io?.modelCap === 'number') caps.push(io.modelCap);
	} else if (m.cap !== undefined) caps.push(m.cap);
	if (m.spend !== undefined)
		caps.push(
			m.spend.startsWith('¤')
				? Number(m.spend.slice(1))
				: displayToQuota(m.spend, c.display, facts.quotaPerUnit),
		);
	return caps.length ? Math.min(...caps) : undefined;
}

const isPublished = (facts: PriceFacts, group: string) =>
	typeof facts.group_ratio[group] === 'number' && facts.group_ratio[group] > 0;

/** Whether the multiplier of a call is known to the package from the options the user gave (they are never wrong here). */
export function knownMultiplier(
	c: MoneyCase,
	call: Pick<Call, 'n' | 'k'>,
	facts: PriceFacts,
): boolean {
	const node = c.nodes[call.n];
	if (node.kind === 'agent') {
		const g = node.chatModel!.group;
		return g === 'ratio' || (g === 'name' && isPublished(facts, c.group));
	}
	const io = c.items[call.k][call.n];
	if (node.options.groupRatio) return io.ratioGiven;
	return node.options.groupName && io.nameGiven && isPublished(facts, c.group);
}

/** The Start item of every input item of a node's run, by following paired items back to Start. */
function startItems(runData: IRunData, name: string, run: number): number[] | undefined {
	const task = runData[name]?.[run];
	const src = task?.source?.[0];
	if (!src) return undefined;
	const items =
		runData[src.previousNode]?.[src.previousNodeRun ?? 0]?.data?.main?.[
			src.previousNodeOutput ?? 0
		] ?? [];
	return items.map((_, i) =>
		traceToStart(
			runData,
			src.previousNode,
			src.previousNodeRun ?? 0,
			src.previousNodeOutput ?? 0,
			i,
		),
	);
}

function traceToStart(
	runData: IRunData,
	name: string,
	run: number,
	output: number,
	index: number,
): number {
	const task: ITaskData | undefined = runData[name]?.[run];
	const item = task?.data?.main?.[output]?.[index];
	if (!item) return -1;
	if (name === START || name === FAN) return Number(item.json.k);
	const p = (Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem) as
		{ item: number; input?: number } | undefined;
	const src = task?.source?.[p?.input ?? 0];
	if (!p || !src) return -1;
	return traceToStart(
		runData,
		src.previousNode,
		src.previousNodeRun ?? 0,
		src.previousNodeOutput ?? 0,
		p.item,
	);
}

/** What a run exercised (printed as a summary, so a property that passes shows it tested something). */
export interface Coverage {
	calls: number;
	/** calls whose answer was lost after the gateway charged */
	lost: number;
	turns: number;
	capChecks: number;
	/** checks where the charges came to more than half the cap */
	capsNear: number;
	exactRecord: number;
	boundedRecord: number;
	noFigure: number;
	/** node runs n8n tried more than once (Retry On Fail) */
	reRuns: number;
	/** of those, runs that had sent paid requests (the re-run must reuse them) */
	reRunsAfterSpend: number;
	/** node runs with index > 0 */
	laterRuns: number;
	refusedBatches: number;
	/** items whose generated Quote Only read on (nothing may be sent for them) */
	quoteOnly: number;
	/** paid calls on the Responses API (a generated *Use Responses API* on the Chat Model) */
	responses: number;
}

const unset = (v: unknown) =>
	v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
/**
 * Quote Only as docs/configuration.md reads a switch: `true`/`false` in any case with spaces around and `1`/`0`
 * (numbers or text) are the switch; empty text and `null` are "not set", the option's default when it is added (on);
 * anything else is refused, and nothing is sent for the item.
 */
function quoteOnlyReads(v: unknown): 'on' | 'off' | 'refused' {
	if (unset(v) || v === true || v === 1) return 'on';
	if (v === false || v === 0) return 'off';
	if (typeof v === 'string' && /^(true|1)$/i.test(v.trim())) return 'on';
	if (typeof v === 'string' && /^(false|0)$/i.test(v.trim())) return 'off';
	return 'refused';
}

export function violations(c: MoneyCase, o: Observed, cov?: Coverage): string[] {
	const { calls, problems } = paidCalls(c, o);
	const facts = o.facts;
	const runData = o.result.run.data.resultData.runData;
	const spending = calls.filter((x) => x.maySpend);

	// the oracle agrees with the simulator on every answered call
	for (const x of spending) {
		const gatewayAnswered =
			x.ex.status !== undefined &&
			x.ex.status >= 200 &&
			x.ex.status < 300 &&
			(isPerCall(facts, x.model) || x.gatewayUsage !== undefined);
		if (!gatewayAnswered) continue;
		const price = isPerCall(facts, x.model)
			? perCallPrice(facts, x.model, o.keyRatio)
			: perTokenPrice(facts, x.model, x.gatewayUsage!, o.keyRatio);
		if (price !== x.gross)
			problems.push(
				`[oracle] ${x.place} (${x.model}, #${x.ex.seq}): the gateway charged ¤${x.gross}, the spec's rules give ¤${price}`,
			);
	}

	// (c) one POST that may have spent per place
	const perPlace = new Map<string, Call[]>();
	for (const x of spending) perPlace.set(x.place, [...(perPlace.get(x.place) ?? []), x]);
	for (const [place, xs] of perPlace) {
		if (xs.length > 1)
			problems.push(
				`[c: sent once] ${place} was sent ${xs.length} times (statuses ${xs.map((x) => x.ex.status).join(', ')}; charged ${xs.map((x) => x.gross).join(' + ')})`,
			);
	}

	// (j) a call refused with 429 and a Retry-After asking a wait longer than any window (the generated ones that
	// are text: an hour and more, as an HTTP-date in any of RFC 9110's forms or delay-seconds of any size) is not sent
	// again: after such a refusal, a place is sent at most once more per further try of its node, and once more for
	// each 400 it got after it (a refused optional field is left out and the call sent again: oracle (i))
	const farSince = new Map<string, { after: number; refused: number }>();
	for (const x of [...calls].sort((a, b) => a.ex.seq - b.ex.seq)) {
		const seen = farSince.get(x.place);
		if (seen) {
			seen.after++;
			if (x.ex.status === 400) seen.refused++;
		} else if (
			x.ex.status === 429 &&
			x.ex.retryAfter !== undefined &&
			x.ex.retryAfter.trim() !== '0'
		)
			farSince.set(x.place, { after: 0, refused: 0 });
	}
	for (const [place, { after, refused }] of farSince) {
		const tries = c.nodes[Number(/^node (\d+)/.exec(place)?.[1])]?.maxTries ?? 1;
		if (after - refused > tries - 1)
			problems.push(
				`[j: far Retry-After] ${place} was refused with 429 and a Retry-After beyond any window, then sent ${after} more time(s) (${refused} after a 400; ${tries} tr${tries === 1 ? 'y' : 'ies'})`,
			);
	}

	// (g) the one 429 rule: a call refused with 429 is sent at most MAX_SENDS times per try of its node, whatever
	// Retry-After says (0 included)
	const refusedAt = new Map<string, number>();
	for (const x of calls)
		if (x.ex.status === 429) refusedAt.set(x.place, (refusedAt.get(x.place) ?? 0) + 1);
	for (const [place, count] of refusedAt) {
		const n = Number(/^node (\d+)/.exec(place)?.[1]);
		const bound = MAX_SENDS * (c.nodes[n]?.maxTries ?? 1);
		if (count > bound)
			problems.push(
				`[g: 429 rule] ${place} was refused with 429 ${count} times: more than ${MAX_SENDS} sends a try (${bound} for its tries)`,
			);
	}

	// (f) an answer is an answer: an agent item whose every turn the gateway answered whole (2xx, usage, nothing lost)
	// does not fail — a proxy that relabels the stream's content type included; only a cap may refuse a turn
	c.nodes.forEach((node, n) => {
		if (node.kind !== 'agent') return;
		(runData[node.name] ?? []).forEach((task, r) => {
			const inputs = startItems(runData, node.name, r);
			for (const it of task.data?.main?.[0] ?? []) {
				const error = it.json.error;
				if (typeof error !== 'string' || /Max Expected Spend|refus/i.test(error)) continue;
				const i = (
					(Array.isArray(it.pairedItem) ? it.pairedItem[0] : it.pairedItem) as
						{ item: number } | undefined
				)?.item;
				const k = i === undefined ? undefined : inputs?.[i];
				const mine = calls.filter((x) => x.n === n && x.r === r && x.k === k);
				if (mine.length && mine.every((x) => x.answered && !x.ex.lost))
					problems.push(
						`[f: answered] node ${n} run ${r} item ${k}: the gateway answered every turn whole${c.relabel ? ` (labels ${JSON.stringify(c.relabel)})` : ''}, yet the item failed: ${error.slice(0, 200)}`,
					);
			}
		});
	});

	// (h) reasoning stays with its account: what a request carries back as a thinking model's reasoning is reasoning the
	// gateway gave that account (the same Authorization), never another account's
	const given = new Map<string, Set<string>>();
	for (const ex of o.exchanges) {
		if (ex.method !== 'POST' || !ex.path.startsWith('/v1/chat/completions')) continue;
		const mine = given.get(ex.auth ?? '') ?? new Set<string>();
		for (const r of reasoningsOf(ex.answer)) mine.add(r);
		given.set(ex.auth ?? '', mine);
	}
	for (const ex of o.exchanges) {
		if (ex.method !== 'POST' || !ex.path.startsWith('/v1/chat/completions')) continue;
		let messages: Array<Record<string, unknown>> = [];
		try {
			messages = ((JSON.parse(ex.body) as { messages?: unknown }).messages ??
				[]) as typeof messages;
		} catch {
			continue;
		}
		// a request of an earlier case (it outlived its run) is judged with that case, not this one
		const mark = messages
			.filter((m) => m?.role === 'user')
			.map((m) => MARKER.exec(contentText(m.content)))
			.find((x) => x);
		if (mark && Number(mark[1]) !== o.cid) continue;
		for (const m of messages) {
			const r = m?.reasoning_content ?? m?.reasoning;
			if (m?.role !== 'assistant' || typeof r !== 'string' || !r) continue;
			if (!given.get(ex.auth ?? '')?.has(r))
				problems.push(
					`[h: reasoning] POST #${ex.seq} carries back reasoning its account was never given: ${JSON.stringify(r.slice(0, 120))}`,
				);
		}
	}

	// (i) what the execution learns stays learned: once the gateway refused `temperature` with a 400 naming it (a model
	// that takes no sampling setting), no request of this execution sent after that answer carries it again. A request
	// the package had sent before it read the refusal can reach the proxy a little after it (turns in flight at once):
	// a request counts as later from LEARN_MS after the refusal ended
	const chats = o.exchanges.filter(
		(ex) =>
			ex.method === 'POST' &&
			ex.path.startsWith('/v1/chat/completions') &&
			ex.body.includes('[llm:no-temperature]') &&
			new RegExp(`#c${o.cid} `).test(ex.body),
	);
	const temperatureRefused = chats
		.filter((ex) => ex.status === 400 && /'temperature'/.test(ex.answer) && ex.ended !== undefined)
		.reduce((t, ex) => Math.min(t, ex.ended!), Infinity);
	for (const ex of chats)
		if (ex.started > temperatureRefused + LEARN_MS && /"temperature"\s*:/.test(ex.body))
			problems.push(
				`[i: learned] POST #${ex.seq} sends temperature again after the gateway refused it in this execution`,
			);

	// figures: what the package can know of a call once it was sent
	const boundOf = (x: Call) => (x.viaModel ? c.nodes[x.n].chatModel!.maxTokens : undefined);
	const figured = (x: Call) =>
		isPerCall(facts, x.model) || x.usage !== undefined || boundOf(x) !== undefined;

	// (a) caps of the action nodes, batch by batch (node, run)
	const batches = new Map<string, Call[]>();
	for (const x of calls)
		if (!x.viaModel) batches.set(`${x.n}/${x.r}`, [...(batches.get(`${x.n}/${x.r}`) ?? []), x]);
	const checked = new Set<string>();
	const checkBatch = (n: number, r: number, inputs: number[] | undefined) => {
		const key = `${n}/${r}`;
		if (checked.has(key)) return;
		checked.add(key);
		const node = c.nodes[n];
		const mine = batches.get(key) ?? [];
		const ks = inputs ?? [...new Set(mine.map((x) => x.k))];
		const caps = ks
			.filter((k) => k >= 0)
			.map((k) => ({ k, cap: itemCap(node, c.items[k][n], c, facts), bad: c.items[k][n].bad }));
		const sent = mine.filter((x) => x.maySpend);
		if (caps.some((x) => x.cap === 'bad')) {
			if (mine.length)
				problems.push(
					`[a: cap] node ${n} run ${r}: an item's Max Expected Spend breaks its rule, yet ${mine.length} request(s) were sent`,
				);
			return;
		}
		const valid = caps
			.filter((x) => !x.bad && typeof x.cap === 'number')
			.map((x) => x.cap as number);
		if (!valid.length || !sent.length) return;
		const cap = Math.min(...valid);
		if (node.kind === 'chat' && !node.options.allowUnpriced) {
			problems.push(
				`[a: cap] node ${n} run ${r}: per-token Chat under Max Expected Spend ¤${cap} with Allow Unpriced Models off sent ${sent.length} request(s)`,
			);
			return;
		}
		const last = Math.max(...sent.map((x) => x.ex.seq));
		const counted = spending.filter(
			(x) =>
				x.ex.seq <= last &&
				(`${x.n}/${x.r}` === key && !x.viaModel
					? !(node.kind === 'chat' && node.options.allowUnpriced)
					: figured(x)),
		);
		const total = counted.reduce((s, x) => s + x.gross, 0);
		if (cov) {
			cov.capChecks++;
			if (total * 2 > cap) cov.capsNear++;
		}
		if (total > cap)
			problems.push(
				`[a: cap] node ${n} (${node.kind}) run ${r}: Max Expected Spend ¤${cap}, yet the gateway charged ¤${total} for the ${counted.length} call(s) sent up to its last request (${counted.map((x) => `${x.place}: ¤${x.gross}`).join('; ')})`,
			);
	};
	c.nodes.forEach((node, n) => {
		if (node.kind === 'agent') return;
		(runData[node.name] ?? []).forEach((_, r) =>
			checkBatch(n, r, startItems(runData, node.name, r)),
		);
	});
	for (const key of batches.keys()) {
		const [n, r] = key.split('/').map(Number);
		checkBatch(n, r, undefined);
	}

	// (a) caps of the Chat Model, turn by turn
	for (const x of spending.filter((s) => s.viaModel)) {
		const m = c.nodes[x.n].chatModel!;
		const cap = modelCap(m, c, facts, c.items[x.k]?.[m.owner ?? x.n]);
		if (cap === undefined) continue;
		const before = spending
			.filter((y) => y.ex.seq < x.ex.seq && figured(y))
			.reduce((s, y) => s + y.gross, 0);
		if (cov) {
			cov.capChecks++;
			if ((before + x.gross) * 2 > cap) cov.capsNear++;
		}
		if (m.maxTokens !== undefined) {
			if (x.usage && x.usage.completion > m.maxTokens)
				problems.push(
					`[oracle] ${x.place}: the gateway reported ${x.usage.completion} completion tokens, over max_tokens ${m.maxTokens} (the bound assumes a gateway that keeps to it)`,
				);
			if (before + x.gross > cap)
				problems.push(
					`[a: cap] ${x.place}: the Chat Model's Max Expected Spend ¤${cap} with Maximum Number of Tokens ${m.maxTokens}, yet earlier calls (¤${before}) and this turn (¤${x.gross}) were charged ¤${before + x.gross}`,
				);
		} else if (before >= cap) {
			problems.push(
				`[a: cap] ${x.place}: the Chat Model's Max Expected Spend ¤${cap} without a token bound: the turn was sent after ¤${before} had been charged (a turn may go only while the spend is under the cap)`,
			);
		}
	}

	// (b) the record
	const data = (o.result.run.data.resultData.metadata ?? {}) as Record<string, string>;
	const recorded = data.gengateway_spent === undefined ? undefined : Number(data.gengateway_spent);
	const text = data.gengateway_spent_text ?? '';
	const charged = spending.reduce((s, x) => s + x.gross, 0);
	const withFigure = spending.filter(figured).reduce((s, x) => s + x.gross, 0);
	const noFigure = spending.filter((x) => !figured(x)).length;
	const stopped = o.result.run.data.resultData.error !== undefined;
	if (spending.length && recorded === undefined && !stopped)
		problems.push(
			`[b: record] ${spending.length} paid call(s) reached the gateway (¤${charged}), but gengateway_spent is not set`,
		);
	if (recorded !== undefined) {
		if (recorded < withFigure)
			problems.push(
				`[b: record] gengateway_spent ¤${recorded} is below what the gateway charged for the calls with a figure (¤${withFigure} of ¤${charged})`,
			);
		const exact = spending.every((x) => x.answered && knownMultiplier(c, x, facts));
		if (cov) {
			if (exact) cov.exactRecord++;
			else cov.boundedRecord++;
			if (noFigure) cov.noFigure++;
		}
		if (exact && recorded !== charged)
			problems.push(
				`[b: record] every multiplier was known and every call answered, yet gengateway_spent ¤${recorded} ≠ charged ¤${charged}`,
			);
		const upper = spending.reduce((s, x) => s + upperOf(c, x, facts, o.keyRatio), 0);
		if (recorded > upper)
			problems.push(
				`[b: record] gengateway_spent ¤${recorded} is above the highest the calls can cost (¤${upper}: each at the known ratio, else the highest published)`,
			);
		if (noFigure && !text.includes(`${noFigure} call(s) with no price not included`))
			problems.push(
				`[b: record] ${noFigure} call(s) have no figure, but gengateway_spent_text does not say so: ${JSON.stringify(text)}`,
			);
		if (!noFigure && /with no price/.test(text))
			problems.push(
				`[b: record] gengateway_spent_text names calls with no price, but every call has a figure: ${JSON.stringify(text)}`,
			);
	}

	if (cov) {
		cov.calls += spending.length;
		cov.lost += spending.filter((x) => x.ex.lost).length;
		cov.turns += spending.filter((x) => x.viaModel).length;
		cov.responses += spending.filter((x) => x.ex.path.startsWith('/v1/responses')).length;
		for (const node of c.nodes) {
			const runs = runData[node.name]?.length ?? 0;
			cov.laterRuns += Math.max(0, runs - 1);
			const extra = Math.max(0, (o.tries?.[node.name] ?? runs) - runs);
			cov.reRuns += extra;
			const n = c.nodes.indexOf(node);
			if (extra && spending.some((x) => x.n === n)) cov.reRunsAfterSpend++;
			cov.refusedBatches += (runData[node.name] ?? []).filter((t) =>
				/refused (the batch|this model turn)/.test(
					JSON.stringify(t.data ?? t.error?.message ?? ''),
				),
			).length;
		}
	}

	// (k) Quote Only drawn from the description (README, "A quote before paying": it sends nothing): an item whose
	// Quote Only reads on, or is no switch (refused), has no paid request at its place
	c.nodes.forEach((node, n) => {
		const q = keptOf(node)?.['options.quoteOnly'];
		if (!q) return;
		(runData[node.name] ?? []).forEach((_, r) => {
			for (const k of startItems(runData, node.name, r) ?? []) {
				if (k < 0) continue;
				const v = q.how === 'per item' ? q.values[k] : q.value;
				const reads = quoteOnlyReads(v);
				if (reads === 'off') continue;
				if (cov && reads === 'on') cov.quoteOnly++;
				const sent = spending.filter((x) => x.n === n && x.r === r && x.k === k && !x.viaModel);
				if (sent.length)
					problems.push(
						`[k: quote only] node ${n} (${node.kind}) run ${r} item ${k}: Quote Only ${JSON.stringify(v)} (${q.how}) reads ${reads === 'on' ? 'on' : 'as no switch (refused)'}, yet ${sent.length} paid request(s) were sent (charged ¤${sent.reduce((t, x) => t + x.gross, 0)})`,
					);
			}
		});
	});

	// (d) one output item per input item; a node that sent a request never fails the run
	c.nodes.forEach((node, n) => {
		(runData[node.name] ?? []).forEach((task, r) => {
			const inputs = startItems(runData, node.name, r);
			if (task.error || !task.data?.main) {
				const sent = spending.filter((x) => x.n === n && x.r === r && !x.viaModel);
				if (node.kind !== 'agent' && sent.length)
					problems.push(
						`[d: items] node ${n} (${node.kind}) run ${r} failed the run (${task.error?.message ?? 'no data'}) after ${sent.length} paid request(s)`,
					);
				return;
			}
			const out = task.data.main.flatMap((o) => o ?? []);
			const paired = out
				.map(
					(it) =>
						(Array.isArray(it.pairedItem) ? it.pairedItem[0] : it.pairedItem) as
							{ item: number } | undefined,
				)
				.map((p) => p?.item ?? -1);
			if (
				inputs &&
				(out.length !== inputs.length || [...paired].sort((a, b) => a - b).some((v, i) => v !== i))
			) {
				problems.push(
					`[d: items] node ${n} (${node.kind}) run ${r}: ${inputs.length} input item(s), ${out.length} output item(s) paired to ${JSON.stringify(paired)}`,
				);
			}
			// (e) every item got its own answers (a re-run that reuses what a place got must give it to that place)
			if (!inputs) return;
			for (const it of task.data.main[0] ?? []) {
				const i =
					(
						(Array.isArray(it.pairedItem) ? it.pairedItem[0] : it.pairedItem) as
							{ item: number } | undefined
					)?.item ?? -1;
				const k = inputs[i];
				if (k === undefined || k < 0) continue;
				const mark = `#c${o.cid} n${n} r${r} k${k}`;
				if (node.kind === 'agent' && Array.isArray(it.json.answers)) {
					const qs = c.items[k][n].questions;
					const answers = it.json.answers as string[];
					const wrong = qs
						.map((q, j) => (q.arithmetic ? `The result is ${q.a + q.b}.` : `${mark} q${j}#`))
						.filter((want, j) => !String(answers[j] ?? '').includes(want));
					if (answers.length !== qs.length || wrong.length)
						problems.push(
							`[e: own answers] node ${n} run ${r} item ${k}: asked ${JSON.stringify(qs.map((q) => (q.arithmetic ? `${q.a} + ${q.b}` : 'foxes')))}, got ${JSON.stringify(answers)}`,
						);
				} else if (
					(node.kind === 'image' || node.kind === 'gamma') &&
					typeof it.json.prompt === 'string' &&
					!it.json.prompt.startsWith(`${mark}#`)
				) {
					problems.push(
						`[e: own answers] node ${n} run ${r} item ${k}: its output carries the prompt ${JSON.stringify(it.json.prompt.slice(0, 60))}`,
					);
				}
			}
		});
	});
	return problems;
}

/** The most the package may record for a call: its price at the known ratio, else at the highest published one (a lost turn: its bound). */
function upperOf(c: MoneyCase, x: Call, facts: PriceFacts, keyRatio: number): number {
	const ratio = knownMultiplier(c, x, facts) ? keyRatio : highestPublished(facts, x.model);
	if (isPerCall(facts, x.model)) return perCallPrice(facts, x.model, ratio);
	if (x.usage) return perTokenPrice(facts, x.model, x.usage, ratio);
	const maxTokens = x.viaModel ? c.nodes[x.n].chatModel!.maxTokens : undefined;
	if (maxTokens === undefined) return 0;
	// the documented bound: the request's bytes as prompt tokens, Maximum Number of Tokens as completion (10% slack for how the body is written)
	const bytes = Math.ceil(Buffer.byteLength(x.ex.body, 'utf8') * 1.1) + 64;
	return perTokenPrice(
		facts,
		x.model,
		{
			prompt: bytes,
			completion: maxTokens,
			cached: 0,
			cacheWrite: 0,
			image: 0,
			audio: 0,
			audioOut: 0,
		},
		ratio,
	);
}
