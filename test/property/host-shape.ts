/**
 * How n8n hosts the nodes, generated in one place (issue 43, bullet 2): the properties that run nodes draw their host
 * from here, so a host shape added here reaches every one of them at once.
 *
 * - a node's settings as n8n's editor writes them: On Error (`onError`: stop, continue, continue on the error output),
 *   Retry On Fail's tries (`tries`, 1: off) and, drawn last in every case (`laterHost`), its wait between tries;
 *   applied to a workflow node by `hostSettings` (the paid-nodes and wait-download properties' node, the
 *   described-nodes property's node, every node of a money workflow).
 * - `executionStreams`: n8n streams the execution (a chat or webhook trigger): the chunks a node sends reach it.
 * - `runCount`: how many times n8n runs a node in one execution (a loop, a node fed again: run index > 0).
 * - `kindsOf`: several nodes, several of one kind among them, in one workflow.
 * - for the Chat Model, the root node that holds it as n8n 2.41.1's roots call it (`modelPerItem`): the AI Agent (its
 *   model asked once per run) or the Basic LLM Chain and the other chains (once per item, always with item index 0),
 *   at Batch Size 1 or 2, 3, 5 (`batchSize`; the chains' default is 5), the Chat Model streaming or not
 *   (`modelStreams`).
 * - `shareModel`, `twoAccounts`: two roots sharing one Chat Model; Chat Models on two credentials (two accounts).
 * - `savedAtVersion1`: a Chat node saved at version 1 (its Response Format as that version's four options).
 *
 * A new host shape: add its arbitrary here and draw it where each property draws its case; a new node setting goes
 * into `laterHost` and `hostSettings`, and every property gets it at once, drawn last (written seeds keep their cases). docs/development.md, "How a new host shape joins".
 */
import fc from 'fast-check';
import type { TestNode } from '../harness/workflow';

export type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

const ON_ERROR: readonly OnError[] = [
	'stopWorkflow',
	'continueRegularOutput',
	'continueErrorOutput',
];

export const onError: fc.Arbitrary<OnError> = fc.constantFrom(...ON_ERROR);

/** Retry On Fail's tries: 1 (off) to `max` (n8n's editor allows 2 to 5). */
export const tries = (max = 5): fc.Arbitrary<number> => fc.integer({ min: 1, max });

/**
 * The node settings added after seeds were written down (Retry On Fail's Wait Between Tries, ms: short, n8n's default
 * is 1000 ms; a wait changes only when the next try goes). Every property draws them last, after the rest of its case,
 * so a seed written in the docs keeps every value it had; a new node setting goes here (and into `hostSettings`).
 */
export interface LaterHost {
	waitMs: number;
}

export const laterHost: fc.Arbitrary<LaterHost> = fc.record({
	waitMs: fc.constantFrom(0, 1, 25),
});

/** A node's settings: On Error, Retry On Fail's tries, and the later ones. */
export interface NodeHost extends LaterHost {
	onError: OnError;
	/** 1: Retry On Fail off; 2 and more: on, with that many tries */
	maxTries: number;
}

/** The settings as the workflow stores them on the node. */
export function hostSettings(
	h: Pick<NodeHost, 'onError'> & Partial<NodeHost>,
): Pick<TestNode, 'onError' | 'retryOnFail' | 'maxTries' | 'waitBetweenTries'> {
	return {
		onError: h.onError,
		...(h.maxTries && h.maxTries > 1
			? { retryOnFail: true, maxTries: h.maxTries, waitBetweenTries: h.waitMs ?? 0 }
			: {}),
	};
}

/** A short account of the settings for a failure message. */
export const describeHost = (h: Pick<NodeHost, 'onError'> & Partial<NodeHost>) =>
	`${h.onError}, ${h.maxTries && h.maxTries > 1 ? `Retry On Fail ×${h.maxTries}${h.waitMs ? ` (wait ${h.waitMs} ms)` : ''}` : 'no retry'}`;

/** n8n streams the execution (a chat or webhook trigger), half the runs. */
export const executionStreams: fc.Arbitrary<boolean> = fc.boolean();

/** How many times n8n runs a node in one execution: once, or again in a loop (run index 1, 2). */
export const runCount: fc.Arbitrary<number> = fc.oneof(
	{ weight: 3, arbitrary: fc.constant(1) },
	{ weight: 2, arbitrary: fc.integer({ min: 2, max: 3 }) },
);

/** The kinds of the nodes of one workflow, 1 to `max` of them, a kind as often as drawn (several of one kind). */
export const kindsOf = <K>(kinds: readonly K[], max: number): fc.Arbitrary<K[]> =>
	fc.array(fc.constantFrom(...kinds), { minLength: 1, maxLength: max });

/**
 * How the root that holds the Chat Model asks for its model: once per run (n8n's AI Agent: false), or once per item,
 * always with item index 0 (true: n8n's Basic LLM Chain, Summarization and Q&A chains).
 */
export const modelPerItem: fc.Arbitrary<boolean> = fc.boolean();

/** Items the root runs at once: its Batch Size, 1 or 2, 3, 5 (the chains' default). */
export const batchSize: fc.Arbitrary<number> = fc.oneof(
	{ weight: 3, arbitrary: fc.constant(1) },
	{ weight: 1, arbitrary: fc.constantFrom(2, 3, 5) },
);

/** The Chat Model's Streaming option. */
export const modelStreams: fc.Arbitrary<boolean> = fc.boolean();

/** Two roots sharing one Chat Model: every root after the first on the first one's Chat Model. */
export const shareModel: fc.Arbitrary<boolean> = fc.boolean();

/** Two credentials: every second root's Chat Model on another key (another account) of the same group. */
export const twoAccounts: fc.Arbitrary<boolean> = fc.boolean();

/**
 * A Chat node saved at version 1 (before 1.1 made Response Format one option): the workflow keeps the version it was
 * saved with, and n8n runs the node at it. Drawn after everything else, as the later settings are.
 */
export const savedAtVersion1: fc.Arbitrary<boolean> = fc.boolean();
