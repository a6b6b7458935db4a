/**
 * Issue 43: parameter sets generated from the node descriptions, the way the n8n editor and expressions give them.
 *
 * Everything is read from each node's `INodeTypeDescription` (`new Node().description.properties`), for every action
 * node and the Chat Model, at every version the node declares: every property, every option of every `collection`
 * and `fixedCollection`, every `displayOptions` branch (show/hide by operation, mode, model, family, source,
 * `@version` …, evaluated here as the editor evaluates them), values of the field's own type (an `options` field's
 * options, a number's `typeOptions.minValue`/`maxValue` and just past them, the description's default and the
 * example in its placeholder), and what expressions hand a field instead: text for numbers and switches (" true ",
 * "1", "", whitespace), money as people write it ("$0.20", "¥0.146", "◎0.20", "JPY 5", "¤750000"), several addresses in one field
 * (lines, commas), an address with the credential's key in it, and values that differ by item (`={{ $json.vN }}`,
 * each input item its own value).
 *
 * A field's kind (switch, number, choice, text, address, binary property, JSON, model, …) is read from its type and
 * its label, so a field added to a description is generated without touching this file; a field of a type this file
 * cannot generate has no kind, and `test/property/described-nodes.property.test.ts` fails naming the node and the
 * field. Nothing here imports a rule of the package: the values are what a user can give, not what the rules accept.
 */
import fc from 'fast-check';
import type {
	IDataObject,
	INodeProperties,
	INodePropertyCollection,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { GenGatewayChat } from '../../nodes/GenGatewayChat/GenGatewayChat.node';
import { GenGatewayDownloadResult } from '../../nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
import { GenGatewayImageSubmit } from '../../nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { GenGatewayResponses } from '../../nodes/GenGatewayResponses/GenGatewayResponses.node';
import { GenGatewayTaskWait } from '../../nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
import { GenGatewayVideoCreate } from '../../nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
import { LmChatGenGateway } from '../../nodes/LmChatGenGateway/LmChatGenGateway.node';

/** Every node of the package, the Chat Model included (its description is generated like the others'). */
export function packageNodes(): INodeType[] {
	return [
		new GenGatewayImageSubmit(),
		new GenGatewayTaskWait(),
		new GenGatewayVideoCreate(),
		new GenGatewayDownloadResult(),
		new GenGatewayChat(),
		new GenGatewayResponses(),
		new GenGatewayPricing(),
		new LmChatGenGateway(),
	];
}

/** The versions a description declares (each is its own set of displayOptions branches). */
export function versionsOf(d: INodeTypeDescription): number[] {
	return Array.isArray(d.version) ? [...d.version] : [d.version];
}

// ---- fields: every property of a description, nested ones with their path ---------------------------------------

/** How a field's value is generated; read from its type and its label only. */
export type FieldKind =
	| 'switch'
	| 'number'
	| 'choice'
	| 'choices'
	| 'text'
	| 'address'
	| 'binary property'
	| 'json'
	| 'model'
	| 'collection'
	| 'fixed collection'
	| 'notice'
	| 'hidden';

export interface Field {
	/** parameter names from the top: ['options', 'format', 'values', 'jsonSchema'] */
	path: string[];
	prop: INodeProperties;
	/** undefined: this generator has no values for it (the coverage test names it) */
	kind: FieldKind | undefined;
}

/** A field's kind from its type and label: a URL in the label is an address, "Binary Propert…" names binary data. */
export function kindOf(p: INodeProperties): FieldKind | undefined {
	const label = `${p.displayName}`;
	switch (p.type) {
		case 'boolean':
			return 'switch';
		case 'number':
			return 'number';
		case 'options':
			return 'choice';
		case 'multiOptions':
			return 'choices';
		case 'json':
			return 'json';
		case 'resourceLocator':
			return 'model';
		case 'collection':
			return 'collection';
		case 'fixedCollection':
			return 'fixed collection';
		case 'notice':
			return 'notice';
		case 'hidden':
			return 'hidden';
		case 'string':
			if (/\bURLs?\b|address/i.test(label)) return 'address';
			if (/binary propert/i.test(label)) return 'binary property';
			return 'text';
		default:
			return undefined;
	}
}

/** The inner properties of a collection (its options) or of one group of a fixed collection. */
function innerOf(p: INodeProperties): Array<{ group?: string; props: INodeProperties[] }> {
	if (p.type === 'collection') return [{ props: (p.options ?? []) as INodeProperties[] }];
	if (p.type === 'fixedCollection')
		return ((p.options ?? []) as INodePropertyCollection[]).map((g) => ({
			group: g.name,
			props: g.values,
		}));
	return [];
}

/** Every property of a description, depth first, with its path (a fixed collection's group name is in the path). */
export function fieldsOf(props: INodeProperties[], path: string[] = []): Field[] {
	return props.flatMap((p) => {
		const here = [...path, p.name];
		const own: Field = { path: here, prop: p, kind: kindOf(p) };
		return [
			own,
			...innerOf(p).flatMap(({ group, props: inner }) =>
				fieldsOf(inner, group ? [...here, group] : here),
			),
		];
	});
}

// ---- displayOptions, as the editor evaluates them --------------------------------------------------------------

type Condition = { _cnd: Record<string, unknown> };
const isCondition = (v: unknown): v is Condition =>
	!!v && typeof v === 'object' && '_cnd' in (v as object);

/** A resource locator's value is compared by its `value` (n8n does the same). */
const plain = (v: unknown): unknown =>
	v && typeof v === 'object' && '__rl' in (v as object) ? (v as { value: unknown }).value : v;

function matches(want: unknown, got: unknown): boolean {
	if (!isCondition(want)) return want === got;
	const [op, arg] = Object.entries(want._cnd)[0];
	const s = typeof got === 'string' ? got : undefined;
	const n = typeof got === 'number' ? got : undefined;
	switch (op) {
		case 'eq':
			return got === arg;
		case 'not':
			return got !== arg;
		case 'exists':
			return got !== undefined && got !== null && got !== '';
		case 'startsWith':
			return s !== undefined && s.startsWith(String(arg));
		case 'endsWith':
			return s !== undefined && s.endsWith(String(arg));
		case 'includes':
			return s !== undefined && s.includes(String(arg));
		case 'regex':
			return s !== undefined && new RegExp(String(arg)).test(s);
		case 'gte':
			return n !== undefined && n >= Number(arg);
		case 'lte':
			return n !== undefined && n <= Number(arg);
		case 'gt':
			return n !== undefined && n > Number(arg);
		case 'lt':
			return n !== undefined && n < Number(arg);
		case 'between': {
			const b = arg as { from: number; to: number };
			return n !== undefined && n >= b.from && n <= b.to;
		}
		default:
			throw new Error(`description-gen: a displayOptions condition it does not know: ${op}`);
	}
}

/** Where displayOptions look a name up: '/name' from the node's top, else among the siblings, '@version' the version. */
export interface Scope {
	root: Record<string, unknown>;
	siblings: Record<string, unknown>;
	version: number;
}
const lookUp = (name: string, s: Scope): unknown =>
	name === '@version'
		? s.version
		: plain(name.startsWith('/') ? s.root[name.slice(1)] : s.siblings[name]);

/** Whether the editor shows a property in this scope (show: every name matches; hide: none does). */
export function isShown(p: INodeProperties, s: Scope, ignore?: string): boolean {
	const d = p.displayOptions;
	if (!d) return true;
	for (const [name, wanted] of Object.entries(d.show ?? {})) {
		if (name === ignore) continue;
		const got = lookUp(name, s);
		const values = Array.isArray(got) ? got : [got];
		if (!(wanted ?? []).some((w) => values.some((v) => matches(w, v)))) return false;
	}
	for (const [name, wanted] of Object.entries(d.hide ?? {})) {
		if (name === ignore) continue;
		const got = lookUp(name, s);
		const values = Array.isArray(got) ? got : [got];
		if ((wanted ?? []).some((w) => values.some((v) => matches(w, v)))) return false;
	}
	return true;
}

/** Every name some displayOptions of the description look at: the editor evaluates these, so they stay fixed values. */
export function switchingNames(props: INodeProperties[]): Set<string> {
	const out = new Set<string>();
	for (const f of fieldsOf(props))
		for (const part of [f.prop.displayOptions?.show, f.prop.displayOptions?.hide])
			for (const name of Object.keys(part ?? {})) out.add(name.replace(/^\//, ''));
	return out;
}

// ---- values -----------------------------------------------------------------------------------------------------

/** What the generator needs from the run around it: the key, the pickers' lists, addresses that are public. */
export interface GenContext {
	/** the credential's API key (some addresses carry a form of it) */
	key: string;
	/** a list search's results by its method name (searchImageModels …), as the editor's picker shows them */
	lists: Record<string, string[]>;
	/** public addresses that resolve nowhere (a reserved domain) */
	addresses: string[];
}

const WORDS = [
	'a fox',
	'a paper boat on a rainy street',
	'Hello',
	'Résumé 東京 🦊',
	'x',
	// the simulator's delta video completes without usage for this prompt (simulator/README.md, `[usage=none]`)
	'a fox at dusk [usage=none]',
];
const CURRENCY = [
	'$0.20',
	'¥0.146',
	'¤750000',
	'1.50',
	'0.5',
	'€1',
	' $1 ',
	'0,20',
	'USD 1',
	'¥0.20',
	// other sites' custom currencies (and the custom sites' own: the property's sites show ◎, JPY or pts)
	'◎0.20',
	'JPY 5',
	'pts3',
];
const BLANK = ['', ' ', '\t', '\n'];

const exampleOf = (p: INodeProperties): string | undefined => {
	const ph = typeof p.placeholder === 'string' ? p.placeholder.replace(/^e\.g\.\s*/, '') : '';
	return ph && !/\{\{/.test(ph) ? ph : undefined;
};

/** A form of the key in an address: raw, percent-encoded, Base64, in the path, the query or the fragment. */
function keyAddress(ctx: GenContext): fc.Arbitrary<string> {
	const forms = [
		ctx.key,
		encodeURIComponent(ctx.key),
		Buffer.from(ctx.key).toString('base64'),
		Buffer.from(ctx.key).toString('base64url'),
		encodeURIComponent(encodeURIComponent(ctx.key)),
	];
	return fc
		.tuple(
			fc.constantFrom(...ctx.addresses),
			fc.constantFrom(...forms),
			fc.constantFrom('path', 'query', 'fragment', 'named'),
		)
		.map(([a, f, where]) =>
			where === 'path'
				? `${a.replace(/\/[^/]*$/, '')}/${f}/x.png`
				: where === 'query'
					? `${a}?sig=${f}`
					: where === 'fragment'
						? `${a}#${f}`
						: `${a}?api_key=${f}`,
		);
}

/** Text a field may hold as a user types it or an expression hands it (any string field). */
function textArb(p: INodeProperties, ctx: GenContext, valid = false): fc.Arbitrary<string> {
	const own = [p.default, exampleOf(p)].filter(
		(v): v is string => typeof v === 'string' && v !== '',
	);
	// an amount (its default or example is one): written as people write money, in any currency
	const amount = own.some((v) => /^\d+(\.\d+)?$/.test(v.trim()));
	if (valid) {
		const plain = own.length ? fc.constantFrom(...own) : fc.constantFrom(...WORDS);
		return amount
			? fc.oneof(
					{ weight: 3, arbitrary: plain },
					{ weight: 2, arbitrary: fc.constantFrom(...CURRENCY) },
				)
			: plain;
	}
	return fc.oneof(
		{ weight: 6, arbitrary: own.length ? fc.constantFrom(...own) : fc.constantFrom(...WORDS) },
		{ weight: 3, arbitrary: fc.constantFrom(...WORDS) },
		{ weight: 1, arbitrary: fc.constantFrom(...BLANK) },
		{ weight: 1, arbitrary: fc.constantFrom(...CURRENCY) },
		{ weight: 1, arbitrary: fc.constantFrom('1', '0', ' true ', 'TRUE', 'false', '-1', '1e3') },
		{ weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
		{ weight: 1, arbitrary: fc.constantFrom(...ctx.addresses) },
	);
}

/** One or more addresses as a user types them in an address field: lines, commas, the key, credentials, a local host. */
function addressArb(p: INodeProperties, ctx: GenContext, valid = false): fc.Arbitrary<string> {
	if (valid)
		return fc.oneof(
			{ weight: 3, arbitrary: fc.constant('') },
			fc.constantFrom(...ctx.addresses),
			fc.subarray(ctx.addresses, { minLength: 1 }).map((xs) => xs.join('\n')),
		);
	const one = fc.oneof(
		{ weight: 3, arbitrary: fc.constantFrom(...ctx.addresses) },
		{ weight: 3, arbitrary: keyAddress(ctx) },
		{
			weight: 1,
			arbitrary: fc.constantFrom(
				'https://user:pw@media.example/a.png',
				'http://127.0.0.1/a.png',
				'file:///etc/passwd',
				'not an address',
				'https://media.example/w_100,h_100/a.png',
			),
		},
	);
	return fc.oneof(
		{ weight: 3, arbitrary: one },
		{
			weight: 2,
			arbitrary: fc
				.tuple(
					fc.array(one, { minLength: 2, maxLength: 3 }),
					fc.constantFrom('\n', ',', ', ', '\n\n'),
				)
				.map(([xs, sep]) => xs.join(sep)),
		},
		{ weight: 1, arbitrary: fc.constantFrom(...BLANK) },
		{ weight: 1, arbitrary: textArb(p, ctx) },
	);
}

const BINARY_NAMES = ['data', 'data, data', 'nothing', '', ' data '];

/** Numbers of a number field: valid ones, its bounds and just past them (typeOptions), and beyond. */
function numbersOf(p: INodeProperties, valid = false): fc.Arbitrary<number> {
	const min = p.typeOptions?.minValue as number | undefined;
	const max = p.typeOptions?.maxValue as number | undefined;
	const def = typeof p.default === 'number' ? p.default : 1;
	const whole = p.typeOptions?.numberPrecision === 0 || Number.isInteger(def);
	if (valid)
		return min !== undefined && max !== undefined
			? fc.oneof(
					fc.constantFrom(def, min, max),
					fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
				)
			: fc.constant(def);
	const lo = min ?? Math.min(def, 0) - 10;
	const hi = max ?? Math.max(def * 4, lo + 10);
	const edges = [
		def,
		...(min !== undefined ? [min, min - 1, min - 0.5] : [-1, 0]),
		...(max !== undefined ? [max, max + 1, max + 0.5] : [def * 10 + 1]),
	];
	return fc.oneof(
		{ weight: 3, arbitrary: fc.constantFrom(...edges) },
		{
			weight: 3,
			arbitrary: whole
				? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) })
				: fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }),
		},
	);
}

/** A value as the editor stores it for a field of this kind (typed), or undefined for fields that hold none. */
export function fixedArb(
	f: Field,
	ctx: GenContext,
	valid = false,
): fc.Arbitrary<unknown> | undefined {
	const p = f.prop;
	switch (f.kind) {
		case 'switch':
			return fc.boolean();
		case 'number':
			return numbersOf(p, valid);
		case 'choice': {
			const values = (p.options ?? []).map((o) => (o as { value: unknown }).value);
			return values.length ? fc.constantFrom(...values) : fc.constant(p.default);
		}
		case 'choices': {
			const values = (p.options ?? []).map((o) => (o as { value: unknown }).value);
			return fc.subarray(values);
		}
		case 'text':
			return textArb(p, ctx, valid);
		case 'address':
			return addressArb(p, ctx, valid);
		case 'binary property':
			return valid ? fc.constant(p.default) : fc.constantFrom(...BINARY_NAMES);
		case 'json':
			if (valid) return fc.constant(p.default);
			return fc.oneof(
				{ weight: 4, arbitrary: fc.constant(p.default) },
				{ weight: 1, arbitrary: fc.constantFrom('{}', '{"seed": 3}', 'not json', '[1,2]', '') },
			);
		case 'model':
			return modelArb(p, ctx, valid).map((value) => ({ __rl: true, mode: 'list', value }));
		default:
			return undefined;
	}
}

/** A picker's choices as the editor offers them (its list search), the default, and an ID typed by hand. */
function modelArb(p: INodeProperties, ctx: GenContext, valid = false): fc.Arbitrary<string> {
	const def = (p.default as { value?: unknown } | undefined)?.value;
	const listed = (p.modes ?? []).flatMap((m) => {
		const method = (m.typeOptions as { searchListMethod?: string } | undefined)?.searchListMethod;
		return method ? (ctx.lists[method] ?? []) : [];
	});
	const own = typeof def === 'string' && def ? [def] : [];
	const picked = [
		{
			weight: 4,
			arbitrary: fc.constantFrom(...(own.length ? own : listed.length ? listed : ['x'])),
		},
		{
			weight: 4,
			arbitrary: fc.constantFrom(...(listed.length ? listed : own.length ? own : ['x'])),
		},
	];
	return valid
		? fc.oneof(...picked)
		: fc.oneof(...picked, { weight: 1, arbitrary: fc.constantFrom('no-such-model', '') });
}

/** What an expression can hand a field instead of its typed value: text, numbers, switches, null. */
export function expressionArb(f: Field, ctx: GenContext, valid = false): fc.Arbitrary<unknown> {
	const fixed = fixedArb(f, ctx, valid) ?? fc.constant(f.prop.default);
	const asText = (v: unknown) =>
		typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
	const padded = fixed.chain((v) =>
		fc.constantFrom('', ' ', '  ', '\n').map((pad) => `${pad}${asText(v)}${pad}`),
	);
	const odd = fc.constantFrom<unknown>(
		'',
		' ',
		null,
		'yes',
		'on',
		2,
		-1,
		1,
		0,
		'1',
		'0',
		' true ',
		'TRUE',
		'False',
		'abc',
		'$0.20',
		'¥0.146',
		'¤750000',
	);
	// what n8n users write and the docs promise to read: a number or a switch as (padded) text
	if (valid) return ['number', 'switch'].includes(String(f.kind)) ? fc.oneof(fixed, padded) : fixed;
	return fc.oneof(
		{ weight: 3, arbitrary: fixed },
		{ weight: 2, arbitrary: padded },
		{ weight: 2, arbitrary: odd },
	);
}

// ---- parameter sets ---------------------------------------------------------------------------------------------

/** How one field was given: a value typed in the editor, one expression for every item, or a value per item. */
export type Given =
	| { how: 'fixed'; value: unknown }
	| { how: 'expression'; value: unknown }
	| { how: 'per item'; values: unknown[] };

export interface ParameterSet {
	/** the node's display name */
	node: string;
	typeVersion: number;
	/** how far the set strays (`Level`; a set written by hand has none) */
	level?: Level;
	/** the node's parameters as a workflow stores them (hidden properties left out, as the editor leaves them) */
	parameters: Record<string, unknown>;
	/** the input items' JSON: the values of per-item fields (`v0`, `v1` …) and `task_id` */
	items: IDataObject[];
	/** each field set, by its path joined with '.' (a fixed collection's entry index in brackets) */
	given: Record<string, Given>;
}

/**
 * How far a set strays: every field as the editor's own choices and examples give it ('plain'), the n-th field given
 * astray ('one odd', n drawn up to 11: often none), each field astray one time in five ('a few odd'), or every one.
 */
export type Level = 'plain' | 'one odd' | 'a few odd' | 'any';
const LEVELS: readonly Level[] = [
	'plain',
	'plain',
	'one odd',
	'one odd',
	'one odd',
	'a few odd',
	'any',
];

/**
 * What a property may ask of a set: the levels it is drawn from (weighted by repetition; all of them by default), and
 * `within`: one top-level field generated (`field`, e.g. 'options') over a node's known-good parameters (`base`): every
 * other top-level field is `base`'s value or, not in `base`, its default, and the generated field's displayOptions
 * see those values (an option shown only for a mode is generated exactly when `base` has that mode).
 */
export interface SetShape {
	levels?: readonly Level[];
	within?: { base: Record<string, unknown>; field: string };
}

/** A value as an expression hands it: `={{ <JSON> }}`. */
export const expressionText = (v: unknown) =>
	`={{ ${v === undefined ? 'undefined' : JSON.stringify(v)} }}`;

/**
 * Parameter sets of one node at one version for `items` input items. Fields are walked in the description's order;
 * a field is generated when its displayOptions show it for the values chosen so far (later ones at their defaults);
 * a name displayOptions look at stays a typed value, any other may be an expression or differ by item.
 */
export function parameterSetArb(
	type: INodeType,
	version: number,
	itemCount: number,
	ctx: GenContext,
	shape: SetShape = {},
): fc.Arbitrary<ParameterSet> {
	const d = type.description;
	const within = shape.within;
	const switching = switchingNames(d.properties);
	return fc.gen().map((g) => {
		const items: IDataObject[] = Array.from({ length: itemCount }, () => ({}));
		const given: Record<string, Given> = {};
		let slot = 0;
		// how far a set strays (Level)
		const level = g(() => fc.constantFrom(...(shape.levels ?? LEVELS)));
		// 'one odd': the n-th field given (if there is one) strays, every other is plain
		const oddOne = g(() => fc.nat(11));
		let fieldsGiven = 0;
		const give = (f: Field, key: string): unknown => {
			const odd =
				level === 'any' ||
				(level === 'one odd' && fieldsGiven++ === oddOne) ||
				(level === 'a few odd' && g(() => fc.nat(4)) === 0);
			const how = switching.has(f.prop.name) || f.kind === 'model' ? 0 : g(() => fc.nat(5));
			if (how <= 2 || itemCount === 0) {
				const value = g(() => fixedArb(f, ctx, !odd)!);
				given[key] = { how: 'fixed', value };
				return value;
			}
			if (how === 3) {
				const value = g(() => expressionArb(f, ctx, !odd));
				given[key] = { how: 'expression', value };
				return expressionText(value);
			}
			const name = `v${slot++}`;
			const values = items.map(() => g(() => expressionArb(f, ctx, !odd)));
			// items that agree now and then: the same value on every item
			if (g(() => fc.nat(3)) === 0) values.fill(values[0]);
			items.forEach((it, i) => (it[name] = values[i] as IDataObject[string]));
			given[key] = { how: 'per item', values };
			return `={{ $json.${name} }}`;
		};

		/** One field's value (a collection's or fixed collection's whole value), or undefined: left out. */
		const valueOf = (f: Field, key: string, root: Record<string, unknown>): unknown => {
			const p = f.prop;
			if (f.kind === 'collection') return fill(innerOf(p)[0].props, root, key, 'collection');
			if (f.kind === 'fixed collection') {
				const value: Record<string, unknown> = {};
				const multiple = !!p.typeOptions?.multipleValues;
				for (const grp of innerOf(p)) {
					if (g(() => fc.nat(3)) === 0) continue;
					const count = multiple ? g(() => fc.integer({ min: 0, max: 3 })) : 1;
					const entries = Array.from({ length: count }, (_, i) =>
						fill(grp.props, root, `${key}.${grp.group}${multiple ? `[${i}]` : ''}`, 'group'),
					);
					value[grp.group!] = multiple ? entries : entries[0];
				}
				return value;
			}
			if (f.kind === 'notice' || f.kind === undefined) return undefined;
			if (f.kind === 'hidden') return p.default;
			return give(f, key);
		};
		const fieldAt = (p: INodeProperties, key: string): Field => ({
			path: key.replace(/\[\d+\]/g, '').split('.'),
			prop: p,
			kind: kindOf(p),
		});
		/**
		 * The values of one level: the node's top or a fixed collection's entry in order, each field shown by the values
		 * before it and the defaults of the rest (set or left at its default); a collection's options added or not, then
		 * those its other options hide dropped (an option shown only when it is set itself, kept for old workflows, may be
		 * there).
		 */
		const fill = (
			props: INodeProperties[],
			root: Record<string, unknown> | undefined,
			prefix: string,
			where: 'top' | 'collection' | 'group',
		): Record<string, unknown> => {
			const out: Record<string, unknown> = {};
			const top = root ?? out;
			const keyOf = (p: INodeProperties) => (prefix ? `${prefix}.${p.name}` : p.name);
			if (where === 'collection') {
				const names = [...new Set(props.map((p) => p.name))];
				for (const name of names) {
					if (g(() => fc.nat(2)) === 0) continue;
					const p = props.find((q) => q.name === name)!;
					const v = valueOf(fieldAt(p, keyOf(p)), keyOf(p), top);
					if (v !== undefined) out[name] = v;
				}
				for (let changed = true; changed;) {
					changed = false;
					for (const name of Object.keys(out)) {
						const scope: Scope = { root: top, siblings: out, version };
						if (!props.some((p) => p.name === name && isShown(p, scope, name))) {
							delete out[name];
							for (const k of Object.keys(given))
								if (k === `${prefix}.${name}` || k.startsWith(`${prefix}.${name}.`))
									delete given[k];
							changed = true;
						}
					}
				}
				return out;
			}
			const done = new Set<string>();
			for (const p of props) {
				if (done.has(p.name)) continue;
				const scope: Scope = { root: top, siblings: { ...defaultsOf(props), ...out }, version };
				if (!isShown(p, scope)) continue;
				done.add(p.name);
				// a property generating one field over known-good parameters: the others are those parameters
				if (within && where === 'top' && p.name !== within.field) {
					if (p.name in within.base) out[p.name] = within.base[p.name];
					continue;
				}
				const f = fieldAt(p, keyOf(p));
				const container = f.kind === 'collection' || f.kind === 'fixed collection';
				// a field left at its default (n8n fills it in) or set; a collection is there, maybe empty
				if (!container && where === 'top' && g(() => fc.nat(3)) === 0) continue;
				if (f.kind === 'fixed collection' && g(() => fc.nat(2)) === 0) continue;
				const v = valueOf(f, keyOf(p), top);
				if (v !== undefined) out[p.name] = v;
			}
			return out;
		};
		const parameters = fill(d.properties, undefined, '', 'top');
		// a task ID on every item, as Image Submit and Video Create hand them on (the defaults of Task Wait and others read it)
		items.forEach((it) => {
			it.task_id = g(() =>
				fc.constantFrom('task_unknown_1', 'task-00000000', '', ' ', 'no such/task', ctx.key),
			);
		});
		return { node: d.displayName, typeVersion: version, level, parameters, items, given };
	});
}

function defaultsOf(props: INodeProperties[]): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const p of props) if (!(p.name in out)) out[p.name] = p.default;
	return out;
}

/** Per node (display name): how many fields it has, and how many of each kind, for the report. */
export function coverage(): Record<string, Record<string, number>> {
	const out: Record<string, Record<string, number>> = {};
	for (const n of packageNodes()) {
		const counts: Record<string, number> = {};
		for (const f of fieldsOf(n.description.properties)) {
			const k = f.kind ?? 'none';
			counts[k] = (counts[k] ?? 0) + 1;
			counts.all = (counts.all ?? 0) + 1;
		}
		out[n.description.displayName] = counts;
	}
	return out;
}
