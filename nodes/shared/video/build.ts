/** Turns Video Create's fields into a request body and names each material's prompt token. */
export interface Material {
	type: 'image' | 'video' | 'audio';
	url: string;
	/** how a prompt names it: @图片N, @视频N, @音频N (numbered within its type, in array order) */
	token: string;
}

const TOKEN = { image: '图片', video: '视频', audio: '音频' } as const;
const ITEM = { image: ['image_url', 'reference_image'], video: ['video_url', 'reference_video'], audio: ['audio_url', 'reference_audio'] } as const;

/** A list from an expression (array) or a text field (comma or newline separated). */
export function urlList(v: unknown): string[] {
	if (v === undefined || v === null || v === '') return [];
	if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x.trim() : x)).filter((x) => x !== '') as string[];
	return String(v)
		.split(/[\n,]/)
		.map((s) => s.trim())
		.filter(Boolean);
}

export interface DeltaFields {
	model: string;
	prompt: unknown;
	seconds: unknown;
	resolution: unknown;
	ratio: unknown;
	generateAudio: unknown;
	watermark: unknown;
	images: string[];
	videos: string[];
	audios: string[];
	firstFrame?: string;
	lastFrame?: string;
	seed?: unknown;
	returnLastFrame?: boolean;
	editMode?: boolean;
	extraBody?: Record<string, unknown>;
}

export function buildDeltaBody(f: DeltaFields): { body: Record<string, unknown>; materials: Material[] } {
	const materials: Material[] = [];
	const content: Array<Record<string, unknown>> = [];
	for (const [type, list] of [['image', f.images], ['video', f.videos], ['audio', f.audios]] as const) {
		list.forEach((url, k) => {
			materials.push({ type, url, token: `@${TOKEN[type]}${k + 1}` });
			const [itemType, role] = ITEM[type];
			content.push({ type: itemType, [itemType]: { url }, role });
		});
	}
	const body: Record<string, unknown> = {
		model: f.model,
		prompt: f.prompt,
		seconds: f.editMode && (f.seconds === -1 || f.seconds === '-1') ? -1 : f.seconds,
		resolution: f.resolution,
		ratio: f.ratio,
		generate_audio: f.generateAudio,
		watermark: f.watermark,
	};
	const metadata: Record<string, unknown> = {};
	if (content.length) metadata.content = content;
	if (f.firstFrame) metadata.first_frame_image = f.firstFrame;
	if (f.lastFrame) metadata.last_frame_image = f.lastFrame;
	if (Object.keys(metadata).length) body.metadata = metadata;
	if (f.seed !== undefined && f.seed !== '' && f.seed !== null) body.seed = f.seed;
	if (f.returnLastFrame) body.return_last_frame = true;
	if (f.editMode) body.omni_reference_task_type = 'edit';
	return { body: { ...body, ...(f.extraBody ?? {}) }, materials };
}

export function buildGammaBody(f: { model: string; prompt: unknown; seconds: unknown; aspectRatio: unknown; imageUrls: string[] }): { body: Record<string, unknown>; materials: Material[] } {
	const body: Record<string, unknown> = { model: f.model, prompt: f.prompt, seconds: f.seconds, aspect_ratio: f.aspectRatio };
	if (f.imageUrls.length) body.image_urls = f.imageUrls;
	return { body, materials: f.imageUrls.map((url, k) => ({ type: 'image', url, token: `@${TOKEN.image}${k + 1}` })) };
}
