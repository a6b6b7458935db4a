/**
 * The gamma-video body's rules: its rule table (registered for the bad-input corpus), the schema that checks them in
 * order (model and prompt, seconds, reference images, aspect ratio), and the hints for values the spec does not prefer.
 */
import { z } from 'zod';
import type { Obj } from '../../shared/jsonObject';
import { bodyRuleSet, violate } from '../../shared/rules/body';
import { mediaUrlProblem } from '../../shared/rules/mediaUrl';
import {
	GAMMA_15_PREFERRED_RATIOS,
	GAMMA_ASPECT_RATIOS,
	GAMMA_MAX_REFERENCES,
	GAMMA_MODELS,
	GAMMA_SECONDS,
	GAMMA_UNCONFIRMED_SECONDS,
	OUTSIDE_FORM,
	SEND_ANYWAY,
	type Add,
	type VideoRuleOptions,
} from './schemas';

export interface GammaRuleOptions extends VideoRuleOptions {
	/** files sent beside the body (multipart input_reference); they count as reference images */
	files?: number;
}

/**
 * What the spec prefers for gamma, as execution hints: a value the form does not offer reaches here only with Send
 * Values Outside the Form on (else the schema refuses it), and 1:1 on gamma-video-1.5 is offered but not preferred.
 */
export function gammaPreferenceHints(body: Obj): string[] {
	const hints: string[] = [];
	const s = Number(body.seconds);
	const sent = `sent as asked (${OUTSIDE_FORM} is on); the gateway may refuse it, adjust it, or charge for it`;
	if (body.seconds !== undefined && s === GAMMA_UNCONFIRMED_SECONDS)
		hints.push(
			`gamma-video: ${GAMMA_UNCONFIRMED_SECONDS} seconds passes the gateway's ` +
				`validation but is not confirmed upstream, and the form does not offer it ` +
				`(${GAMMA_SECONDS.join(', ')}): ${sent}`,
		);
	else if (body.seconds !== undefined && !(GAMMA_SECONDS as readonly number[]).includes(s))
		hints.push(
			`gamma-video: ${s} seconds is not offered by the form (${GAMMA_SECONDS.join(', ')}): ${sent}`,
		);
	const ratio = body.aspect_ratio === undefined ? undefined : String(body.aspect_ratio);
	if (ratio !== undefined && !GAMMA_ASPECT_RATIOS.includes(ratio))
		hints.push(
			`gamma-video: aspect ratio ${ratio} is not offered by the form (${GAMMA_ASPECT_RATIOS.join(', ')}): ${sent}`,
		);
	else if (
		body.model === 'gamma-video-1.5' &&
		ratio !== undefined &&
		!GAMMA_15_PREFERRED_RATIOS.includes(ratio)
	)
		hints.push(
			`gamma-video-1.5: ${GAMMA_15_PREFERRED_RATIOS.join(' or ')} are preferred over ${ratio}`,
		);
	return hints;
}

/** The gamma-video body's rules (their examples, for the bad-input corpus: test/fixtures/video-rules.ts). */
export const GAMMA_RULES = bodyRuleSet('Video Create gamma body', {
	schema: () => gammaSchema(),
	rules: {
		model: { field: 'model', says: `must be ${GAMMA_MODELS.join(' or ')}` },
		promptText: { field: 'prompt', says: 'must be text' },
		promptNotEmpty: { field: 'prompt', says: 'must not be empty' },
		noRatio: { field: 'ratio', says: "gamma-video uses 'aspect_ratio', not 'ratio'" },
		secondsWhole: { field: 'seconds', says: 'must be a whole number of seconds' },
		secondsOffered: {
			field: 'seconds',
			says: `is not one the form offers (${GAMMA_SECONDS.join(', ')}; ${SEND_ANYWAY})`,
		},
		imageUrlsList: { field: 'image_urls', says: 'must be a list of addresses' },
		imageUrl: { field: 'image_urls[0]', says: 'must be an http(s):// address' },
		maxReferences: { field: 'image_urls', says: `: at most ${GAMMA_MAX_REFERENCES}` },
		severalReferences10s: {
			field: 'seconds',
			says: 'gamma-video-1.0 with several reference images allows at most 10 seconds',
		},
		aspectRatioText: { field: 'aspect_ratio', says: 'must be a ratio text such as 16:9' },
		aspectRatioOffered: {
			field: 'aspect_ratio',
			says: `is not one the form offers (${GAMMA_ASPECT_RATIOS.join(', ')}; ${SEND_ANYWAY})`,
		},
	},
});

/** the gamma rules, as the rule functions below name them */
const R = GAMMA_RULES;

/** Model and prompt: a gamma-video model, a non-empty prompt, and no delta 'ratio'. */
function gammaModel(b: Obj, add: Add): void {
	if (!(GAMMA_MODELS as readonly string[]).includes(String(b.model))) add(R.model, ['model']);
	if (typeof b.prompt !== 'string')
		add(b.prompt === undefined ? R.promptNotEmpty : R.promptText, ['prompt']);
	else if (!b.prompt.trim()) add(R.promptNotEmpty, ['prompt']);
	if ('ratio' in b) add(R.noRatio, ['ratio']);
}

/** Seconds: whole, and one the form offers unless Send Values Outside the Form; returns them when given. */
function gammaSeconds(b: Obj, add: Add, opts: GammaRuleOptions): number | undefined {
	if (b.seconds === undefined) return undefined;
	const s =
		typeof b.seconds === 'string' && b.seconds.trim() !== ''
			? Number(b.seconds)
			: (b.seconds as number);
	if (typeof s !== 'number' || !Number.isInteger(s) || s < 1)
		add(
			R.secondsWhole,
			['seconds'],
			`${JSON.stringify(b.seconds)}: ${R.secondsWhole.says} (${GAMMA_SECONDS.join(', ')} are preferred)`,
		);
	else if (!opts.outsideForm && !(GAMMA_SECONDS as readonly number[]).includes(s))
		add(R.secondsOffered, ['seconds'], `${s} ${R.secondsOffered.says}`);
	return s;
}

/** Reference images: a list of http(s) addresses, at most 7 with the files sent beside; returns how many in all. */
function gammaReferences(b: Obj, add: Add, opts: GammaRuleOptions): number {
	let urls: unknown[] = [];
	if (b.image_urls !== undefined) {
		if (Array.isArray(b.image_urls)) urls = b.image_urls;
		else add(R.imageUrlsList, ['image_urls']);
	}
	for (const [i, u] of urls.entries()) {
		const p = mediaUrlProblem(u, { allowHttp: true, containsSecret: opts.containsSecret });
		if (p) add(R.imageUrl, ['image_urls', i], p);
	}
	const files = opts.files ?? 0;
	const count = urls.length + files;
	if (count > GAMMA_MAX_REFERENCES)
		add(
			R.maxReferences,
			['image_urls'],
			`${count} reference images${files ? ` (incl. ${files} input_reference file)` : ''}${R.maxReferences.says}`,
		);
	return count;
}

/** Aspect ratio: a ratio text, and one the form offers unless Send Values Outside the Form. */
function gammaAspectRatio(b: Obj, add: Add, opts: GammaRuleOptions): void {
	if (b.aspect_ratio === undefined) return;
	if (typeof b.aspect_ratio !== 'string' || !b.aspect_ratio.trim())
		add(
			R.aspectRatioText,
			['aspect_ratio'],
			`${JSON.stringify(b.aspect_ratio)}: ${R.aspectRatioText.says}`,
		);
	else if (!opts.outsideForm && !GAMMA_ASPECT_RATIOS.includes(b.aspect_ratio))
		add(R.aspectRatioOffered, ['aspect_ratio'], `${b.aspect_ratio} ${R.aspectRatioOffered.says}`);
}

/** The gamma-video body's rules in the order they report: every violated rule at once. */
export function gammaSchema(opts: GammaRuleOptions = {}) {
	return z.record(z.unknown()).superRefine((b, ctx) => {
		const add: Add = (rule, path, message = rule.says) => violate(ctx, rule, path, message);
		gammaModel(b, add);
		const s = gammaSeconds(b, add, opts);
		const count = gammaReferences(b, add, opts);
		if (b.model === 'gamma-video-1.0' && count > 1 && s !== undefined && s > 10)
			add(R.severalReferences10s, ['seconds'], `${s}: ${R.severalReferences10s.says}`);
		gammaAspectRatio(b, add, opts);
	});
}
