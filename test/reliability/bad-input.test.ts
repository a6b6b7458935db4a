/**
 * Bad-input corpus for every node: each case is refused with an error naming the field and the rule, and nothing is
 * sent. The cases of the field rules (options, task IDs, URLs, JSON fields) and of the body rules (image, video, chat
 * and responses requests) are generated from the rules' own examples (./corpus.ts); the rows written here are the
 * rules across fields and binaries, reference addresses, and two body rules reached through the fields a user fills.
 * A batch whose item 2 of 3 is bad (the last describe): under Stop Workflow the node refuses the whole batch, naming
 * item 2, the field and the rule, before anything is sent; under Continue item 2 is its own failed item and items 1
 * and 3 are sent (docs/behaviour.md, *Nothing accepted is lost*).
 */
import type { INodeExecutionData, INodeType } from 'n8n-workflow';
import { useSimulator } from '../harness/simulator';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputRuleError } from '../../nodes/shared/errors';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { withChanges } from '../../nodes/shared/rules/body';
import { OPTION_RULES } from '../../nodes/shared/rules/options';
import { registeredFieldSets } from '../../nodes/shared/rules/rule';
import { parseOrThrow } from '../../nodes/shared/validate';
import {
	bodyRuleSets,
	BODY_PLACEMENTS,
	delta,
	generatedBodyCases,
	generatedCases,
	image,
	m,
	responses,
	type Case,
} from './corpus';
import { checkMessages } from './schemaChecks';

const sim = useSimulator({ quiet: true }, { reset: true });
afterAll(async () => {
	cleanupBinaryData();
});

/** the simulator's demo key (the credential's), for the key-in-the-URL rows */
const KEY = 'sk-sim-demo-0000000000000000';
/** a beta JSON edit from reference addresses only */
const betaEdit = {
	operation: 'edit',
	model: m('beta-3.1-flash-image-preview'),
	referenceBinaries: '',
	editEncoding: 'json',
};
const many = (n: number, ext = 'png') =>
	Array.from({ length: n }, (_, k) => `https://media.example/${k}.${ext}`);

const withBinary = (data: Buffer, fileName: string, mimeType: string): INodeExecutionData[] => [
	{ json: {}, binary: { data: { data: data.toString('base64'), mimeType, fileName } } },
];
const hugePng = () => {
	const b = Buffer.alloc(26 * 1024 * 1024, 0);
	Buffer.from('89504e470d0a1a0a0000000d49484452000000400000004008060000', 'hex').copy(b);
	return withBinary(b, 'huge.png', 'image/png');
};

const written: Array<[...Case, (() => INodeExecutionData[])?]> = [
	[
		'Image Submit: model expression resolving to null',
		() => new GenGatewayImageSubmit(),
		image,
		{ model: m('={{ null }}') },
		/^Model: is required/,
	],
	[
		'Image Submit: wrong size for the tier',
		() => new GenGatewayImageSubmit(),
		image,
		{ model: m('alpha-image-2-2k'), size: '4096x4096' },
		/^size: 4096x4096 is 16,777,216 pixels; the 2K tier of alpha-image-2-2k allows at most 2048x2048/,
	],
	[
		'Image Submit: native for an alpha model',
		() => new GenGatewayImageSubmit(),
		image,
		{ mode: 'native' },
		/^Mode: Native \(generateContent\) is for the beta family only/,
	],
	[
		'Image Submit: edit without references',
		() => new GenGatewayImageSubmit(),
		image,
		{ operation: 'edit', referenceBinaries: '', referenceUrls: '' },
		/^Reference Images: an edit needs at least one reference image/,
	],
	[
		'Image Submit: reference image over 25 MiB',
		() => new GenGatewayImageSubmit(),
		image,
		{ operation: 'edit' },
		/^Reference Binary Properties: binary "data" is 26\.0 MiB; the limit is 25 MiB per image/,
		hugePng,
	],
	[
		'Image Submit: reference file that is not an image',
		() => new GenGatewayImageSubmit(),
		image,
		{ operation: 'edit' },
		/^Reference Binary Properties: binary "data" \(notes\.png\) is not a PNG, JPEG, WebP or BMP image \(checked from its bytes\)/,
		() => withBinary(Buffer.from('%PDF-1.7 not a picture'), 'notes.png', 'image/png'),
	],
	[
		'Image Submit: reference URL not http(s)',
		() => new GenGatewayImageSubmit(),
		image,
		{
			operation: 'edit',
			model: m('beta-3-pro-image-preview'),
			referenceBinaries: '',
			referenceUrls: 'ftp://a.example/x.png',
			editEncoding: 'json',
		},
		/^Reference Image URLs\[0\]: must be an http\(s\):\/\/ address/,
	],
	[
		'Image Submit: reference URL with credentials',
		() => new GenGatewayImageSubmit(),
		image,
		{
			operation: 'edit',
			model: m('beta-3.1-flash-image-preview'),
			referenceBinaries: '',
			referenceUrls: 'https://me:secret@media.example/x.png',
			editEncoding: 'json',
		},
		/^Reference Image URLs\[0\]: must not contain credentials/,
	],
	[
		'Image Submit: reference URL on a link-local address',
		() => new GenGatewayImageSubmit(),
		image,
		{
			operation: 'edit',
			model: m('beta-3.1-flash-image-preview'),
			referenceBinaries: '',
			referenceUrls: 'http://169.254.169.254/x.png',
			editEncoding: 'json',
		},
		/^Reference Image URLs\[0\]: /,
	],
	[
		'Image Submit: reference URL in native mode',
		() => new GenGatewayImageSubmit(),
		image,
		{
			operation: 'edit',
			mode: 'native',
			model: m('beta-3.1-flash-image-preview'),
			referenceBinaries: '',
			referenceUrls: 'https://media.example/x.png',
		},
		/^Reference Image URLs: native mode sends reference images inline/,
	],
	[
		'Video Create: too many references',
		() => new GenGatewayVideoCreate(),
		delta,
		{ referenceImages: many(9), referenceVideos: many(3, 'mp4'), referenceAudios: many(1, 'mp3') },
		/13 references: at most 12/,
	],
	[
		'Video Create: bad URL',
		() => new GenGatewayVideoCreate(),
		delta,
		{ referenceImages: 'not a url' },
		/metadata\.content\[0\]\.image_url\.url: /,
	],
	// reference image addresses the gateway must not be given: credentials, private and link-local hosts, the key itself
	[
		'Image Submit: reference URL with user:pass@ (http)',
		() => new GenGatewayImageSubmit(),
		image,
		{ ...betaEdit, referenceUrls: 'http://user:pass@media.example/x.png' },
		/^Reference Image URLs\[0\]: must not contain credentials/,
	],
	[
		'Image Submit: reference URL on a private address (10/8)',
		() => new GenGatewayImageSubmit(),
		image,
		{ ...betaEdit, referenceUrls: 'https://10.0.0.5/x.png' },
		/^Reference Image URLs\[0\]: .*private, loopback or link-local/,
	],
	[
		'Image Submit: reference URL on a private address (192.168/16)',
		() => new GenGatewayImageSubmit(),
		image,
		{ ...betaEdit, referenceUrls: 'http://192.168.1.20:8080/x.png' },
		/^Reference Image URLs\[0\]: .*private, loopback or link-local/,
	],
	[
		'Image Submit: reference URL on loopback',
		() => new GenGatewayImageSubmit(),
		image,
		{ ...betaEdit, referenceUrls: 'http://127.0.0.1/x.png' },
		/^Reference Image URLs\[0\]: .*private, loopback or link-local/,
	],
	[
		'Image Submit: reference URL on IPv6 link-local',
		() => new GenGatewayImageSubmit(),
		image,
		{ ...betaEdit, referenceUrls: 'http://[fe80::1]/x.png' },
		/^Reference Image URLs\[0\]: .*private, loopback or link-local/,
	],
	[
		'Image Submit: reference URL on IPv6 unique-local',
		() => new GenGatewayImageSubmit(),
		image,
		{ ...betaEdit, referenceUrls: 'https://[fd12:3456::1]/x.png' },
		/^Reference Image URLs\[0\]: .*private, loopback or link-local/,
	],
	[
		'Image Submit: reference URL carrying the key in its query',
		() => new GenGatewayImageSubmit(),
		image,
		{ ...betaEdit, referenceUrls: `https://media.example/x.png?sig=${KEY}` },
		/^Reference Image URLs\[0\]: must not carry an API key/,
	],
	[
		'Image Submit: reference URL carrying the key percent-encoded in its path',
		() => new GenGatewayImageSubmit(),
		image,
		{
			...betaEdit,
			referenceUrls: `https://media.example/${encodeURIComponent(KEY).replace(/-/g, '%2D')}/x.png`,
		},
		/^Reference Image URLs\[0\]: must not carry an API key/,
	],
	[
		'Image Submit: second reference URL bad, first fine (the field names the index)',
		() => new GenGatewayImageSubmit(),
		image,
		{
			...betaEdit,
			referenceUrls: 'https://media.example/a.png\nhttp://169.254.169.254/latest/meta-data',
		},
		/^Reference Image URLs\[1\]: /,
	],
	[
		'Video Create: reference image on a link-local address',
		() => new GenGatewayVideoCreate(),
		delta,
		{ referenceImages: 'https://169.254.169.254/x.png' },
		/private, loopback or link-local/,
	],
	[
		'Video Create: reference image with user:pass@',
		() => new GenGatewayVideoCreate(),
		delta,
		{ referenceImages: 'https://me:secret@media.example/x.png' },
		/must not contain credentials/,
	],
	[
		'Video Create: reference image carrying the key',
		() => new GenGatewayVideoCreate(),
		delta,
		{ referenceImages: `https://media.example/x.png?t=${KEY}` },
		/must not carry an API key/,
	],
];

const generated = generatedCases();
const body = generatedBodyCases();
const cases: Array<[...Case, (() => INodeExecutionData[])?]> = [
	...generated.cases,
	...body.cases,
	...written,
];

const bodySets = bodyRuleSets();
const bodyRules = bodySets.flatMap(([set, s]) =>
	Object.entries(s.rules).map(([id, rule]) => ({
		set,
		id,
		rule,
		valid: s.valid,
		schema: s.schema(),
	})),
);

/** What a schema refuses in a body, as the node reports it: field and rule. */
function violations(
	schema: Parameters<typeof parseOrThrow>[0],
	value: unknown,
): Array<{ field: string; rule: string }> {
	try {
		parseOrThrow(schema, value);
		return [];
	} catch (err) {
		if (!(err instanceof InputRuleError)) throw err;
		return err.violations;
	}
}

describe('every rule has a case', () => {
	const sets = [...registeredFieldSets()];
	const fields = sets.flatMap(([set, f]) =>
		Object.entries(f).map(([name, field]) => ({ set, name, ...field })),
	);

	it('every field set of the nodes is placed in the corpus', () => {
		expect(sets.length).toBeGreaterThan(10);
		expect(generated.unplaced).toEqual([]);
	});

	it('every body rule set is placed in the corpus, and every example of a reached rule is given through the node', () => {
		expect(body.unplaced).toEqual([]);
		expect(bodySets.map(([set]) => set)).toEqual(
			expect.arrayContaining(Object.keys(BODY_PLACEMENTS)),
		);
		for (const [set, { rules }] of bodySets)
			expect([
				set,
				Object.keys(BODY_PLACEMENTS[set]?.unreachable ?? {}).filter((id) => !rules[id]),
			]).toEqual([set, []]);
	});

	it('every shared option rule is used by a field (a rule no field uses has no case)', () => {
		const used = new Set(fields.map((f) => f.rule));
		expect(
			Object.entries(OPTION_RULES)
				.filter(([, rule]) => !used.has(rule))
				.map(([name]) => name),
		).toEqual([]);
	});

	it.each(fields.map((f) => [`${f.set}: ${f.label}`, f] as const))(
		'%s: has good and bad examples, and its schema agrees with them',
		(_, f) => {
			expect(f.rule.good.length).toBeGreaterThan(0);
			expect(f.rule.bad.length).toBeGreaterThan(0);
			for (const v of f.rule.good)
				expect([v, f.rule.schema.safeParse(v).success]).toEqual([v, true]);
			for (const b of f.rule.bad) {
				const r = f.rule.schema.safeParse(b.value);
				expect([b.value, r.success]).toEqual([b.value, false]);
				if (!r.success) expect(r.error.issues[0].message.startsWith(b.says)).toBe(true);
			}
			expect(
				generated.cases.filter(([title]) => title.startsWith(`${f.set}: ${f.label} = `)),
			).toHaveLength(f.rule.bad.length);
		},
	);

	it('a node reads numbers from a sheet ("30") and sends the request', async () => {
		const options = {
			submitTimeoutMs: '={{ "30000" }}',
			syncTimeoutMs: '={{ " 600000 " }}',
			maxConcurrency: '={{ "4" }}',
			deadlineMinutes: '={{ "30" }}',
		};
		const r = await runWorkflow({
			nodes: [{ name: 'N', type: new GenGatewayImageSubmit(), parameters: { ...image, options } }],
			credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		});
		const out = r.outputs('N').flat();
		expect(out).toHaveLength(1);
		expect(out[0].json.error).toBeUndefined();
		expect(out[0].json.task_id).toEqual(expect.any(String));
		expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(1);
	});

	it('a number given as text ("30" from a sheet) is that number; empty text is not set', () => {
		for (const rule of Object.values(OPTION_RULES)) expect(rule.schema.parse(' 30 ')).toBe(30);
		expect(OPTION_RULES.minutes.schema.parse('')).toBeUndefined();
		expect(OPTION_RULES.minutes.schema.safeParse('abc').error?.issues[0].message).toBe(
			'must be a positive number of minutes (got "abc")',
		);
	});
});

describe('every body rule has a case', () => {
	const schemaFiles = [
		'nodes/GenGatewayImageSubmit/actions/rules.ts',
		'nodes/GenGatewayVideoCreate/actions/deltaSchema.ts',
		'nodes/GenGatewayVideoCreate/actions/gammaSchema.ts',
		'nodes/shared/text/schemas.ts',
	];

	it.each(bodyRules.map((r) => [`${r.set}: ${r.id} (${r.rule.field})`, r] as const))(
		'%s: has bad examples its schema refuses by this rule, and good ones it accepts',
		(_, { rule, valid, schema }) => {
			expect(rule.bad.length).toBeGreaterThan(0);
			expect(rule.good.length).toBeGreaterThan(0);
			for (const bad of rule.bad) {
				const said = violations(schema, withChanges(valid, bad));
				expect([
					bad,
					said.some((v) => v.field === rule.field && v.rule.includes(rule.says)),
				]).toEqual([bad, true]);
			}
			for (const good of rule.good)
				expect([good, violations(schema, withChanges(valid, good))]).toEqual([good, []]);
		},
	);

	it.each(bodySets.map(([set, s]) => [set, s] as const))(
		'%s: every message of its zod checks is a declared rule',
		(_, s) => {
			const declared = new Set(Object.values(s.rules).map((r) => r.says));
			expect(checkMessages(s.schema()).filter((m) => !declared.has(m))).toEqual([]);
		},
	);

	it.each(schemaFiles)(
		'%s refuses only through its declared rules (no addIssue or refine of its own)',
		(file) => {
			const text = readFileSync(join(__dirname, '../..', file), 'utf8');
			expect(text.match(/\.addIssue\(|\.refine\(/g) ?? []).toEqual([]);
			expect(text).toMatch(/bodyRuleSet\(/);
		},
	);

	it("Video Create's delta content checks (run by deltaSchema.ts) refuse only through the declared rules", () => {
		const file = 'nodes/GenGatewayVideoCreate/actions/deltaContent.ts';
		const text = readFileSync(join(__dirname, '../..', file), 'utf8');
		expect(text.match(/\.addIssue\(|\.refine\(/g) ?? []).toEqual([]);
		expect(text).toMatch(/from '\.\/deltaRules'/);
	});

	it('every reached body rule has as many cases as bad examples', () => {
		const expected = bodyRules
			.filter((r) => !BODY_PLACEMENTS[r.set]?.unreachable?.[r.id])
			.reduce((n, r) => n + r.rule.bad.length, 0);
		expect(body.cases).toHaveLength(expected);
	});

	it.each(body.accepted)('accepted: %s', async (_, make, parameters) => {
		const r = await runWorkflow({
			nodes: [{ name: 'N', type: make(), parameters, onError: 'continueRegularOutput' }],
			credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		});
		const out = r.outputs('N').flat();
		expect(out).toHaveLength(1);
		// sent once: every rule passed (nothing is sent on a refusal); the gateway may still refuse, e.g. a model it lacks
		expect(sim.log.filter((l) => l.method === 'POST' && !l.path.startsWith('/api/'))).toHaveLength(
			1,
		);
	});
});

describe('bad-input corpus', () => {
	// a rest parameter: jest would take a sixth named parameter, absent from most rows, for a done callback
	it("the key of the rows is the simulator's demo key", () => expect(sim.keys.demo).toBe(KEY));

	it.each(cases)('%s', async (...row) => {
		const [, make, base, change, rule, input] = row;
		const node = make();
		const r = await runWorkflow({
			nodes: [
				{
					name: 'N',
					type: node,
					parameters: { ...base, ...change },
					onError: 'continueRegularOutput',
				},
			],
			input: input?.(),
			credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		});
		const out = r.outputs('N').flat();
		expect(out).toHaveLength(1);
		expect(String(out[0].json.error)).toMatch(rule);
		expect(sim.log.filter((l) => !l.path.startsWith('/api/'))).toHaveLength(0);
	});
});

/** [title, node, parameters reading the field from each item's `v`, the three items' values (item 2 bad), rule, item i's requests] */
type BatchCase = [
	string,
	() => INodeType,
	Record<string, unknown>,
	[string | number, string | number, string | number],
	RegExp,
	(i: number) => RegExp,
	/** a paid node's failed item says whether its request reached the gateway (`submitted`) */
	paid: boolean,
];
const TASK_IDS = ['task_first_item', 'bad id!', 'task_third_item'];
const batchCases: BatchCase[] = [
	[
		'Image Submit (paid, concurrent window): size',
		() => new GenGatewayImageSubmit(),
		{ ...image, size: '={{ $json.v }}' },
		['1024x1024', '1040x1024', '1536x1024'],
		/^size: alpha-image-2\.5 takes one of 1024x1024/,
		() => /^POST \/v1\/images\/generations\/async$/,
		true,
	],
	[
		'Video Create (paid): seconds',
		() => new GenGatewayVideoCreate(),
		{ ...delta, seconds: '={{ $json.v }}' },
		[5, 99, 6],
		/^seconds: 99 is outside 4 to 15 seconds/,
		() => /^POST \/v1\/videos/,
		true,
	],
	[
		'Responses (paid, one item at a time): input',
		() => new GenGatewayResponses(),
		{ ...responses, input: '={{ $json.v }}' },
		['first', '', 'third'],
		/^input: must not be empty/,
		() => /^POST \/v1\/responses$/,
		true,
	],
	[
		'Task Wait (free): Task ID',
		() => new GenGatewayTaskWait(),
		{ taskId: '={{ $json.v }}', taskKind: 'auto', options: {} },
		[TASK_IDS[0], TASK_IDS[1], TASK_IDS[2]],
		/^Task ID: must be 1 to 200 characters/,
		(i) => new RegExp(`^GET /v1/.*/${TASK_IDS[i].replace(/[^\w]/g, '.')}$`),
		false,
	],
];

describe('a bad item 2 of 3', () => {
	const run = (
		make: () => INodeType,
		parameters: Record<string, unknown>,
		values: Array<string | number>,
		onError?: 'continueRegularOutput',
	) =>
		runWorkflow({
			nodes: [{ name: 'N', type: make(), parameters, ...(onError ? { onError } : {}) }],
			input: values.map((v) => ({ json: { v } })),
			credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl },
		});
	const sent = () =>
		sim.log.filter((l) => !l.path.startsWith('/api/')).map((l) => `${l.method} ${l.path}`);

	it.each(batchCases)(
		'%s: Stop Workflow refuses the batch naming item 2, the field and the rule; nothing is sent',
		async (_, make, parameters, values, rule) => {
			const r = await run(make, parameters, values);
			expect(r.error).toMatch(rule);
			// n8n's item index of the error: 0-based, so 1 is the second item
			expect(r.run.data.resultData.error).toMatchObject({ context: { itemIndex: 1 } });
			expect(sent()).toEqual([]);
		},
	);

	it.each(batchCases)(
		'%s: under Continue item 2 fails with the field and the rule, nothing sent for it; items 1 and 3 are sent',
		async (_, make, parameters, values, rule, request, paid) => {
			const r = await run(make, parameters, values, 'continueRegularOutput');
			// by the input item each came from (Task Wait routes items to its outputs by state)
			const out: Array<Record<string, unknown>> = [];
			for (const item of r.outputs('N').flat())
				out[(item.pairedItem as { item: number }).item] = item.json;
			expect(out).toHaveLength(3);
			expect(out[1]).toMatchObject({ status: 'failed', failed_at: 'validation' });
			if (paid) expect(out[1].submitted).toBe(false);
			expect(String(out[1].error)).toMatch(rule);
			for (const i of [0, 2]) expect(out[i].failed_at).not.toBe('validation');
			const requests = sent();
			expect(requests.filter((q) => request(0).test(q)).length).toBeGreaterThanOrEqual(1);
			expect(requests.filter((q) => request(2).test(q)).length).toBeGreaterThanOrEqual(1);
			// one request per good item for the paid nodes (item 2's never left); the wait's queries name items 1 and 3 only
			if (request(0).source === request(2).source) expect(requests).toHaveLength(2);
			else expect(requests.every((q) => request(0).test(q) || request(2).test(q))).toBe(true);
		},
	);
});
