/**
 * The words of the output items: the package's API. `status` always holds one of ours; the gateway's own words for
 * a task are in one object, `gateway: { status, state? }` (GATEWAY_OBJECT_SINCE; before: `gateway_status` and, for an
 * image task's second word, `gateway_state`, side by side with `status`).
 */
export const ITEM_STATUSES = {
	submitted: 'the gateway accepted the task; wait for it with Task Wait (task_id)',
	completed: 'the result is here: files checked whole, or the text answer',
	failed: 'the item failed; failed_at says where, submitted whether it reached the gateway',
	running:
		"the wait (Task Wait, or Image Submit's Wait for Result) ended before the task did (handed_back says why); wait again with its task_id",
	uncertain:
		'the request may have been accepted and billed, and was not resent; check the usage records',
	quoted: 'Quote Only: the item was checked and priced (cost), nothing was sent',
} as const;

export type ItemStatus = keyof typeof ITEM_STATUSES;

export const FAILED_AT = {
	validation: "the item's parameters, expressions, binaries or rules: nothing was sent",
	budget: 'Max Expected Spend refused the batch before its first paid request: nothing was sent',
	submit:
		'the gateway refused the request (4xx, 429 until the submit window closed) or it never left: nothing was created',
	task: 'the task failed at the gateway, or the gateway does not know it (not found: a wrong ID, another key or origin, or expired); the error says which',
	running:
		'the task had not finished when the wait ended (Download Result): nothing to download yet; wait for it with Task Wait',
	download: 'the task succeeded but its result could not be downloaded or is not a usable file',
	answer:
		'the gateway answered 2xx, but the answer is unusable (no image, a stream cut or ended by an error)',
} as const;

export type FailedAt = keyof typeof FAILED_AT;

/** The one note of an item whose request may have been accepted (and billed) without the package knowing. */
export const UNCERTAIN_NOTE =
	'The gateway may have accepted this paid request and billed it. It was not resent: check the usage records (or the task) before sending it again.';

/**
 * The fields a state owns: the words that say where an item stands. An item in a state carries only its own state's
 * words (with their new values); every other state's words are dropped when an item enters a state — a loop-back
 * item (Task Wait's Keep Input Fields, an item fed back into a node) never keeps a word its new state contradicts.
 * Fields not listed here (task_id, kind, model, prompt, cost, the user's own fields …) are facts, kept in every state.
 * `gateway_status` is the gateway's word at the time of the item's state: a state that knows none sets it to null.
 */
export const STATE_FIELDS: Readonly<Record<ItemStatus, readonly string[]>> = {
	submitted: [
		'gateway_status',
		'gateway_state',
		'submission_uncertain',
		'task',
		'billing_status',
		'http_status',
	],
	completed: [
		'gateway_status',
		'files',
		'billing_status',
		'progress',
		'usage',
		'fee',
		'warning',
		'images_expected',
		'images_received',
	],
	failed: [
		'gateway_status',
		'failed_at',
		'error',
		'error_message',
		'error_description',
		'http_code',
		'http_status',
		'submitted',
		'download_later',
		'result_urls',
		'stream_error',
		'partial_text',
		'partial_text_cut',
		'billing_status',
		'note',
	],
	running: ['gateway_status', 'progress', 'handed_back', 'deadline_at', 'last_error', 'note'],
	uncertain: [
		'gateway_status',
		'submission_uncertain',
		'reason',
		'note',
		'billing_status',
		'http_status',
		'task',
	],
	quoted: ['quote_total'],
};

/**
 * Words no state owns any more, dropped from every item of ours (and from input items carried by Keep Input Fields):
 * `state`, the submitted image task's second word under its name before 0.2.0 (now `gateway_state`).
 */
export const RETIRED_WORDS: readonly string[] = ['state'];

/**
 * The node versions from which an item shows the gateway's own words in one object: `gateway: { status, state? }`
 * (`status`: the gateway's word for the task or answer, null when the item's state knows none; `state`: an image
 * task's second word, only when the gateway sent one). Earlier versions keep `gateway_status` and `gateway_state`
 * beside `status`, exactly as before. The nodes build their items with the flat words (STATE_FIELDS); the one exit
 * shows them in the node version's shape (shapes.ts `shownForVersion`). Each node's `defaultVersion` is its entry.
 */
export const GATEWAY_OBJECT_SINCE = {
	genGatewayImageSubmit: 1.1,
	genGatewayTaskWait: 1.1,
	genGatewayDownloadResult: 1.1,
	genGatewayVideoCreate: 1.2,
	genGatewayChat: 1.2,
	genGatewayResponses: 1.1,
} as const;

/** The object that holds the gateway's words from GATEWAY_OBJECT_SINCE on, and the flat words it replaces. */
export const GATEWAY_OBJECT = 'gateway';
export const GATEWAY_FLAT_WORDS = { gateway_status: 'status', gateway_state: 'state' } as const;

/**
 * Every state word of the contract: the fields an item's state owns, `status` itself, the retired words, and the
 * gateway object (an input item's, carried by Keep Input Fields, never outlives its state).
 */
export const STATE_WORDS: ReadonlySet<string> = new Set([
	'status',
	GATEWAY_OBJECT,
	...Object.values(STATE_FIELDS).flat(),
	...RETIRED_WORDS,
]);
