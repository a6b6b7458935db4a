/** Settlement of delta-video tasks and reference-video detection (pure). */
import {
	groupRatioOf,
	referenceVideoOf,
	settleDeltaFee,
	settlementTokens,
	settlementUsage,
} from '../../nodes/shared/money/lookup';

const MINI = 'delta-video-2-0-mini-260615';
const FAST = 'delta-video-2-0-fast-260128';
const done = (usage: unknown, extra: Record<string, unknown> = {}) => ({
	id: 'vid_1',
	object: 'video',
	model: MINI,
	status: 'completed',
	progress: 100,
	usage,
	...extra,
});

describe('settlement usage', () => {
	it('completion_tokens first, else a valid total_tokens, else nothing', () => {
		expect(settlementUsage({ usage: { completion_tokens: 100, total_tokens: 120 } })).toEqual({
			tokens: 100,
			source: 'usage.completion_tokens',
		});
		expect(settlementUsage({ usage: { total_tokens: 120 } })).toEqual({
			tokens: 120,
			source: 'usage.total_tokens',
		});
		expect(settlementUsage({ usage: { completion_tokens: 0, total_tokens: 77 } })).toEqual({
			tokens: 77,
			source: 'usage.total_tokens',
		});
		expect(settlementUsage({ usage: { completion_tokens: '50400' } })).toEqual({
			tokens: 50400,
			source: 'usage.completion_tokens',
		});
		// the shared task normaliser's camelCase form (Task Wait's JSON)
		expect(settlementUsage({ usage: { completionTokens: 45360, totalTokens: 45360 } })).toEqual({
			tokens: 45360,
			source: 'usage.completionTokens',
		});
		expect(settlementUsage({ usage: { completionTokens: null, totalTokens: 9 } })).toEqual({
			tokens: 9,
			source: 'usage.totalTokens',
		});
		expect(
			settlementUsage({ usage: { completion_tokens: 0, completionTokens: 5, total_tokens: 7 } }),
		).toEqual({ tokens: 5, source: 'usage.completionTokens' });
		for (const bad of [0, -1, 1.5, NaN, Infinity, '', '12a', null, true, 2 ** 60]) {
			expect(
				settlementTokens({ usage: { completion_tokens: bad, total_tokens: bad } }),
			).toBeUndefined();
		}
		expect(settlementTokens({ status: 'completed' })).toBeUndefined();
		expect(settlementTokens(undefined)).toBeUndefined();
	});
});

describe('settleDeltaFee', () => {
	it('settles from completion_tokens with the spec price and group ratio, in whole quota units', () => {
		const s = settleDeltaFee(
			done({ completion_tokens: 45360, total_tokens: 45360 }),
			undefined,
			1.5,
		);
		expect(s).toMatchObject({
			status: 'settled',
			task_id: 'vid_1',
			model: MINI,
			task_status: 'completed',
			tokens: 45360,
			token_source: 'usage.completion_tokens',
			unit_price: 11.638,
			group_ratio: 1.5,
			quota_per_unit: 500000,
		});
		// 45 360 / 1e6 × 11.638 × 1.5 × 500 000 = 395 924.76 → 395 925
		expect(s.fee_quota).toBe(395925);
		expect(s.fee_base).toBe(0.79185);
		expect(s.reference_video_source).toBe('assumed_none');
		expect(s.note).toMatch(/not known, so the higher no-reference-video price was used/);
	});

	it('falls back to a valid total_tokens and says so', () => {
		const s = settleDeltaFee(
			done({ completion_tokens: null, total_tokens: 1_000_000 }),
			undefined,
			1,
			{ withReferenceVideo: true },
		);
		expect(s).toMatchObject({
			status: 'settled',
			tokens: 1_000_000,
			token_source: 'usage.total_tokens',
			unit_price: 7.084,
			fee_quota: 3_542_000,
			with_reference_video: true,
			reference_video_source: 'option',
		});
	});

	it('no trusted usage → needs manual check, never free', () => {
		for (const usage of [
			undefined,
			{},
			{ completion_tokens: 0 },
			{ total_tokens: -5 },
			{ completion_tokens: 'many' },
		]) {
			const s = settleDeltaFee(done(usage), undefined, 1);
			expect(s).toMatchObject({ status: 'needs_manual_check', fee_quota: null, fee_base: null });
			expect(s.note).toMatch(/it is not free/);
		}
		// no status at all but no usage either: still a check, not 0
		expect(settleDeltaFee({ model: MINI }, undefined, 1)).toMatchObject({
			status: 'needs_manual_check',
			fee_quota: null,
		});
	});

	it('running tasks are not settled; failed or cancelled ones are refunded; odd statuses need a check', () => {
		for (const status of ['queued', 'in_progress', 'unknown', 'Processing'])
			expect(settleDeltaFee(done(undefined, { status }), undefined, 1)).toMatchObject({
				status: 'not_finished',
				fee_quota: null,
			});
		for (const status of ['failed', 'cancelled', 'FAILURE'])
			expect(
				settleDeltaFee(done({ completion_tokens: 10 }, { status }), undefined, 1),
			).toMatchObject({ status: 'refunded', fee_quota: 0 });
		expect(
			settleDeltaFee(done({ completion_tokens: 10 }, { status: 'expired' }), undefined, 1),
		).toMatchObject({ status: 'needs_manual_check', fee_quota: null });
	});

	it("reads Task Wait output, wrapped tasks and one model's price pair", () => {
		const taskWait = {
			task_id: 'vid_9',
			kind: 'video',
			origin: 'base',
			model: FAST,
			status: 'completed',
			gateway_status: 'completed',
			usage: { completion_tokens: 100_000, total_tokens: 100_000 },
			files: [],
		};
		expect(settleDeltaFee(taskWait, undefined, 0.8)).toMatchObject({
			status: 'settled',
			task_id: 'vid_9',
			unit_price: 24.42,
			fee_quota: 976_800,
		});
		expect(
			settleDeltaFee(
				{ task: done({ completion_tokens: 1_000_000 }) },
				{ noReferenceVideo: 2, withReferenceVideo: 1 },
				1,
			),
		).toMatchObject({ status: 'settled', task_id: 'vid_1', unit_price: 2, fee_quota: 1_000_000 });
		expect(
			settleDeltaFee(
				{ data: done({ completion_tokens: 1_000_000 }, { model: FAST }) },
				undefined,
				1,
			),
		).toMatchObject({ status: 'settled', unit_price: 24.42 });
	});

	it('detects a reference video on the task; only video references count', () => {
		const withVideo = done({ completion_tokens: 1_000_000 }, { with_reference_video: true });
		expect(settleDeltaFee(withVideo, undefined, 1)).toMatchObject({
			unit_price: 7.084,
			reference_video_source: 'with_reference_video',
		});
		expect(settleDeltaFee(withVideo, undefined, 1, { withReferenceVideo: false })).toMatchObject({
			unit_price: 11.638,
			reference_video_source: 'option',
		});
		const imageAndAudio = done(
			{ completion_tokens: 1_000_000 },
			{
				materials: [
					{ type: 'image', url: 'https://m/a.png' },
					{ type: 'audio', url: 'https://m/a.mp3' },
				],
			},
		);
		expect(settleDeltaFee(imageAndAudio, undefined, 1)).toMatchObject({
			unit_price: 11.638,
			with_reference_video: false,
			reference_video_source: 'materials',
		});
	});

	it('a model without a unit price needs a check; a bad group ratio is refused', () => {
		expect(
			settleDeltaFee(done({ completion_tokens: 10 }, { model: 'gamma-video-1.0' }), undefined, 1),
		).toMatchObject({
			status: 'needs_manual_check',
			note: expect.stringMatching(/no delta-video unit price for model "gamma-video-1.0"/),
		});
		expect(
			settleDeltaFee(done({ completion_tokens: 10 }, { model: undefined }), undefined, 1).note,
		).toMatch(/names no model/);
		expect(() => settleDeltaFee(done({ completion_tokens: 10 }), undefined, 0)).toThrow(/never 0/);
		expect(() => settleDeltaFee(done({ completion_tokens: 10 }), undefined, -1)).toThrow(/never 0/);
	});

	it('follows quota_per_unit', () => {
		expect(
			settleDeltaFee(done({ completion_tokens: 1_000_000 }), undefined, 1, {
				quotaPerUnit: 1_000_000,
			}),
		).toMatchObject({ fee_quota: 11_638_000, fee_base: 11.638 });
	});
});

describe('referenceVideoOf', () => {
	it('Video Create output, materials, delta create bodies; image/audio/frames are no reference video', () => {
		expect(
			referenceVideoOf({ with_reference_video: false, materials: [{ type: 'video' }] }),
		).toEqual({ withReferenceVideo: false, source: 'with_reference_video' });
		expect(referenceVideoOf({ materials: [{ type: 'image' }, { type: 'video' }] })).toEqual({
			withReferenceVideo: true,
			source: 'materials',
		});
		const content = (items: unknown[]) => ({ model: 'm', metadata: { content: items } });
		expect(
			referenceVideoOf(
				content([
					{ type: 'text', text: 'x' },
					{ type: 'video_url', video_url: { url: 'https://m/v.mp4' }, role: 'reference_video' },
				]),
			),
		).toEqual({ withReferenceVideo: true, source: 'metadata.content' });
		expect(
			referenceVideoOf(
				content([
					{ type: 'image_url', image_url: { url: 'https://m/a.png' }, role: 'reference_image' },
					{ type: 'audio_url', audio_url: { url: 'https://m/a.mp3' }, role: 'reference_audio' },
				]),
			),
		).toEqual({ withReferenceVideo: false, source: 'metadata.content' });
		expect(
			referenceVideoOf(
				content([
					{ type: 'image_url', role: 'first_frame' },
					{ type: 'image_url', role: 'last_frame' },
				]),
			)?.withReferenceVideo,
		).toBe(false);
		expect(referenceVideoOf({ prompt: 'x', images: ['https://m/a.png'] })).toEqual({
			withReferenceVideo: false,
			source: 'images',
		});
		expect(referenceVideoOf({ body: content([{ type: 'video_url' }]) })).toEqual({
			withReferenceVideo: true,
			source: 'body.metadata.content',
		});
		expect(referenceVideoOf({ prompt: 'just text' })).toBeUndefined();
		expect(referenceVideoOf('text')).toBeUndefined();
	});
});

describe('groupRatioOf', () => {
	it('a named group without a positive ratio is unknown, never 0', () => {
		expect(groupRatioOf({ default: 1, vip: '0.8', zero: 0 }, 'vip')).toBe(0.8);
		expect(groupRatioOf({ default: 1 }, 'promo')).toBeUndefined();
		expect(groupRatioOf({ zero: 0 }, 'zero')).toBeUndefined();
		expect(groupRatioOf({}, 'toString')).toBeUndefined();
	});
});
