/**
 * Focused property: the exit alone (nodes/shared/exit), with nothing redacted before it. A test node hands the exit
 * texts that hold a generated form of a generated key (redaction-forms.ts: any key shape; the key or its Base64 at
 * any alignment under up to 3 layers of percent, HTML references, JSON escapes, NULs; inside plain, JSON, HTML or URL
 * text) — as a hint, as chat text cut into chunks at generated offsets (and, when short, in two at every offset), as the file name of binary data it stores
 * through n8n and of binary metadata on an item, as item JSON, and as a thrown error (a gateway error whose message
 * and code hold it, with a description and a cause), under each error setting, while n8n streams — and the
 * independent oracle (key-oracle.ts) looks for the key in everything n8n keeps of the run: run data as stored,
 * node errors whole, hints, binary metadata, the binary store's metadata files, the chat's chunks (alone and joined)
 * and the logs (invariants.ts `oracleFindings`).
 *
 * The node properties reach the exit only with what the transport already redacted, so they cannot tell whether
 * the exit itself redacts (its hints, for one, found nothing wrong with hint redaction turned off); this property can.
 *
 * The same node also hands the exit an item in a generated state carrying generated words of other states (the
 * contract's words, contract.ts, with values that say their state): the exit's last guard leaves none its state
 * contradicts. The nodes' own builders already keep such words out, so only this reaches the guard itself.
 */
import fc from 'fast-check';
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { GatewayHttpError } from '../../nodes/shared/errors';
import { runNode } from '../../nodes/shared/exit';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { fuzzParameters, report, checkAsync } from './check';
import { CONTRACT, contradictions, type State } from './contract';
import { oracleFindings, type Chunk } from './invariants';
import { cutAt } from './plausible';
import { captureLogs, logs, newlyStored } from './property';
import { describeForm, embed, embeddingArb, formArb, formOf, keyArb } from './redaction-forms';

const FILE = 'exit.property.test.ts';
const BUDGET = { runs: 60, timeMs: 12_000 };
/** answers this short are also sent to the chat cut in two at every offset */
const EVERY_CUT_UP_TO = 160;
/** a 1x1 PNG */
const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==',
	'base64',
);

interface ExitCase {
	key: string;
	/** the text holding the form, and its description */
	text: string;
	form: string;
	cuts: number[];
	onError: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	/** the node throws (after its hint, chunks and file) instead of returning its item */
	throws: boolean;
	/** a second item: a state and words of (other) states it carries into the exit */
	stated: { status: State; words: Array<[string, unknown]> };
}

/** A value for each of the contract's words (and `submission_uncertain: true`), as the nodes write them. */
const WORD_VALUES: Record<string, unknown> = {
	failed_at: 'download',
	submitted: true,
	error: 'the download failed',
	error_message: 'the download failed',
	error_description: 'try again later',
	http_code: '500',
	download_later: true,
	result_urls: ['https://files.example/r/0.png'],
	partial_text: 'half an ans',
	partial_text_cut: 123,
	reason: 'HTTP 502 without a task ID',
	handed_back: 'max_wait',
	deadline_at: '2026-11-26T10:00:00.000Z',
	last_error: 'HTTP 503',
	files: [{ fileName: 't1.png' }],
	images_expected: 2,
	images_received: 1,
	warning: 'fewer images than asked',
	fee: { status: 'settled' },
	gateway_state: 'queued',
	state: 'queued',
	submission_uncertain: true,
};
const WORDS = Object.keys(WORD_VALUES).filter((k) => k in CONTRACT || k === 'submission_uncertain');
const stated = fc.record({
	status: fc.constantFrom<State>(
		'submitted',
		'completed',
		'failed',
		'running',
		'uncertain',
		'quoted',
	),
	words: fc
		.subarray(WORDS, { minLength: 1 })
		.map((ks) => ks.map((k): [string, unknown] => [k, WORD_VALUES[k]])),
});

const exitCase: fc.Arbitrary<ExitCase> = fc
	.record({
		key: keyArb,
		form: formArb,
		embedding: embeddingArb,
		cuts: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
		onError: fc.constantFrom<ExitCase['onError']>(
			'stopWorkflow',
			'continueRegularOutput',
			'continueErrorOutput',
		),
		throws: fc.boolean(),
		stated,
	})
	.map(({ key, form, embedding, cuts, onError, throws, stated }) => ({
		key,
		text: embed(formOf(key, form), embedding),
		form: describeForm(form),
		cuts,
		onError,
		throws,
		stated,
	}));

let current: ExitCase | undefined;
afterAll(() => cleanupBinaryData());

/** A node that hands the exit what a careless code path might: the gateway's text, unredacted. */
const echo: INodeType = {
	description: {
		displayName: 'Exit Echo',
		name: 'exitEcho',
		group: ['transform'],
		version: 1,
		description: 'test node',
		defaults: { name: 'Exit Echo' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'genGatewayApi', required: true }],
		properties: [],
	} as INodeType['description'],
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runNode(
			this,
			async (exit) => {
				const c = current!;
				exit.hint(`the gateway said: ${c.text}`, 'warning');
				const answer = `answer: ${c.text}`;
				const chat = exit.chat(0);
				for (const piece of cutAt(answer, c.cuts)) chat.item(piece);
				chat.end();
				await chat.flush();
				// a short answer is also sent cut in two at every offset, each as the chat stream of an item of its own
				if (answer.length <= EVERY_CUT_UP_TO) {
					for (let k = 1; k < answer.length; k++) {
						const one = exit.chat(k);
						one.item(answer.slice(0, k));
						one.item(answer.slice(k));
						one.end();
						await one.flush();
					}
				}
				const stored = await exit.binary(PNG, `${c.text}.png`, 'image/png');
				if (c.throws)
					throw new GatewayHttpError(400, `refused: ${c.text}`, c.text, 'POST', `/v1/x/${c.text}`);
				return [
					[
						{
							json: { status: 'completed', answer: c.text },
							binary: {
								data: stored,
								copy: { ...stored, fileName: c.text, fileExtension: c.text },
							},
						},
						{
							json: {
								status: c.stated.status,
								task_id: 't1',
								row: 'a user field',
								...(c.stated.status === 'failed' ? { failed_at: 'task' } : {}),
								...Object.fromEntries(c.stated.words),
							},
						},
					],
				];
			},
			() => this.continueOnFail(),
		);
	},
};

it('everything the exit hands n8n (hints, chat chunks, stored file names, binary metadata, items, node errors) holds no form of the key, and no item a word its state contradicts', async () => {
	captureLogs();
	let ran = 0;
	const details = await checkAsync(
		exitCase,
		async (c) => {
			ran++;
			current = c;
			await newlyStored();
			logs.length = 0;
			const chunks: Chunk[] = [];
			const r = await runWorkflow({
				nodes: [{ name: 'Node', type: echo, onError: c.onError }],
				credentials: { apiKey: c.key, baseUrl: 'http://127.0.0.1:9' },
				onChunk: (ch) => chunks.push(ch),
			});
			const problems = oracleFindings(c.key, r, {
				logs: [...logs],
				chunks,
				stored: await newlyStored(),
			});
			if (!chunks.length)
				problems.push('[no-chunks] n8n received no chunk: the case did not reach the chat');
			for (const item of r.outputs('Node').flat())
				for (const x of contradictions(item))
					problems.push(
						`[contract] an item the exit handed n8n: ${x} — ${JSON.stringify(item.json).slice(0, 300)}`,
					);
			if (problems.length)
				throw new Error(
					`key ${JSON.stringify(c.key)}, form ${c.form}, ${c.onError}${c.throws ? ', the node throws' : `, an item ${c.stated.status} with ${c.stated.words.map(([k]) => k).join(', ')}`}\n  text: ${JSON.stringify(c.text).slice(0, 300)}\n  - ${problems.join('\n  - ')}`,
				);
		},
		fuzzParameters<[ExitCase]>(BUDGET),
	);
	report(FILE, details as fc.RunDetails<unknown>, ran, expect.getState().currentTestName);
}, 600_000);
