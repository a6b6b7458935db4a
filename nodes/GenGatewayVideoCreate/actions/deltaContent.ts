/**
 * The delta-video body's content rules: its lists (metadata.content, the images shorthand), its one prompt, its media
 * items and how many of each, its frames, and edit mode's one reference video. deltaSchema.ts runs them in order.
 */
import { isObj, type Obj } from '../../shared/jsonObject';
import { DELTA_RULE_TABLE as DR, type Delta, type Material } from './deltaRules';
import { codePoints, DELTA_LIMITS, DELTA_PROMPT_MAX, MEDIA_TYPES, type Path } from './schemas';

/** Rules 4 and 8: metadata.content and the images shorthand are lists, and not both; returns them. */
export function deltaLists({ b, meta, add }: Delta): Pick<Material, 'content' | 'images'> {
	let content: unknown[] | undefined;
	if (meta.content !== undefined) {
		if (Array.isArray(meta.content)) content = meta.content;
		else
			add(
				DR.contentList,
				['metadata', 'content'],
				`${DR.contentList.says} {type, <type>: {url}, role}`,
			);
	}
	let images: unknown[] = [];
	if (b.images !== undefined) {
		if (Array.isArray(b.images)) images = b.images;
		else add(DR.imagesList, ['images']);
		if (content) add(DR.imagesWithContent, ['images']);
	}
	return { content, images };
}

/** Prompt: one text source (prompt or one text item), non-empty, at most 6000 characters. */
export function deltaPrompt(
	{ b, add }: Delta,
	{ content, images }: Pick<Material, 'content' | 'images'>,
) {
	const textIdx = (content ?? []).flatMap((c, i) => (isObj(c) && c.type === 'text' ? [i] : []));
	if (textIdx.length > 1)
		add(DR.textItems, ['metadata', 'content'], `holds ${textIdx.length} ${DR.textItems.says}`);
	if (textIdx.length && b.prompt !== undefined)
		add(
			DR.promptWithText,
			['prompt'],
			`${DR.promptWithText.says} in metadata.content: use one of them`,
		);
	if (textIdx.length && images.length) add(DR.imagesWithText, ['images']);
	let promptText: string | undefined = '';
	let promptPath: Path = ['prompt'];
	if (b.prompt !== undefined) promptText = typeof b.prompt === 'string' ? b.prompt : undefined;
	else if (textIdx.length) {
		const text = (content![textIdx[0]] as Obj).text;
		promptPath = ['metadata', 'content', textIdx[0], 'text'];
		promptText = typeof text === 'string' ? text : undefined;
	}
	if (promptText === undefined) {
		add(DR.promptText, promptPath);
		promptText = '';
	} else if (!promptText.trim()) add(DR.promptNotEmpty, promptPath);
	const promptLength = codePoints(promptText);
	if (promptLength > DELTA_PROMPT_MAX)
		add(DR.promptLength, promptPath, `is ${promptLength} ${DR.promptLength.says}`);
}

/** The media counts of a body, frames included (they are not references). */
type Counts = Material['counts'] & { first_frame: number; last_frame: number };

/** Rule 5: one content item's type, inner object, address and role; a valid role is counted. */
function deltaItem({ add, urlProblem }: Delta, c: unknown, i: number, counts: Counts): void {
	if (!isObj(c)) {
		add(DR.itemObject, ['metadata', 'content', i]);
		return;
	}
	if (c.type === 'text') return;
	const t = String(c.type);
	if (!(t in MEDIA_TYPES)) {
		add(DR.itemType, ['metadata', 'content', i, 'type'], `"${t}" ${DR.itemType.says}`);
		return;
	}
	const inner = c[t];
	if (!isObj(inner)) add(DR.itemInner, ['metadata', 'content', i, t]);
	else {
		const p = urlProblem(inner.url);
		if (p) add(DR.itemUrl, ['metadata', 'content', i, t, 'url'], p);
	}
	const roles = MEDIA_TYPES[t as keyof typeof MEDIA_TYPES] as readonly string[];
	if (!roles.includes(String(c.role)))
		add(DR.itemRole, ['metadata', 'content', i, 'role'], `must be ${roles.join(' or ')} for ${t}`);
	else counts[c.role as keyof Counts]++;
}

/** Rule 6: at most so many references of each kind, and in all; returns how many in all. */
function deltaLimits({ add }: Delta, counts: Counts, imagesPath: Path): number {
	const tooMany = {
		reference_image: DR.tooManyImages,
		reference_video: DR.tooManyVideos,
		reference_audio: DR.tooManyAudios,
	};
	for (const k of ['reference_image', 'reference_video', 'reference_audio'] as const) {
		if (counts[k] > DELTA_LIMITS[k])
			add(
				tooMany[k],
				k === 'reference_image' ? imagesPath : ['metadata', 'content'],
				`${counts[k]} ${tooMany[k].says}`,
			);
	}
	const refs = counts.reference_image + counts.reference_video + counts.reference_audio;
	// the spec's "prompt plus materials at most 13 items" follows from this while frames exclude references
	if (refs > DELTA_LIMITS.total)
		add(DR.tooManyReferences, ['metadata', 'content'], `${refs} ${DR.tooManyReferences.says}`);
	return refs;
}

/** Rules 4 to 6: each media item (content items, then the images shorthand), then the number of references. */
export function deltaMedia(
	d: Delta,
	{ content, images }: Pick<Material, 'content' | 'images'>,
): Pick<Material, 'counts' | 'refs'> & { frames: { first: number; last: number } } {
	const counts: Counts = {
		reference_image: 0,
		reference_video: 0,
		reference_audio: 0,
		first_frame: 0,
		last_frame: 0,
	};
	for (const [i, c] of (content ?? []).entries()) deltaItem(d, c, i, counts);
	for (const [i, u] of images.entries()) {
		const p = d.urlProblem(u);
		if (p) d.add(DR.imagesUrl, ['images', i], p);
	}
	counts.reference_image += images.length;
	const imagesPath: Path = images.length && !content ? ['images'] : ['metadata', 'content'];
	const refs = deltaLimits(d, counts, imagesPath);
	const { first_frame: first, last_frame: last, ...references } = counts;
	return { counts: references, refs, frames: { first, last } };
}

/** Rule 7: first and last frames together, one each, never with references; returns how many of each. */
export function deltaFrames(
	{ meta, add, urlProblem }: Delta,
	refs: number,
	inContent: { first: number; last: number },
): Pick<Material, 'firsts' | 'lasts'> {
	for (const k of ['first_frame_image', 'last_frame_image']) {
		if (meta[k] !== undefined) {
			const p = urlProblem(meta[k]);
			if (p) add(DR.frameUrl, ['metadata', k], p);
		}
	}
	const firsts = inContent.first + (meta.first_frame_image !== undefined ? 1 : 0);
	const lasts = inContent.last + (meta.last_frame_image !== undefined ? 1 : 0);
	if (firsts || lasts) {
		if (firsts === 0 || lasts === 0)
			add(
				DR.frameAlone,
				['metadata', firsts ? 'last_frame_image' : 'first_frame_image'],
				`${DR.frameAlone.says}, give both first and last frame`,
			);
		else if (firsts > 1 || lasts > 1)
			add(
				DR.frameTwice,
				['metadata', firsts > 1 ? 'first_frame_image' : 'last_frame_image'],
				`${DR.frameTwice.says}: one first frame and one last frame`,
			);
		if (refs) add(DR.framesWithReferences, ['metadata', 'first_frame_image']);
	}
	return { firsts, lasts };
}

/** Rule 3: edit mode is 'edit' when given, with exactly one reference video and nothing else; returns whether on. */
export function deltaEdit({ b, add }: Delta, { counts, firsts, lasts }: Material): boolean {
	const edit = b.omni_reference_task_type === 'edit';
	if (b.omni_reference_task_type !== undefined && !edit)
		add(DR.editValue, ['omni_reference_task_type']);
	if (
		edit &&
		(counts.reference_video !== 1 ||
			counts.reference_image ||
			counts.reference_audio ||
			firsts ||
			lasts)
	) {
		add(
			DR.editMaterial,
			['omni_reference_task_type'],
			`${DR.editMaterial.says} (got ${counts.reference_video} video(s), ` +
				`${counts.reference_image} image(s), ${counts.reference_audio} ` +
				`audio${firsts || lasts ? ', frames' : ''})`,
		);
	}
	return edit;
}
