/**
 * Bad-input corpus for every node: each case is refused with an error naming the field and the rule, and nothing is
 * sent. The cases of the field rules (options, task IDs, URLs, JSON fields) are generated from the rules' own bad
 * examples (./corpus.ts); the rows written here are the body rules and the rules across fields and binaries.
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { startSimulator, type Simulator } from '../../simulator';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { OPTION_RULES } from '../../nodes/shared/rules/options';
import { registeredFieldSets } from '../../nodes/shared/rules/rule';
import { chat, delta, generatedCases, image, m, type Case } from './corpus';

let sim: Simulator;
beforeAll(async () => {
	sim = await startSimulator({ quiet: true });
});
afterAll(async () => {
	await sim.stop();
	cleanupBinaryData();
});
beforeEach(() => sim.reset());

/** the simulator's demo key (the credential's), for the key-in-the-URL rows */
const KEY = 'sk-sim-demo-0000000000000000';
/** a beta JSON edit from reference addresses only */
const betaEdit = { operation: 'edit', model: m('beta-3.1-flash-image-preview'), referenceBinaries: '', editEncoding: 'json' };
const many = (n: number, ext = 'png') => Array.from({ length: n }, (_, k) => `https://media.example/${k}.${ext}`);

const withBinary = (data: Buffer, fileName: string, mimeType: string): INodeExecutionData[] => [{ json: {}, binary: { data: { data: data.toString('base64'), mimeType, fileName } } }];
const hugePng = () => {
	const b = Buffer.alloc(26 * 1024 * 1024, 0);
	Buffer.from('89504e470d0a1a0a0000000d49484452000000400000004008060000', 'hex').copy(b);
	return withBinary(b, 'huge.png', 'image/png');
};

const written: Array<[...Case, (() => INodeExecutionData[])?]> = [
	['Image Submit: blank prompt', () => new GenGatewayImageSubmit(), image, { prompt: '   ' }, /^prompt: must not be empty/],
	['Image Submit: prompt expression resolving to null', () => new GenGatewayImageSubmit(), image, { prompt: '={{ null }}' }, /^prompt: /],
	['Image Submit: prompt of the wrong type', () => new GenGatewayImageSubmit(), image, { prompt: '={{ 42 }}' }, /^prompt: must be text/],
	['Image Submit: model expression resolving to null', () => new GenGatewayImageSubmit(), image, { model: m('={{ null }}') }, /^Model: is required/],
	['Image Submit: a ratio instead of a size', () => new GenGatewayImageSubmit(), image, { size: '16:9' }, /^size: "16:9" is a ratio/],
	['Image Submit: wrong size for the tier', () => new GenGatewayImageSubmit(), image, { model: m('alpha-image-2-2k'), size: '4096x4096' }, /^size: 4096x4096 is 16,777,216 pixels; the 2K tier of alpha-image-2-2k allows at most 2048x2048/],
	['Image Submit: n out of range', () => new GenGatewayImageSubmit(), image, { n: 0 }, /^n: must be at least 1/],
	['Image Submit: non-image model', () => new GenGatewayImageSubmit(), image, { model: m('alpha-chat-4o') }, /^model: alpha-chat-4o is not an image model/],
	['Image Submit: native for an alpha model', () => new GenGatewayImageSubmit(), image, { mode: 'native' }, /^Mode: Native \(generateContent\) is for the beta family only/],
	['Image Submit: edit without references', () => new GenGatewayImageSubmit(), image, { operation: 'edit', referenceBinaries: '', referenceUrls: '' }, /^Reference Images: an edit needs at least one reference image/],
	['Image Submit: reference image over 25 MiB', () => new GenGatewayImageSubmit(), image, { operation: 'edit' }, /^Reference Binary Properties: binary "data" is 26\.0 MiB; the limit is 25 MiB per image/, hugePng],
	['Image Submit: reference file that is not an image', () => new GenGatewayImageSubmit(), image, { operation: 'edit' }, /^Reference Binary Properties: binary "data" \(notes\.png\) is not a PNG, JPEG, WebP or BMP image \(checked from its bytes\)/, () => withBinary(Buffer.from('%PDF-1.7 not a picture'), 'notes.png', 'image/png')],
	['Image Submit: reference URL not http(s)', () => new GenGatewayImageSubmit(), image, { operation: 'edit', model: m('beta-3-pro-image-preview'), referenceBinaries: '', referenceUrls: 'ftp://a.example/x.png', editEncoding: 'json' }, /^Reference Image URLs\[0\]: must be an http\(s\):\/\/ address/],
	['Image Submit: reference URL with credentials', () => new GenGatewayImageSubmit(), image, { operation: 'edit', model: m('beta-3.1-flash-image-preview'), referenceBinaries: '', referenceUrls: 'https://me:secret@media.example/x.png', editEncoding: 'json' }, /^Reference Image URLs\[0\]: must not contain credentials/],
	['Image Submit: reference URL on a link-local address', () => new GenGatewayImageSubmit(), image, { operation: 'edit', model: m('beta-3.1-flash-image-preview'), referenceBinaries: '', referenceUrls: 'http://169.254.169.254/x.png', editEncoding: 'json' }, /^Reference Image URLs\[0\]: /],
	['Image Submit: reference URL in native mode', () => new GenGatewayImageSubmit(), image, { operation: 'edit', mode: 'native', model: m('beta-3.1-flash-image-preview'), referenceBinaries: '', referenceUrls: 'https://media.example/x.png' }, /^Reference Image URLs: native mode sends reference images inline/],
	['Video Create: 6001-character prompt', () => new GenGatewayVideoCreate(), delta, { prompt: 'p'.repeat(6001) }, /^prompt: is 6001 characters/],
	['Video Create: seconds of the wrong type', () => new GenGatewayVideoCreate(), delta, { seconds: '={{ "five" }}' }, /seconds: .*whole number/],
	['Video Create: too many references', () => new GenGatewayVideoCreate(), delta, { referenceImages: many(9), referenceVideos: many(3, 'mp4'), referenceAudios: many(1, 'mp3') }, /13 references: at most 12/],
	['Video Create: conflicting aliases', () => new GenGatewayVideoCreate(), delta, { options: { extraBody: '{"duration": 8}' } }, /^duration: conflicts with seconds/],
	['Video Create: bad URL', () => new GenGatewayVideoCreate(), delta, { referenceImages: 'not a url' }, /metadata\.content\[0\]\.image_url\.url: /],
	['Video Create: model of another family', () => new GenGatewayVideoCreate(), delta, { model: m('gamma-video-1.0') }, /^(Model|model): .*(gamma-video-1\.0 is not a delta-video model|must be delta-video)/],
	['Video Create: gamma seconds not whole', () => new GenGatewayVideoCreate(), { ...delta, family: 'gamma', model: m('gamma-video-1.5'), gammaSeconds: 7.5 }, {}, /^seconds: .*must be a whole number of seconds/],
	['Chat: empty message list', () => new GenGatewayChat(), chat, { messages: { values: [] } }, /^messages: must hold at least one message/],
	['Responses: empty input', () => new GenGatewayResponses(), { model: m('alpha-chat-4o'), input: ' ', stream: false }, {}, /^input: /],
	// reference image addresses the gateway must not be given: credentials, private and link-local hosts, the key itself
	['Image Submit: reference URL with user:pass@ (http)', () => new GenGatewayImageSubmit(), image, { ...betaEdit, referenceUrls: 'http://user:pass@media.example/x.png' }, /^Reference Image URLs\[0\]: must not contain credentials/],
	['Image Submit: reference URL on a private address (10/8)', () => new GenGatewayImageSubmit(), image, { ...betaEdit, referenceUrls: 'https://10.0.0.5/x.png' }, /^Reference Image URLs\[0\]: .*private, loopback or link-local/],
	['Image Submit: reference URL on a private address (192.168/16)', () => new GenGatewayImageSubmit(), image, { ...betaEdit, referenceUrls: 'http://192.168.1.20:8080/x.png' }, /^Reference Image URLs\[0\]: .*private, loopback or link-local/],
	['Image Submit: reference URL on loopback', () => new GenGatewayImageSubmit(), image, { ...betaEdit, referenceUrls: 'http://127.0.0.1/x.png' }, /^Reference Image URLs\[0\]: .*private, loopback or link-local/],
	['Image Submit: reference URL on IPv6 link-local', () => new GenGatewayImageSubmit(), image, { ...betaEdit, referenceUrls: 'http://[fe80::1]/x.png' }, /^Reference Image URLs\[0\]: .*private, loopback or link-local/],
	['Image Submit: reference URL on IPv6 unique-local', () => new GenGatewayImageSubmit(), image, { ...betaEdit, referenceUrls: 'https://[fd12:3456::1]/x.png' }, /^Reference Image URLs\[0\]: .*private, loopback or link-local/],
	['Image Submit: reference URL carrying the key in its query', () => new GenGatewayImageSubmit(), image, { ...betaEdit, referenceUrls: `https://media.example/x.png?sig=${KEY}` }, /^Reference Image URLs\[0\]: must not carry an API key/],
	['Image Submit: reference URL carrying the key percent-encoded in its path', () => new GenGatewayImageSubmit(), image, { ...betaEdit, referenceUrls: `https://media.example/${encodeURIComponent(KEY).replace(/-/g, '%2D')}/x.png` }, /^Reference Image URLs\[0\]: must not carry an API key/],
	['Image Submit: second reference URL bad, first fine (the field names the index)', () => new GenGatewayImageSubmit(), image, { ...betaEdit, referenceUrls: 'https://media.example/a.png\nhttp://169.254.169.254/latest/meta-data' }, /^Reference Image URLs\[1\]: /],
	['Video Create: reference image on a link-local address', () => new GenGatewayVideoCreate(), delta, { referenceImages: 'https://169.254.169.254/x.png' }, /private, loopback or link-local/],
	['Video Create: reference image with user:pass@', () => new GenGatewayVideoCreate(), delta, { referenceImages: 'https://me:secret@media.example/x.png' }, /must not contain credentials/],
	['Video Create: reference image carrying the key', () => new GenGatewayVideoCreate(), delta, { referenceImages: `https://media.example/x.png?t=${KEY}` }, /must not carry an API key/],
];

const generated = generatedCases();
const cases: Array<[...Case, (() => INodeExecutionData[])?]> = [...generated.cases, ...written];

describe('every rule has a case', () => {
	const sets = [...registeredFieldSets()];
	const fields = sets.flatMap(([set, f]) => Object.entries(f).map(([name, field]) => ({ set, name, ...field })));

	it('every field set of the nodes is placed in the corpus', () => {
		expect(sets.length).toBeGreaterThan(10);
		expect(generated.unplaced).toEqual([]);
	});

	it('every shared option rule is used by a field (a rule no field uses has no case)', () => {
		const used = new Set(fields.map((f) => f.rule));
		expect(Object.entries(OPTION_RULES).filter(([, rule]) => !used.has(rule)).map(([name]) => name)).toEqual([]);
	});

	it.each(fields.map((f) => [`${f.set}: ${f.label}`, f] as const))('%s: has good and bad examples, and its schema agrees with them', (_, f) => {
		expect(f.rule.good.length).toBeGreaterThan(0);
		expect(f.rule.bad.length).toBeGreaterThan(0);
		for (const v of f.rule.good) expect([v, f.rule.schema.safeParse(v).success]).toEqual([v, true]);
		for (const b of f.rule.bad) {
			const r = f.rule.schema.safeParse(b.value);
			expect([b.value, r.success]).toEqual([b.value, false]);
			if (!r.success) expect(r.error.issues[0].message.startsWith(b.says)).toBe(true);
		}
		expect(generated.cases.filter(([title]) => title.startsWith(`${f.set}: ${f.label} = `))).toHaveLength(f.rule.bad.length);
	});

	it('a node reads numbers from a sheet ("30") and sends the request', async () => {
		const options = { submitTimeoutMs: '={{ "30000" }}', syncTimeoutMs: '={{ " 600000 " }}', maxConcurrency: '={{ "4" }}', deadlineMinutes: '={{ "30" }}' };
		const r = await runWorkflow({ nodes: [{ name: 'N', type: new GenGatewayImageSubmit(), parameters: { ...image, options } }], credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl } });
		const out = r.outputs('N').flat();
		expect(out).toHaveLength(1);
		expect(out[0].json.error).toBeUndefined();
		expect(out[0].json.task_id).toEqual(expect.any(String));
		expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(1);
	});

	it('a number given as text ("30" from a sheet) is that number; empty text is not set', () => {
		for (const rule of Object.values(OPTION_RULES)) expect(rule.schema.parse(' 30 ')).toBe(30);
		expect(OPTION_RULES.minutes.schema.parse('')).toBeUndefined();
		expect(OPTION_RULES.minutes.schema.safeParse('abc').error?.issues[0].message).toBe('must be a positive number of minutes (got "abc")');
	});
});

describe('bad-input corpus', () => {
	// a rest parameter: jest would take a sixth named parameter, absent from most rows, for a done callback
	it('the key of the rows is the simulator\'s demo key', () => expect(sim.keys.demo).toBe(KEY));

	it.each(cases)('%s', async (...row) => {
		const [, make, base, change, rule, input] = row;
		const node = make();
		const r = await runWorkflow({ nodes: [{ name: 'N', type: node, parameters: { ...base, ...change }, onError: 'continueRegularOutput' }], input: input?.(), credentials: { apiKey: sim.keys.demo, baseUrl: sim.baseUrl } });
		const out = r.outputs('N').flat();
		expect(out).toHaveLength(1);
		expect(String(out[0].json.error)).toMatch(rule);
		expect(sim.log.filter((l) => !l.path.startsWith('/api/'))).toHaveLength(0);
	});
});
