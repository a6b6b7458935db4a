/**
 * Oracles over tasks named by several items (runs.ts SharedTasks), written from the README's output contract and the
 * spec, reading what the gateway said of each task from the generated script (its fate):
 * (8) the words are true: an item whose task the gateway failed says `failed_at: "task"`; one still running is not a
 *     failure of the task or of a download (Task Wait: Still Running; Download Result: `failed_at: "running"`); one
 *     the gateway does not know (404) says `failed_at: "task"` and that it was not found. Never `"download"` ("the task
 *     succeeded") for any of them.
 * (9) one wait per task: a task several items name (the same ID on the same origin, in any shape) is queried no more
 *     than one wait for it needs, and each of its result files fetched once, per try of the node.
 */
import type { LoggedRequest } from './hostile-gateway';
import { inputTaskId, type Fate, type RunCase } from './runs';

/** A task ID as the docs define one (docs/configuration.md): only such an ID is asked of the gateway. */
const TASK_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** The fate of the task item `i` names, when the script gave it one and the ID is one the gateway is asked about. */
function fateOf(c: RunCase, i: number): Fate | null {
	const s = c.shared;
	if (!s) return null;
	const id = inputTaskId(c, i);
	return id && TASK_ID.test(id) ? s.fate[s.owner[i]] : null;
}

/** (8) Task Wait's and Download Result's words match what the gateway said of the task. */
export function taskWordsTrue(
	c: RunCase,
	outs: Array<{ index: number | undefined; item: { json: Record<string, unknown> } }>,
	threw: boolean,
): string[] {
	const s = c.shared;
	if (!s || threw) return [];
	const problems: string[] = [];
	for (const o of outs) {
		if (o.index === undefined) continue;
		const fate = fateOf(c, o.index);
		const j = o.item.json;
		// n8n's error items (the error output) carry n8n's own fields, not ours
		if (!fate || fate === 'completed' || typeof j.status !== 'string') continue;
		const words = `${String(j.error_message ?? '')} ${String(j.error ?? '')}`;
		const show = JSON.stringify(j).slice(0, 300);
		const wrong = (why: string) =>
			problems.push(
				`[task-words] item ${o.index} (${s.shape[o.index!]} shape), whose task the gateway ${fate === 'failed' ? 'failed' : fate === 'running' ? 'says is still running' : 'does not know (404)'}: ${why}: ${show}`,
			);
		if (fate === 'failed' && !(j.status === 'failed' && j.failed_at === 'task'))
			wrong('not failed_at "task"');
		if (fate === 'unknown') {
			if (!(j.status === 'failed' && j.failed_at === 'task')) wrong('not failed_at "task"');
			else if (!/not found/i.test(words)) wrong('the error does not say the task was not found');
		}
		if (
			fate === 'running' &&
			!(j.status === 'running' || (j.status === 'failed' && j.failed_at === 'running'))
		)
			wrong('not "running" (Task Wait) nor failed_at "running" (Download Result)');
	}
	return problems;
}

/**
 * One wait for a task the gateway answers final at once (completed, failed) is one query: the answer is final and
 * whole at the first query (the script's clean answer), so nothing calls for a second. A task it does not know (404)
 * may be asked once on each kind's route (the image task route, the video route): a bare ID does not say its kind, and
 * the spec's 404 on one route does not say the other has no such task. The node may run up to Max Tries times (Retry
 * On Fail runs every item again), so per try, however many items name the task; each result file at most once per try.
 */
const queriesPerWait = (f: Fate) => (f === 'unknown' ? 2 : 1);

/** (9) one wait per task across item shapes. */
export function oneWaitPerTask(c: RunCase, log: LoggedRequest[]): string[] {
	const s = c.shared;
	if (!s) return [];
	const problems: string[] = [];
	const naming = new Map<number, number[]>();
	for (let i = 0; i < c.items; i++) {
		const f = fateOf(c, i);
		if (!f || f === 'running') continue;
		naming.set(s.owner[i], [...(naming.get(s.owner[i]) ?? []), i]);
	}
	for (const [task, items] of naming) {
		if (items.length < 2) continue;
		const who = `the task of item ${task} (${s.fate[task]}), named by items ${items.map((i) => `${i} (${s.shape[i]})`).join(', ')}`;
		const mine = log.filter((l) => l.item === task && l.method === 'GET');
		const queries = mine.filter((l) => l.cls === 'query');
		const perWait = queriesPerWait(s.fate[task]!);
		if (queries.length > c.maxTries * perWait)
			problems.push(
				`[one-wait-per-task] ${who}: ${queries.length} queries, one wait needs ${perWait} per try (${c.maxTries} tries at most): ${queries.map((l) => l.path).join(' ')}`,
			);
		const files = new Map<string, number>();
		for (const l of mine)
			if (l.cls === 'result' || l.cls === 'content')
				files.set(l.path, (files.get(l.path) ?? 0) + 1);
		for (const [path, n] of files)
			if (n > c.maxTries)
				problems.push(
					`[one-download-per-result] ${who}: ${path} fetched ${n} times (${c.maxTries} tries at most)`,
				);
	}
	return problems;
}
