/**
 * What the demo judges of its `server` workflows (scripts/demo/server.ts) beyond their steps, against the embedded
 * simulator's request log and ledger: the quote sent nothing and the approved run paid exactly the quote, one paid
 * POST per quoted item; the spend report's total per workflow is what the gateway charged during that workflow's
 * executions.
 */
import type { LedgerEntry, RequestLogEntry } from '../../simulator/state';
import { nodeOutput, type ExecuteResult } from '../lib/n8n/cli';
import { withNote, type SummaryEntry } from './summary';

type Window = [number, number];
const within = (t: number, w: Window) => t >= w[0] && t <= w[1];
/** what the gateway charged during the windows, net (charges, reservations, settlements, refunds) */
const chargedIn = (ledger: LedgerEntry[], windows: Window[]) =>
	ledger.filter((l) => windows.some((w) => within(l.time, w))).reduce((n, l) => n + l.amount, 0);

function entry(workflow: string, step: string, problems: string[], note: string): SummaryEntry {
	return withNote(
		{
			workflow,
			step,
			ok: !problems.length,
			...(problems.length ? { error: problems.join('; ') } : {}),
			files: [],
		},
		note,
	);
}

/** quote-approve: nothing sent while quoting; after the approval one paid POST per quoted item, charged the quote. */
export function judgeApproval(
	res: ExecuteResult,
	quoted: Window,
	approved: Window,
	log: RequestLogEntry[],
	ledger: LedgerEntry[],
): SummaryEntry {
	const problems: string[] = [];
	const quotes = nodeOutput(res, 'Quote').map((i) => i.json);
	const total = (quotes[0]?.quote_total as { quota?: number; kind?: string } | undefined) ?? {};
	const postsWhileQuoting = log.filter((l) => within(l.time, quoted) && l.method === 'POST');
	if (postsWhileQuoting.length)
		problems.push(
			`the quoted run sent ${postsWhileQuoting.length} POST(s): ${postsWhileQuoting.map((l) => l.path).join(', ')}`,
		);
	const chargedWhileQuoting = chargedIn(ledger, [quoted]);
	if (chargedWhileQuoting) problems.push(`the quoted run was charged ¤${chargedWhileQuoting}`);
	const paid = log.filter((l) => within(l.time, approved) && l.method === 'POST');
	const wanted = quotes.map(() => '/v1/images/generations/async 2xx');
	const got = paid.map((l) => `${l.path} ${l.status < 300 ? '2xx' : l.status}`);
	if (JSON.stringify(got) !== JSON.stringify(wanted))
		problems.push(
			`after the approval expected one paid POST per quoted item (${quotes.length}), got ${got.join(', ') || 'none'}`,
		);
	const charged = chargedIn(ledger, [approved]);
	if (typeof total.quota !== 'number' || total.kind !== 'exact')
		problems.push(`the quote's total is not an exact figure: ${JSON.stringify(total)}`);
	else if (charged !== total.quota)
		problems.push(
			`the gateway charged ¤${charged} for the approved run, the quote was ¤${total.quota}`,
		);
	return entry(
		'quote-approve',
		'Paid as quoted',
		problems,
		`quote ¤${total.quota ?? '?'}: nothing sent; then ${paid.length} POST(s), charged ¤${charged}`,
	);
}

/** spend-report: each workflow's row holds what the gateway charged during its executions (those run alone). */
export function judgeSpendReport(
	res: ExecuteResult,
	windows: Map<string, { folder: string; windows: Window[] }>,
	ledger: LedgerEntry[],
): SummaryEntry {
	const problems: string[] = [];
	const rows = nodeOutput(res, 'Spend per workflow').map(
		(i) => i.json as { workflow_id?: string; workflow?: string; spent?: number },
	);
	const seen: string[] = [];
	for (const [id, w] of windows) {
		const charged = chargedIn(ledger, w.windows);
		const row = rows.find((r) => r.workflow_id === id);
		if (!charged && !row) continue;
		if (row?.spent !== charged)
			problems.push(
				`${w.folder}: the report says ¤${row?.spent ?? '(no row)'}, the gateway charged ¤${charged} during its execution(s)`,
			);
		else seen.push(`${w.folder} ¤${charged}`);
	}
	if (!seen.length && !problems.length)
		problems.push('no workflow run alone spent anything to compare');
	return entry(
		'spend-report',
		'Spend = ledger',
		problems,
		`${rows.length} workflow(s) in the report; equal to the gateway's ledger: ${seen.join(', ')}`,
	);
}
