/**
 * The one set of option rules every node shares: numbers (timeouts, deadlines, sizes, concurrency, multipliers,
 * sampling) and yes/no switches.
 *
 * A number option accepts a number or a text holding one ("30" from a sheet, " 2.5 "), as n8n reads its own number
 * fields. A yes/no option accepts true or false, the text "true" or "false" (any case, spaces around), and 1 or 0 (as
 * a number or text), as n8n reads its own boolean fields. Empty text, null and undefined mean "not set" (the option's
 * default). Anything else ("abc", NaN, Infinity, true for a number, "yes" or 2 for a switch) is refused naming the
 * field and the rule: never a silent default.
 */
import { z } from 'zod';
import { shown, type Rule } from './rule';

export const MAX_CONCURRENCY_CAP = 64;

export type NumberRule = Rule<number | undefined>;

const isUnset = (v: unknown) =>
	v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** Numeric text read as the number it holds (" 30 " → 30); anything else is returned as it came (its rule refuses it). */
export function numericText(v: unknown): unknown {
	if (typeof v !== 'string' || v.trim() === '') return v;
	const n = Number(v.trim());
	return Number.isFinite(n) ? n : v;
}

/** A number rule: what it says when it refuses, what it accepts, its good and bad examples. */
export function numberRule(
	says: string,
	accepts: (n: number) => boolean,
	good: unknown[],
	bad: unknown[],
	opts: { required?: boolean } = {},
): NumberRule {
	const schema = z.unknown().transform((raw, ctx): number | undefined => {
		if (isUnset(raw) && !opts.required) return undefined;
		const n = isUnset(raw) ? undefined : numericText(raw);
		if (typeof n === 'number' && Number.isFinite(n) && accepts(n)) return n;
		ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${says} (got ${shown(raw)})` });
		return z.NEVER;
	});
	return { schema, good, bad: bad.map((value) => ({ value, says })) };
}

export const OPTION_RULES = {
	minutes: numberRule(
		'must be a positive number of minutes',
		(n) => n > 0,
		[30, '30', 0.5, ''],
		[0, -5, 'abc', Number.NaN, Number.NEGATIVE_INFINITY, true],
	),
	seconds: numberRule(
		'must be 0 (no limit) or a positive number of seconds',
		(n) => n >= 0,
		[0, 90, '90'],
		[-1, 'a minute', Number.NaN, Number.POSITIVE_INFINITY],
	),
	positiveSeconds: numberRule(
		'must be a positive number of seconds',
		(n) => n > 0,
		[30, '30', 0.5],
		[0, -1, 'soon', Number.NaN, Number.POSITIVE_INFINITY],
	),
	milliseconds: numberRule(
		'must be a positive number of milliseconds',
		(n) => n > 0,
		[120_000, '5000'],
		[0, -1000, 'soon', Number.NaN, Number.POSITIVE_INFINITY],
	),
	mebibytes: numberRule(
		'must be a positive number of MiB',
		(n) => n > 0,
		[2048, '512', 0.5],
		[0, -1, 'big', Number.NaN],
	),
	concurrency: numberRule(
		`must be a whole number from 1 to ${MAX_CONCURRENCY_CAP}`,
		(n) => Number.isInteger(n) && n >= 1 && n <= MAX_CONCURRENCY_CAP,
		[1, 16, '8', MAX_CONCURRENCY_CAP],
		[0, -3, 1.5, MAX_CONCURRENCY_CAP + 1, 'many', Number.NaN, Number.POSITIVE_INFINITY],
	),
	multiplierOrZero: numberRule(
		'must be a positive number, or 0 when not known (an unknown multiplier is never 0: the fee is then given at multiplier 1)',
		(n) => n >= 0,
		[0, '0', 1, '1.5'],
		[-1, 'double', Number.POSITIVE_INFINITY],
	),
	/** a spend cap, in the site's quota units */
	quota: numberRule(
		'must be a positive number of ¤ (site quota units)',
		(n) => n > 0,
		[16000, '500000', 0.5],
		[0, -1, 'lots', Number.NaN, Number.POSITIVE_INFINITY],
	),
	/** a whole number (Seed); the request's own rule holds its range */
	wholeNumber: numberRule(
		'must be a whole number',
		(n) => Number.isInteger(n),
		[-1, 0, '42', 4294967295],
		[1.5, 'lucky', Number.NaN, Number.POSITIVE_INFINITY],
	),
	/** a count the fee is computed from: required */
	tokens: numberRule(
		'must be a number of 0 or more',
		(n) => n >= 0,
		[0, 1_000_000, '250000'],
		[-5, 'many', Number.NaN, ''],
		{ required: true },
	),
} satisfies Record<string, NumberRule>;

const FLAG_SAYS = 'must be true or false (the text "true" or "false", or 1 or 0)';
const FLAG_TEXT: Record<string, boolean> = { true: true, false: false, '1': true, '0': false };

/** A yes/no option: true/false, "true"/"false" in any case, 1/0 or "1"/"0"; not set → undefined (the default applies). */
export const FLAG_RULE: Rule<boolean | undefined> = {
	schema: z.unknown().transform((raw, ctx): boolean | undefined => {
		if (isUnset(raw)) return undefined;
		if (typeof raw === 'boolean') return raw;
		if (raw === 1 || raw === 0) return raw === 1;
		const read = typeof raw === 'string' ? FLAG_TEXT[raw.trim().toLowerCase()] : undefined;
		if (read !== undefined) return read;
		ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${FLAG_SAYS} (got ${shown(raw)})` });
		return z.NEVER;
	}),
	good: [true, false, 'true', ' FALSE ', 'True', 1, 0, '1', '0', ''],
	bad: [
		{ value: 'yes', says: FLAG_SAYS },
		{ value: 'flase', says: FLAG_SAYS },
		{ value: 2, says: FLAG_SAYS },
		{ value: 'on', says: FLAG_SAYS },
	],
};

const KEY_GROUP_SAYS =
	"must be the key's group name (letters, digits, _ or -, e.g. vip) or its multiplier above 0 (e.g. 1.5)";

/** The credential's Key's Group: a multiplier above 0 (" 1.5 "), or a group name ("vip"); empty → not set. */
export const KEY_GROUP_RULE: Rule<{ ratio: number } | { groupName: string } | undefined> = {
	schema: z.unknown().transform((raw, ctx) => {
		if (isUnset(raw)) return undefined;
		const t = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
		const n = Number(t);
		if (/^[0-9.]+$/.test(t) && Number.isFinite(n) && n > 0) return { ratio: n };
		if (/^[A-Za-z_][\w-]{0,63}$/.test(t)) return { groupName: t };
		ctx.addIssue({ code: z.ZodIssueCode.custom, message: `${KEY_GROUP_SAYS} (got ${shown(raw)})` });
		return z.NEVER;
	}),
	good: ['', 'vip', ' default ', '1.5', 0.8],
	bad: [
		{ value: '0', says: KEY_GROUP_SAYS },
		{ value: '-1', says: KEY_GROUP_SAYS },
		{ value: 'my group', says: KEY_GROUP_SAYS },
	],
};

/** Reads one option where a bad value is reported elsewhere (per item): undefined when it is not set or breaks its rule. */
export function readOption(rule: NumberRule, v: unknown): number | undefined {
	const r = rule.schema.safeParse(v);
	return r.success ? r.data : undefined;
}
