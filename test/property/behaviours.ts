/**
 * What the hostile gateway and result host do with one request, as fast-check arbitraries. A script holds, per
 * route class and per item, the behaviours of that item's successive requests; when it runs out the answer is the
 * plausible, spec-shaped one. Keyed by item (not by arrival order) so a seed replays the same run.
 */
import fc from 'fast-check';
import { formArb, type FormSpec } from './redaction-forms';

export type RouteClass = 'paid' | 'query' | 'result' | 'content' | 'meta';
export const ROUTE_CLASSES: RouteClass[] = ['paid', 'query', 'result', 'content', 'meta'];
export type KeyForm = 'raw' | 'url' | 'b64';

/**
 * One field of the plausible answer changed: `pick` chooses the key (modulo the keys there), at the top or in data[0];
 * `element` replaces the first entry of its list (data, choices, output, candidates) itself, e.g. `data: [null]`.
 */
export interface Mutation {
	pick: number;
	nested: boolean;
	op: 'delete' | 'set' | 'element';
	value?: unknown;
}

export type Body =
	/** spec-shaped for the route and the request; `variant` picks among its normal forms (url or b64, task state, media) */
	| {
			kind: 'plausible';
			variant: number;
			mutation?: Mutation;
			keyIn?: KeyForm;
			taskState?: 'completed' | 'failed' | 'processing' | 'odd';
	  }
	| { kind: 'json'; value: unknown }
	| { kind: 'text'; text: string };

export interface Location {
	target: 'result' | 'gateway' | 'relative' | 'other-origin';
	keyIn?: { form: KeyForm; where: 'path' | 'query' };
}

export type Delivery =
	{ kind: 'whole'; chunked: boolean } | { kind: 'reset' } | { kind: 'cut'; at: number };

/**
 * Where a generated form of the key (redaction-forms.ts: the key or its Base64 at any alignment under up to 3 layers
 * of percent, HTML references, JSON escapes and NULs) hides in one answer:
 * - `body`: where the plausible answer echoes the key (an echoed Authorization, a chat answer's text, a task's error);
 * - `deltas`: the same, and a stream's text cut into deltas at `cuts` (so the form is split across several deltas);
 * - `sse-error`: a stream's error event (chat `event: error`, responses `response.failed`); other routes: as `error-message`;
 * - `error-message`, `error-code`: an error answer (`status`) whose `error.message` / `error.code` (or the flat
 *   `{code, message}` envelope's) holds the form, the other field a plain word or a number; a task query answered
 *   200 gets a failed task with that error;
 * - `header`: a response header (`header` names it; `content-disposition` as a file name);
 * - `reason`: the HTTP status line's reason phrase;
 * - `task-id`: the task ID a submit (or a query) answers with, which becomes file names;
 * - `result-url`: the path of a result file's URL (image results, a gamma video's result_url).
 * The form's JSON text in the body may be written with `\u` escapes (`uShare` per cent of its characters), and the
 * whole text answer re-encoded in `charset` (declared in its Content-Type; `utf-16` with a byte order mark).
 */
export type LeakPlace =
	| 'body'
	| 'deltas'
	| 'sse-error'
	| 'error-message'
	| 'error-code'
	| 'header'
	| 'reason'
	| 'task-id'
	| 'result-url';
export const LEAK_PLACES: LeakPlace[] = [
	'body',
	'deltas',
	'sse-error',
	'error-message',
	'error-code',
	'header',
	'reason',
	'task-id',
	'result-url',
];
export type LeakCharset = 'utf-16le' | 'utf-16be' | 'utf-16' | 'iso-8859-1';
export const LEAK_HEADERS = [
	'x-request-id',
	'www-authenticate',
	'x-echo-authorization',
	'content-disposition',
	'link',
	'warning',
	'x-error-message',
	'set-cookie',
] as const;

export interface Leak {
	place: LeakPlace;
	form: FormSpec;
	/** written as `Bearer <form>` */
	bearer: boolean;
	/** offsets (modulo the text's length) where a stream's text is cut into deltas */
	cuts: number[];
	/** per cent of the form's characters the body's JSON writes as `\u` escapes */
	uShare: 0 | 30 | 100;
	/** for error answers: the status, the envelope, whether the field without the form is a number */
	status: number;
	envelope: 'error-object' | 'flat';
	numericCode: boolean;
	header: (typeof LEAK_HEADERS)[number];
	charset?: LeakCharset;
}

export interface Behaviour {
	/** 'normal': the route's usual status (202 async submit, 200 otherwise) */
	status: number | 'normal';
	/** null: no Content-Type; undefined: the route's usual one */
	contentType?: string | null;
	location?: Location;
	retryAfter?: string;
	/** a header that echoes the key (as some proxies echo the request's Authorization) */
	echoKey?: KeyForm;
	/** a generated form of the key, somewhere in the answer */
	leak?: Leak;
	/** when the item's list of behaviours for this class runs out, this one answers again (a task that stays running) */
	repeat?: boolean;
	body: Body;
	delivery: Delivery;
	delayMs: number;
}

export type Script = Record<RouteClass, Behaviour[][]>;

const keyForm = fc.constantFrom<KeyForm>('raw', 'url', 'b64');

export const odd = fc.oneof(
	fc.constant(null),
	fc.constant(''),
	fc.integer(),
	fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, 1e21, -0, 0.1),
	fc.boolean(),
	fc.string({ maxLength: 12 }),
	fc.constant([]),
	fc.constant({}),
	fc.array(fc.constant(null), { minLength: 2000, maxLength: 3000 }),
	fc.jsonValue({ maxDepth: 3 }),
	fc.constant('bad id!'),
	fc.constant('x'.repeat(300)),
);

/** Nesting fast-check's generators rarely reach: 1000 levels of arrays or objects. */
const deep = fc.constantFrom('array', 'object').map((k) => {
	let v: unknown = 1;
	for (let i = 0; i < 1000; i++) v = k === 'array' ? [v] : { a: v };
	return v;
});

const anyJson = fc.oneof(
	{ weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
	{
		weight: 1,
		arbitrary: fc.constantFrom(
			null,
			true,
			0,
			'',
			[],
			{},
			'null',
			{ data: null },
			{ data: [null] },
			{ task_id: 7 },
			{ task_id: null, status: 'completed' },
			{ choices: null },
			{ output: [{ content: null }] },
		),
	},
	{ weight: 1, arbitrary: fc.array(fc.integer(), { minLength: 5000, maxLength: 20000 }) },
	{ weight: 1, arbitrary: deep },
	{ weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), odd, { maxKeys: 6 }) },
);

const body: fc.Arbitrary<Body> = fc.oneof(
	{
		weight: 12,
		arbitrary: fc.record(
			{
				kind: fc.constant('plausible' as const),
				variant: fc.nat(15),
				mutation: fc.option(
					fc.record({
						pick: fc.nat(20),
						nested: fc.boolean(),
						op: fc.constantFrom<Mutation['op']>('delete', 'set', 'element'),
						value: fc.oneof(
							{ weight: 1, arbitrary: fc.constant(null) },
							{ weight: 2, arbitrary: odd },
						),
					}),
					{ freq: 2, nil: undefined },
				),
				keyIn: fc.option(keyForm, { freq: 4, nil: undefined }),
				taskState: fc.option(
					fc.constantFrom<'completed' | 'failed' | 'processing' | 'odd'>(
						'failed',
						'processing',
						'odd',
					),
					{ freq: 3, nil: undefined },
				),
			},
			{ requiredKeys: ['kind', 'variant'] },
		),
	},
	{ weight: 4, arbitrary: fc.record({ kind: fc.constant('json' as const), value: anyJson }) },
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant('text' as const),
			text: fc.oneof(
				fc.constant(''),
				fc.string({ maxLength: 40 }),
				fc.constantFrom(
					'<html>502 Bad Gateway</html>',
					'{"task_id":"t1",',
					'data: {"choices":[',
					'\u0000\u0001\u0002',
					'nul\u0000l',
					")]}'\n{}",
				),
			),
		}),
	},
);

const status = fc.oneof(
	{ weight: 10, arbitrary: fc.constant('normal' as const) },
	{
		weight: 5,
		arbitrary: fc.constantFrom(
			200,
			201,
			202,
			204,
			206,
			301,
			302,
			303,
			307,
			308,
			400,
			401,
			402,
			403,
			404,
			409,
			413,
			422,
			429,
			500,
			502,
			503,
			504,
		),
	},
	{ weight: 1, arbitrary: fc.integer({ min: 200, max: 599 }) },
);

const contentType = fc.option(
	fc.oneof(
		fc.constant(null),
		fc.constantFrom(
			'',
			'application/json',
			'application/json; charset=utf-16',
			'text/html',
			'text/plain',
			'text/event-stream',
			'image/png',
			'video/mp4',
			'application/octet-stream',
			'multipart/mixed; boundary=x',
			'application/problem+json',
			';;;',
			'image/svg+xml',
			'APPLICATION/JSON',
		),
	),
	{ freq: 3, nil: undefined },
);

/**
 * Retry-After in every form, except the 3 to 60 s the transport honours by design (a bound on hangs, not a speed
 * test, would otherwise wait them out): seconds 0 to 2, fractions, negatives, huge, HTTP dates, garbage.
 */
export const retryAfter = fc.oneof(
	fc.constantFrom(
		'0',
		'1',
		'2',
		'0.5',
		'-1',
		'-999',
		'1e3',
		'99999999999999999999',
		'  1  ',
		'soon',
		'',
		'NaN',
		'Infinity',
		'1, 2',
		'0x10',
	),
	fc
		.constantFrom(-86_400_000, -1000, 1500, 86_400_000, 1e13)
		.map((d) => new Date(Date.now() + d).toUTCString()),
	fc.constant('Wed, 21 Oct 2015 07:28:00 GMT'),
	fc.constant('Mon, 99 Foo 2999 99:99:99 GMT'),
);

const location: fc.Arbitrary<Location> = fc.record(
	{
		target: fc.constantFrom<Location['target']>('result', 'gateway', 'relative', 'other-origin'),
		keyIn: fc.option(
			fc.record({ form: keyForm, where: fc.constantFrom<'path' | 'query'>('path', 'query') }),
			{ freq: 2, nil: undefined },
		),
	},
	{ requiredKeys: ['target'] },
);

const delivery: fc.Arbitrary<Delivery> = fc.oneof(
	{
		weight: 10,
		arbitrary: fc.record({ kind: fc.constant('whole' as const), chunked: fc.boolean() }),
	},
	{ weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant('cut' as const),
			at: fc.double({ min: 0, max: 1, noNaN: true }),
		}),
	},
);

export const leak: fc.Arbitrary<Leak> = fc.record(
	{
		place: fc.constantFrom(...LEAK_PLACES),
		form: formArb,
		bearer: fc.boolean(),
		cuts: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
		uShare: fc.constantFrom<0 | 30 | 100>(0, 0, 30, 100),
		status: fc.constantFrom(200, 400, 401, 402, 403, 404, 422, 429, 500, 502, 503),
		envelope: fc.constantFrom<'error-object' | 'flat'>('error-object', 'flat'),
		numericCode: fc.boolean(),
		header: fc.constantFrom(...LEAK_HEADERS),
		charset: fc.option(
			fc.constantFrom<LeakCharset>('utf-16le', 'utf-16be', 'utf-16', 'iso-8859-1'),
			{ freq: 3, nil: undefined },
		),
	},
	{
		requiredKeys: [
			'place',
			'form',
			'bearer',
			'cuts',
			'uShare',
			'status',
			'envelope',
			'numericCode',
			'header',
		],
	},
);

export const behaviour: fc.Arbitrary<Behaviour> = fc.record(
	{
		status,
		contentType,
		location: fc.option(location, { freq: 4, nil: undefined }),
		retryAfter: fc.option(retryAfter, { freq: 3, nil: undefined }),
		echoKey: fc.option(keyForm, { freq: 6, nil: undefined }),
		// one answer in three (most scripts then hold several): the other behaviours keep their share of runs
		leak: fc.oneof(
			{ weight: 2, arbitrary: fc.constant(undefined) },
			{ weight: 1, arbitrary: leak },
		),
		body,
		delivery,
		delayMs: fc.oneof(
			{ weight: 4, arbitrary: fc.constant(0) },
			{ weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }) },
		),
	},
	{ requiredKeys: ['status', 'body', 'delivery', 'delayMs'] },
);

/** Per item (0..7), the behaviours of its first few requests of each class. */
export const script = (
	maxPerItem: Partial<Record<RouteClass, number>> = {},
): fc.Arbitrary<Script> => {
	const perItem = (cls: RouteClass) =>
		fc.array(fc.array(behaviour, { maxLength: maxPerItem[cls] ?? 2 }), {
			minLength: 8,
			maxLength: 8,
		});
	return fc.record({
		paid: perItem('paid'),
		query: perItem('query'),
		result: perItem('result'),
		content: perItem('content'),
		meta: perItem('meta'),
	});
};
