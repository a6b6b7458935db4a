/**
 * Delta-video settlement: "Fee = tokens / 1,000,000 x unit price x group multiplier". The key's group is chosen in the
 * console and no public endpoint tells it, so the multiplier is known only when the user gives it (or names the group,
 * whose ratio the public group_ratio holds). Otherwise the figure is labelled at_multiplier_1, never settled.
 * Task states are read with the one status vocabulary of status.ts.
 */
import { GenGatewayPricing } from '../../nodes/GenGatewayPricing/GenGatewayPricing.node';
import { settleDeltaFee } from '../../nodes/shared/money/lookup';
import {
	normaliseVideoTask,
	VIDEO_STATUS_WORDS,
	videoStatusPhase,
} from '../../nodes/shared/tasks/phases';
import { cleanupBinaryData, runWorkflow } from '../harness/workflow';
import { credsFor, startGateway, type FakeGateway } from './support/gateway';

const MINI = 'delta-video-2-0-mini-260615';
const done = (extra: Record<string, unknown> = {}) => ({
	id: 'vid_1',
	object: 'video',
	model: MINI,
	status: 'completed',
	progress: 100,
	usage: { completion_tokens: 45360, total_tokens: 45360 },
	...extra,
});

describe('the group multiplier of a settled fee', () => {
	it('known: settled at that multiplier (the ledger of a key in a 1.5 group)', () => {
		expect(settleDeltaFee(done(), undefined, 1.5)).toMatchObject({
			status: 'settled',
			group_ratio: 1.5,
			fee_quota: 395925,
		});
	});

	it('unknown: the same figure at multiplier 1, labelled at_multiplier_1, never settled', () => {
		const s = settleDeltaFee(done(), undefined, undefined);
		expect(s).toMatchObject({
			status: 'at_multiplier_1',
			group_ratio: null,
			fee_quota: 263950,
			fee_base: 0.5279,
			unit_price: 11.638,
		});
		expect(s.note).toMatch(
			/at group multiplier 1.*not the settled fee; the charge is this × that multiplier/,
		);
	});

	it('a multiplier that is given must be positive (an unknown multiplier is never 0)', () => {
		for (const bad of [0, -1, Number.NaN])
			expect(() => settleDeltaFee(done(), undefined, bad)).toThrow(
				/groupRatio: must be a positive number, or undefined when not known/,
			);
	});

	it('states that carry no fee stay unlabelled by the multiplier', () => {
		expect(settleDeltaFee(done({ status: 'in_progress' }), undefined, undefined)).toMatchObject({
			status: 'not_finished',
			fee_quota: null,
		});
		expect(settleDeltaFee(done({ status: 'failed' }), undefined, undefined)).toMatchObject({
			status: 'refunded',
			fee_quota: 0,
		});
	});
});

describe('one status vocabulary', () => {
	const expected = { pending: 'not_finished', succeeded: 'settled', failed: 'refunded' } as const;

	it('every word the status normaliser knows settles by its phase (expired: checked by hand, never refunded)', () => {
		for (const [phase, words] of Object.entries(VIDEO_STATUS_WORDS)) {
			for (const word of words) {
				for (const w of [word, word.toUpperCase()]) {
					expect(normaliseVideoTask(done({ status: w })).phase).toBe(phase);
					const s = settleDeltaFee(done({ status: w }), undefined, 1);
					expect([w, s.status]).toEqual([
						w,
						word === 'expired' ? 'needs_manual_check' : expected[phase as keyof typeof expected],
					]);
				}
			}
		}
		expect(settleDeltaFee(done({ status: 'expired' }), undefined, 1).note).toMatch(
			/^the task expired/,
		);
	});

	it('a word outside the vocabulary needs a check (it is never free and never refunded)', () => {
		expect(videoStatusPhase('paused')).toBeUndefined();
		expect(settleDeltaFee(done({ status: 'paused' }), undefined, 1)).toMatchObject({
			status: 'needs_manual_check',
			fee_quota: null,
			note: expect.stringMatching(/unrecognised task status "paused"/),
		});
	});

	it("Task Wait's JSON is read by the gateway's status: a completed task whose download failed is not refunded", () => {
		const waitFailedDownload = {
			task_id: 'vid_1',
			kind: 'video',
			model: MINI,
			status: 'failed',
			failed_at: 'download',
			gateway_status: 'completed',
		};
		expect(settleDeltaFee(waitFailedDownload, undefined, 1)).toMatchObject({
			status: 'needs_manual_check',
			task_status: 'completed',
			fee_quota: null,
		});
		const waitCompleted = {
			task_id: 'vid_1',
			kind: 'video',
			model: MINI,
			status: 'completed',
			gateway_status: 'completed',
			usage: { completionTokens: 45360 },
		};
		expect(settleDeltaFee(waitCompleted, undefined, 1.5)).toMatchObject({
			status: 'settled',
			fee_quota: 395925,
		});
		const waitRunning = {
			task_id: 'vid_1',
			kind: 'video',
			model: MINI,
			status: 'running',
			gateway_status: null,
		};
		expect(settleDeltaFee(waitRunning, undefined, 1)).toMatchObject({ status: 'not_finished' });
	});

	it('an uncertain submission needs a check of the records', () => {
		const uncertain = { task_id: null, model: MINI, status: 'queued', submission_uncertain: true };
		expect(settleDeltaFee(uncertain, undefined, 1)).toMatchObject({
			status: 'needs_manual_check',
			note: expect.stringMatching(/submission outcome is unknown/),
		});
	});
});

describe('Pricing node: Settle Task and Estimate Video Cost', () => {
	let gw: FakeGateway;
	beforeAll(async () => {
		gw = await startGateway();
	});
	afterAll(async () => {
		await gw.stop();
		cleanupBinaryData();
	});
	beforeEach(() => {
		gw.reset();
		gw.on('GET', /^\/api\/pricing$/, () => ({
			json: {
				success: true,
				data: [],
				group_ratio: { default: 1, hd: 1.5 },
				usable_group: { default: 'Default', hd: 'HD' },
			},
		}));
	});
	const run = async (parameters: Record<string, unknown>) => {
		const r = await runWorkflow({
			nodes: [
				{
					name: 'Pricing',
					type: new GenGatewayPricing(),
					parameters,
					onError: 'continueRegularOutput',
				},
			],
			input: [{ json: done() }],
			credentials: credsFor(gw),
		});
		return r.output('Pricing')[0].json;
	};
	const settle = (extra: Record<string, unknown> = {}) =>
		run({
			operation: 'settleTask',
			taskSource: 'json',
			task: '={{ $json }}',
			referenceVideo: 'no',
			...extra,
		});

	it('Group Multiplier left at its default: at multiplier 1, labelled so', async () => {
		expect(await settle()).toMatchObject({
			status: 'at_multiplier_1',
			group_ratio: null,
			group_ratio_source: 'unknown',
			fee_quota: 263950,
		});
	});

	it('Group Multiplier given: settled', async () => {
		expect(await settle({ groupRatio: 1.5 })).toMatchObject({
			status: 'settled',
			group_ratio: 1.5,
			group_ratio_source: 'parameter',
			fee_quota: 395925,
		});
	});

	it("the key's group named: its public ratio, settled, with the price-basis caveat", async () => {
		const out = await settle({ options: { groupName: 'hd' } });
		expect(out).toMatchObject({
			status: 'settled',
			group_ratio: 1.5,
			group_ratio_source: 'group_ratio.hd',
			fee_quota: 395925,
		});
		expect(String(out.note)).toMatch(/price basis of its acceptance/);
	});

	it('Estimate Video Cost says which basis its figure has', async () => {
		const est = (extra: Record<string, unknown>) =>
			run({
				operation: 'estimateVideoCost',
				videoModel: MINI,
				tokens: 45360,
				referenceVideo: 'no',
				...extra,
			});
		expect(await est({})).toMatchObject({
			fee_basis: 'at_multiplier_1',
			group_ratio: null,
			fee_quota: 263950,
			note: expect.stringMatching(/not known/),
		});
		expect(await est({ groupRatio: 1.5 })).toMatchObject({
			fee_basis: 'group_multiplier',
			group_ratio: 1.5,
			fee_quota: 395925,
		});
	});
});
