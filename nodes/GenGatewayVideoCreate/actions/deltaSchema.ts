/**
 * The delta-video body's schema: its rule table registered for the bad-input corpus, the rules of its names and single
 * fields (model, aliases, seconds, resolution, ratio, seed, flags), and the order every rule reports in (the content
 * rules: deltaContent.ts). Also the hint for seconds the form does not offer, sent as asked.
 */
import { z } from 'zod';
import { isObj, type Obj } from '../../shared/jsonObject';
import { bodyRuleSet, violate } from '../../shared/rules/body';
import { mediaUrlProblem } from '../../shared/rules/mediaUrl';
import { deltaEdit, deltaFrames, deltaLists, deltaMedia, deltaPrompt } from './deltaContent';
import { DELTA_RULE_TABLE as DR, type Delta, type Material } from './deltaRules';
import {
	aliasPlaces,
	DELTA_MODELS,
	DELTA_RATIOS,
	DELTA_RESOLUTIONS,
	DELTA_SECONDS,
	DELTA_SEED,
	ONCE,
	OUTSIDE_FORM,
	show,
	type Path,
	type VideoRuleOptions,
} from './schemas';

/** The delta-video body's rules (their examples, for the bad-input corpus: test/fixtures/video-rules.ts). */
export const DELTA_RULES = bodyRuleSet('Video Create delta body', {
	schema: () => deltaSchema(),
	rules: DR,
});

/** The model is a delta-video model; metadata, when given, is an object. */
function deltaModel({ b, add }: Delta): void {
	if (!(DELTA_MODELS as readonly string[]).includes(String(b.model))) add(DR.model, ['model']);
	if (b.metadata !== undefined && !isObj(b.metadata)) add(DR.metadataObject, ['metadata']);
}

/** Rule 1: ratio, never aspect_ratio; one of each alias pair; nothing both at top level and in metadata. */
function deltaNamesOnce({ b, meta, add }: Delta): void {
	if ('aspect_ratio' in b) add(DR.aspectRatio, ['aspect_ratio']);
	if ('aspect_ratio' in meta) add(DR.metadataAspectRatio, ['metadata', 'aspect_ratio']);
	for (const pair of [
		['seconds', 'duration'],
		['resolution', 'size'],
	] as Array<[string, string]>) {
		const places = aliasPlaces(b, meta, pair);
		if (places.length > 1) {
			const same = places.every((p) => String(p.value) === String(places[0].value));
			const where = places.map((p) => show(p.path)).join(', ');
			if (same)
				add(
					DR.aliasRepeated,
					places[1].path,
					`${DR.aliasRepeated.says} (${where}): send one of ${pair.join('/')}, once`,
				);
			else
				add(
					DR.aliasConflict,
					places[1].path,
					`conflicts with ${show(places[0].path)} (${places.map((p) => `${show(p.path)}=${JSON.stringify(p.value)}`).join(', ')}): send one of ${pair.join('/')}`,
				);
		}
	}
	for (const k of ONCE) if (k in meta && k in b) add(DR.once, ['metadata', k]);
}

/** Seconds (or duration): whole, in the form's range unless Send Values Outside the Form, -1 only in edit mode. */
function deltaSeconds({ b, meta, add }: Delta, edit: boolean, outsideForm: boolean | undefined) {
	const sec = aliasPlaces(b, meta, ['seconds', 'duration'])[0];
	if (!sec) return;
	const s =
		typeof sec.value === 'string' && sec.value.trim() !== '' ? Number(sec.value) : sec.value;
	if (typeof s !== 'number' || !Number.isInteger(s))
		add(DR.secondsWhole, sec.path, `${JSON.stringify(sec.value)} ${DR.secondsWhole.says}`);
	else if (outsideForm) {
		// sent as asked: deltaOutsideForm says so in a hint
	} else if (s === -1 && !edit) add(DR.followInputInEditOnly, sec.path);
	else if (s !== -1 && (s < DELTA_SECONDS.min || s > DELTA_SECONDS.max))
		add(DR.secondsRange, sec.path, `${s} ${DR.secondsRange.says}`);
}

/** Resolution (or size): 480p or 720p, saying why another value is not. */
function deltaResolution({ b, meta, add }: Delta): void {
	const res = aliasPlaces(b, meta, ['resolution', 'size'])[0];
	if (!res || DELTA_RESOLUTIONS.includes(String(res.value))) return;
	const v = String(res.value);
	const why = /^\d+\s*[x×*]\s*\d+$/i.test(v)
		? 'is a pixel size: give 480p or 720p'
		: /1080|2k|4k|1440|2160/i.test(v)
			? 'is not supported (1080p, 2K and 4K are not): 480p or 720p'
			: 'is not supported: 480p or 720p';
	add(DR.resolution, res.path, `"${v}" ${why}`);
}

/** Ratio: one of the delta ratios; 'adaptive' only with an image or video input. */
function deltaRatio({ b, meta, add }: Delta, { counts, firsts, lasts }: Material): void {
	const ratio = b.ratio ?? meta.ratio;
	const ratioPath: Path = b.ratio !== undefined ? ['ratio'] : ['metadata', 'ratio'];
	if (ratio !== undefined && !DELTA_RATIOS.includes(String(ratio)))
		add(DR.ratio, ratioPath, `"${String(ratio)}" ${DR.ratio.says}`);
	if (
		ratio === 'adaptive' &&
		!(counts.reference_image || counts.reference_video || firsts || lasts)
	)
		add(
			DR.adaptiveRatio,
			ratioPath,
			`${DR.adaptiveRatio.says} (pure text or pure audio cannot use it)`,
		);
}

/** Seed: an integer in the gateway's range. */
function deltaSeed({ b, meta, add }: Delta): void {
	const seed = b.seed ?? meta.seed;
	if (
		seed !== undefined &&
		(typeof seed !== 'number' ||
			!Number.isInteger(seed) ||
			seed < DELTA_SEED.min ||
			seed > DELTA_SEED.max)
	) {
		add(
			DR.seed,
			b.seed !== undefined ? ['seed'] : ['metadata', 'seed'],
			`${JSON.stringify(seed)}: ${DR.seed.says}`,
		);
	}
}

/** Flags: generate_audio and watermark sent as booleans; return_last_frame a boolean when given. */
function deltaFlags({ b, meta, add }: Delta): void {
	for (const k of ['generate_audio', 'watermark']) {
		const v = b[k] ?? meta[k];
		if (typeof v !== 'boolean') add(v === undefined ? DR.flagSent : DR.flagBoolean, [k]);
	}
	if (b.return_last_frame !== undefined && typeof b.return_last_frame !== 'boolean')
		add(DR.returnLastFrame, ['return_last_frame']);
}

/** The delta-video body's rules in the order they report: every violated rule at once. */
export function deltaSchema(opts: VideoRuleOptions = {}) {
	return z.record(z.unknown()).superRefine((b, ctx) => {
		const d: Delta = {
			b,
			meta: isObj(b.metadata) ? b.metadata : {},
			add: (rule, path, message = rule.says) => violate(ctx, rule, path, message),
			urlProblem: (u) => mediaUrlProblem(u, { containsSecret: opts.containsSecret }),
		};
		deltaModel(d);
		deltaNamesOnce(d);
		const lists = deltaLists(d);
		deltaPrompt(d, lists);
		const media = deltaMedia(d, lists);
		const material: Material = { ...lists, ...media, ...deltaFrames(d, media.refs, media.frames) };
		const edit = deltaEdit(d, material);
		deltaSeconds(d, edit, opts.outsideForm);
		deltaResolution(d);
		deltaRatio(d, material);
		deltaSeed(d);
		deltaFlags(d);
	});
}

/** The hint for delta seconds the form does not offer, sent as asked (Send Values Outside the Form); undefined when offered. */
export function deltaOutsideForm(body: Obj): string | undefined {
	const meta = isObj(body.metadata) ? body.metadata : {};
	const sec = aliasPlaces(body, meta, ['seconds', 'duration'])[0];
	if (!sec) return undefined;
	const s =
		typeof sec.value === 'string' && sec.value.trim() !== '' ? Number(sec.value) : sec.value;
	const edit = body.omni_reference_task_type === 'edit';
	if (
		typeof s !== 'number' ||
		(s === -1 && edit) ||
		(s >= DELTA_SECONDS.min && s <= DELTA_SECONDS.max)
	)
		return undefined;
	return (
		`delta-video: ${s} seconds is not offered by the form (${DELTA_SECONDS.min} to ` +
		`${DELTA_SECONDS.max}${s === -1 ? '; -1 only in Edit Mode' : ''}): sent as asked ` +
		`(${OUTSIDE_FORM} is on); the gateway may refuse it or charge for it`
	);
}
