/**
 * The output contract as the docs state it, for the properties' oracle: which field says which state, so that an item
 * carrying a field of another state contradicts itself. Written from the README (*Output items*, *Your first image*,
 * *Guarantees*), the CHANGELOG and docs/ — deliberately not read from nodes/shared/items/vocabulary.ts (STATE_FIELDS):
 * loop-back.property.test.ts only checks the two agree.
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { ITEM_STATUSES } from '../../nodes/shared/items/vocabulary';

export type State = keyof typeof ITEM_STATUSES;

/**
 * The contract, from the docs: which field says which state. A field listed here on an item of another state
 * contradicts it.
 * - README *Output items*: "A failed item says where it failed in `failed_at`"; "Failed items also carry `submitted`";
 *   *Your first image*: "Failed carries the gateway's message" (`error`, `error_message`, `error_description`,
 *   `http_code`); "uncertain ones `submission_uncertain: true`, `reason` and `note`".
 * - CHANGELOG 0.2.0: "Still Running items say why they were handed back (`handed_back`: `max_wait` with
 *   `deadline_at`, or `deadline`)"; "a failed wait keeps the wait's fields (… `download_later`, `result_urls`, …)";
 *   "Failed items of Chat and Responses keep at most 1 MiB of `partial_text`, with `partial_text_cut`"; "Image items
 *   with fewer images than `n`: `images_expected`, `images_received`, `warning`" (a *Completed* item, docs/behaviour.md);
 *   "The gateway's second word `state` … is now `gateway_state`" (a submitted item's), "`state` is removed in 0.2.0"
 *   (no item carries it); Task Wait's delta-video `fee` (on the video it settles).
 * - docs/behaviour.md: "then *Still Running* with `last_error`"; docs/configuration.md: a download that keeps failing
 *   "ends the item as Failed with `download_later: true`"; README *Guarantees*: "Completed means the file decodes …
 *   anything else is *Failed* and nothing is stored" (`files`, and binary data, on Completed items only).
 */
export const CONTRACT: Record<string, State[]> = {
	failed_at: ['failed'],
	submitted: ['failed'],
	error: ['failed'],
	error_message: ['failed'],
	error_description: ['failed'],
	http_code: ['failed'],
	download_later: ['failed'],
	result_urls: ['failed'],
	partial_text: ['failed'],
	partial_text_cut: ['failed'],
	reason: ['uncertain'],
	handed_back: ['running'],
	deadline_at: ['running'],
	last_error: ['running'],
	files: ['completed'],
	images_expected: ['completed'],
	images_received: ['completed'],
	warning: ['completed'],
	fee: ['completed'],
	gateway_state: ['submitted'],
	// CHANGELOG 0.2.0: "`state` is removed in 0.2.0 … An input item still carrying `state` does not pass it on": no state owns it
	state: [],
};

/** Words whose value says the state: `submission_uncertain: true` (uncertain), the notes of Still Running and of uncertain items. */
function valueSays(k: string, v: unknown): State[] | undefined {
	if (k === 'submission_uncertain' && v === true) return ['uncertain'];
	// issue 44 (README *Output items*): `gateway.state` is an image task's second word, there only when the gateway sent one
	if (k === 'gateway' && v && typeof v === 'object' && 'state' in v) return ['submitted'];
	// README *Your first image* and the CHANGELOG: Still Running's note says to wait again
	if (k === 'note' && typeof v === 'string' && /^Still running/i.test(v)) return ['running'];
	// the uncertain note (README: uncertain items carry `note`); a failed task the gateway itself marked uncertain keeps it
	if (k === 'note' && typeof v === 'string' && /may have accepted this paid request/i.test(v))
		return ['uncertain', 'failed'];
	return undefined;
}

/** What an item says that its `status` contradicts (empty: nothing). */
export function contradictions(item: INodeExecutionData): string[] {
	const j = item.json;
	const status = j.status as State;
	if (typeof j.status !== 'string' || !(j.status in ITEM_STATUSES)) return [];
	const out: string[] = [];
	for (const [k, v] of Object.entries(j)) {
		if (v === undefined) continue;
		const says = valueSays(k, v) ?? CONTRACT[k];
		if (says && !says.includes(status))
			out.push(`\`${k}: ${JSON.stringify(v)?.slice(0, 80)}\` says ${says.join(' or ')}`);
	}
	// CHANGELOG: `handed_back`: `max_wait` with `deadline_at`, or `deadline` (alone)
	if (j.handed_back === 'deadline' && j.deadline_at !== undefined)
		out.push(`\`handed_back: "deadline"\` beside \`deadline_at\` (which goes with max_wait)`);
	if (status === 'failed' && j.failed_at === undefined) out.push('failed without `failed_at`');
	if (status !== 'completed' && item.binary && Object.keys(item.binary).length)
		out.push(
			`binary data (${Object.keys(item.binary).join(', ')}) on a ${status} item: nothing is stored unless Completed`,
		);
	return out;
}
