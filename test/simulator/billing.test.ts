/**
 * The simulator bills like a gateway (issue 32): keys in any group (published, only in group_ratio, or hidden), each
 * request charged at its key's group ratio; a configurable price list; per-call, per-token (every usage category at
 * its ratio) and delta-video fees (reservation, settlement, refund) as ledger lines a test can sum per key, task and
 * request. Expected amounts are computed here from the README's formulas, not read from the simulator's code.
 */
import { request } from 'undici';
import { useSimulator } from '../harness/simulator';
import { client } from './client';

const sim = useSimulator({
	quiet: true,
	taskLatencyMs: 60,
	pollAfterMs: 20,
	videoLatencyMs: 80,
	syncLatencyMs: 1,
});
beforeEach(() => {
	sim.reset();
	sim.resetPricing();
	sim.setStatus({});
});

const { call, gen, delta, untilDone, videoDone } = client(() => sim);
const requestIdOf = (a: { headers: Record<string, unknown> }) =>
	String(a.headers['x-oneapi-request-id']);
const chat = (key: string, model: string, content: string, extra: Record<string, unknown> = {}) =>
	call('POST', '/v1/chat/completions', {
		key,
		json: { model, messages: [{ role: 'user', content }], ...extra },
	});

describe('keys in any group, charged at that group ratio', () => {
	it('a public group, a group only in group_ratio, a hidden group and a group nowhere: per-call images at 0.03 × ratio × 500 000', async () => {
		sim.setPricing({
			hidden_group_ratio: { partner: 0.6 },
			enable: {
				partner: ['alpha-image-2', 'alpha-chat-4o'],
				internal: ['alpha-image-2'],
				nowhere: ['alpha-image-2'],
			},
		});
		const vip = sim.addKey({ name: 'v1', group: 'vip' });
		const internal = sim.addKey({ name: 'i1', group: 'internal' });
		const created = await call('POST', '/__sim/keys', {
			key: null,
			json: { name: 'p1', group: 'partner' },
		});
		expect(created.json).toMatchObject({
			ok: true,
			name: 'p1',
			group: 'partner',
			key: expect.stringMatching(/^sk-sim-p1-/),
		});
		expect(sim.keys.p1).toBe(created.json.key);
		const nowhere = sim.addKey({ name: 'n1', group: 'nowhere' });
		const cases: Array<[string, string, number]> = [
			[sim.keys.demo, 'demo', 1.5],
			[vip, 'v1', 0.8],
			[internal, 'i1', 0.5],
			[created.json.key, 'p1', 0.6],
			[nowhere, 'n1', 1],
		];
		for (const [key, name, ratio] of cases) {
			const r = await gen({ model: 'alpha-image-2', size: '1024x1024' }, '/v1/images/generations', {
				key,
			});
			expect(r.status).toBe(200);
			const line = sim.ledger.find((l) => l.requestId === requestIdOf(r))!;
			expect(line).toMatchObject({
				key: name,
				groupRatio: ratio,
				kind: 'charge',
				amount: Math.round(0.03 * ratio * 500_000),
				basis: { billing: 'per_call', modelPrice: 0.03, n: 1, quotaPerUnit: 500_000 },
			});
			expect(sim.charged({ key: name })).toBe(Math.round(0.03 * ratio * 500_000));
		}
		// the price list shows internal (in group_ratio, not selectable) and never the hidden group
		const pricing = (await call('GET', '/api/pricing', { key: null })).json;
		expect(pricing.group_ratio).toMatchObject({ internal: 0.5 });
		expect(pricing.usable_group.internal).toBeUndefined();
		expect(JSON.stringify(pricing)).not.toContain('partner');
		expect(
			pricing.data.find((m: { model_name: string }) => m.model_name === 'alpha-image-2')
				.enable_groups,
		).toEqual(expect.arrayContaining(['internal', 'nowhere']));
		// the hidden key sees the models its group enables; the admin list has no secrets
		const models = await call('GET', '/v1/models', { key: created.json.key });
		expect(models.json.data.map((m: { id: string }) => m.id).sort()).toEqual([
			'alpha-chat-4o',
			'alpha-image-2',
		]);
		const keys = (await call('GET', '/__sim/keys', { key: null })).json;
		expect(keys).toContainEqual({ name: 'p1', group: 'partner', group_ratio: 0.6, quota: null });
		expect(JSON.stringify(keys)).not.toContain('sk-sim-');
	});

	it('a key reconfigured into another group is charged at the new ratio; a model restriction answers 403 and lists only its models', async () => {
		const secret = sim.addKey({ name: 'mover', group: 'default' });
		await gen({ model: 'alpha-image-2.5', size: '1024x1024' }, '/v1/images/generations', {
			key: secret,
		});
		expect(sim.addKey({ name: 'mover', group: 'vip', models: ['alpha-image-2.5'] })).toBe(secret);
		await gen({ model: 'alpha-image-2.5', size: '1024x1024' }, '/v1/images/generations', {
			key: secret,
		});
		expect(sim.ledger.map((l) => [l.group, l.amount])).toEqual([
			['default', 20_000],
			['vip', 16_000],
		]);
		const refused = await gen(
			{ model: 'alpha-image-2', size: '1024x1024' },
			'/v1/images/generations',
			{ key: secret },
		);
		expect(refused.status).toBe(403);
		expect(refused.json.error.message).toMatch(/model restriction/);
		expect(
			(await call('GET', '/v1/models', { key: secret })).json.data.map((m: { id: string }) => m.id),
		).toEqual(['alpha-image-2.5']);
		expect(sim.ledger).toHaveLength(2);
		// a quota: spent by each charge, then 403 insufficient_user_quota
		sim.addKey({ name: 'mover', quota: 16_000, models: null });
		expect(
			(
				await gen({ model: 'alpha-image-2.5', size: '1024x1024' }, '/v1/images/generations', {
					key: secret,
				})
			).status,
		).toBe(200);
		expect(
			(
				await gen({ model: 'alpha-image-2.5', size: '1024x1024' }, '/v1/images/generations', {
					key: secret,
				})
			).json.error.code,
		).toBe('insufficient_user_quota');
	});
});

describe('the price list is configurable', () => {
	it('per-call models by n, per-call and per-token language models, as published; defaults come back', async () => {
		sim.setPricing({
			data: [
				{ model_name: 'alpha-image-2', model_price: 0.037 },
				{
					model_name: 'sim-chat-tokens',
					quota_type: 0,
					model_ratio: 0.5,
					completion_ratio: 3,
					enable_groups: ['hd'],
					supported_endpoint_types: ['openai'],
				},
				{ model_name: 'sim-chat-flat', quota_type: 1, model_price: 0.002, enable_groups: ['hd'] },
			],
		});
		const published = (await call('GET', '/api/pricing', { key: null })).json.data;
		expect(
			published.find((m: { model_name: string }) => m.model_name === 'sim-chat-tokens'),
		).toEqual({
			model_name: 'sim-chat-tokens',
			quota_type: 0,
			model_price: 0,
			model_ratio: 0.5,
			completion_ratio: 3,
			enable_groups: ['hd'],
			supported_endpoint_types: ['openai'],
			owner_by: '',
		});
		expect(
			published.find((m: { model_name: string }) => m.model_name === 'sim-chat-flat'),
		).toMatchObject({ quota_type: 1, model_price: 0.002 });

		const task = await gen({ model: 'alpha-image-2', n: 3 });
		expect(sim.ledger.filter((l) => l.taskId === task.json.task_id)).toEqual([
			expect.objectContaining({
				kind: 'charge',
				amount: 3 * 27_750,
				basis: { billing: 'per_call', modelPrice: 0.037, n: 3, quotaPerUnit: 500_000 },
			}),
		]);
		const flat = await chat(sim.keys.demo, 'sim-chat-flat', 'hi');
		expect(sim.charged({ requestId: requestIdOf(flat) })).toBe(1500);
		const tokens = await chat(
			sim.keys.demo,
			'sim-chat-tokens',
			'hi [llm:usage prompt_tokens=1000 completion_tokens=200]',
		);
		expect(tokens.json.usage).toEqual({
			prompt_tokens: 1000,
			completion_tokens: 200,
			total_tokens: 1200,
		});
		expect(sim.charged({ requestId: requestIdOf(tokens) })).toBe((1000 + 200 * 3) * 0.5 * 1.5);
		// the site's quota_per_unit scales per-call fees, not token fees
		sim.setStatus({ quota_per_unit: 1_000_000 });
		const again = await chat(sim.keys.demo, 'sim-chat-flat', 'hi');
		expect(sim.charged({ requestId: requestIdOf(again) })).toBe(3000);

		sim.resetPricing();
		expect((await chat(sim.keys.demo, 'sim-chat-flat', 'hi')).status).toBe(503);
		expect(sim.pricing.data.find((m) => m.model_name === 'alpha-image-2')).toMatchObject({
			model_price: 0.03,
		});
	});

	it('a model with no price answers 400 model_price_error and charges nothing; a bad config is refused whole', async () => {
		sim.setPricing({
			data: [{ model_name: 'sim-unpriced', quota_type: 1, enable_groups: ['hd'] }],
		});
		const r = await chat(sim.keys.demo, 'sim-unpriced', 'hi');
		expect(r.status).toBe(400);
		expect(r.json.error.code).toBe('model_price_error');
		expect(sim.ledger).toHaveLength(0);
		expect(() => sim.setPricing({ group_ratio: { hd: -1 } })).toThrow(/group_ratio\.hd/);
		expect(() =>
			sim.setPricing({
				group_ratio: { hd: 2 },
				data: [{ model_name: 'alpha-image-2', model_price: -1 }],
			}),
		).toThrow(/model_price/);
		expect(sim.pricing.group_ratio.hd).toBe(1.5);
		const bad = await call('POST', '/__sim/pricing', {
			key: null,
			json: { data: [{ model_name: 'x', model_ratio: 'cheap' }] },
		});
		expect(bad.status).toBe(400);
	});
});

describe('per-token charges from the usage the model reports', () => {
	const USAGE =
		'[llm:usage prompt_tokens=10000 cached_tokens=6000 cached_creation_tokens=1000 image_tokens=500 audio_tokens=300 completion_tokens=2000 completion_audio_tokens=100 reasoning_tokens=700]';
	const RATIOS = {
		model_ratio: 1.25,
		completion_ratio: 4,
		cache_ratio: 0.1,
		create_cache_ratio: 1.25,
		image_ratio: 2,
		audio_ratio: 8,
		audio_completion_ratio: 2.5,
	};
	/** the README's formula, written out independently */
	const fee = (r: Partial<typeof RATIOS>, groupRatio: number) => {
		const plain = 10000 - 6000 - 1000 - 500 - 300;
		const weighted =
			plain +
			6000 * (r.cache_ratio ?? 1) +
			1000 * (r.create_cache_ratio ?? 1) +
			500 * (r.image_ratio ?? 1) +
			300 * (r.audio_ratio ?? 1) +
			(2000 - 100) * (r.completion_ratio ?? 1) +
			100 * (r.audio_ratio ?? 1) * (r.audio_completion_ratio ?? 1);
		return weighted * (r.model_ratio ?? 1) * groupRatio;
	};

	it('chat, plain and streamed, and responses: every category at its ratio, half-up once', async () => {
		sim.setPricing({ data: [{ model_name: 'alpha-chat-4o', ...RATIOS }] });
		expect(fee(RATIOS, 1.5)).toBe(31_968.75);
		const plain = await chat(sim.keys.demo, 'alpha-chat-4o', `hi ${USAGE}`);
		expect(plain.json.usage).toEqual({
			prompt_tokens: 10000,
			completion_tokens: 2000,
			total_tokens: 12000,
			prompt_tokens_details: {
				cached_tokens: 6000,
				audio_tokens: 300,
				image_tokens: 500,
				cached_creation_tokens: 1000,
			},
			completion_tokens_details: { reasoning_tokens: 700, audio_tokens: 100 },
		});
		expect(sim.charged({ requestId: requestIdOf(plain) })).toBe(31_969);
		expect(sim.ledger.at(-1)!.basis).toEqual({
			billing: 'per_token',
			usage: {
				prompt: 10000,
				cached: 6000,
				cacheWrite: 1000,
				image: 500,
				audio: 300,
				completion: 2000,
				audioOut: 100,
				reasoning: 700,
			},
			modelRatio: 1.25,
			completionRatio: 4,
			cacheRatio: 0.1,
			createCacheRatio: 1.25,
			imageRatio: 2,
			audioRatio: 8,
			audioCompletionRatio: 2.5,
		});

		const streamed = await chat(sim.keys.demo, 'alpha-chat-4o', `hi ${USAGE}`, {
			stream: true,
			stream_options: { include_usage: true },
		});
		const chunks = streamed.buf
			.toString('utf8')
			.split('\n\n')
			.filter((e) => e.startsWith('data: {'))
			.map((e) => JSON.parse(e.slice(6)));
		expect(chunks.at(-1)).toMatchObject({
			choices: [],
			usage: {
				prompt_tokens_details: { cached_tokens: 6000 },
				completion_tokens_details: { reasoning_tokens: 700 },
			},
		});
		expect(sim.charged({ requestId: requestIdOf(streamed) })).toBe(31_969);

		const responses = await call('POST', '/v1/responses', {
			json: { model: 'alpha-chat-4o', input: `hi ${USAGE}` },
		});
		expect(responses.json.usage).toMatchObject({
			input_tokens: 10000,
			output_tokens: 2000,
			input_tokens_details: { cached_tokens: 6000, audio_tokens: 300, image_tokens: 500 },
			output_tokens_details: { reasoning_tokens: 700, audio_tokens: 100 },
		});
		expect(sim.charged({ requestId: requestIdOf(responses) })).toBe(31_969);
	});

	it('a ratio the price does not carry bills its category like plain tokens; a key in another group pays its ratio', async () => {
		sim.setPricing({
			data: [
				{
					model_name: 'alpha-chat-4o',
					model_ratio: 1.25,
					completion_ratio: 4,
					cache_ratio: null,
					create_cache_ratio: null,
					image_ratio: null,
					audio_ratio: null,
					audio_completion_ratio: null,
				},
			],
			hidden_group_ratio: { partner: 0.6 },
			enable: { partner: ['alpha-chat-4o'] },
		});
		const bare = { model_ratio: 1.25, completion_ratio: 4 };
		expect(fee(bare, 1.5)).toBe(33_187.5);
		const r = await chat(sim.keys.demo, 'alpha-chat-4o', `hi ${USAGE}`);
		expect(sim.charged({ requestId: requestIdOf(r) })).toBe(33_188);
		const partner = sim.addKey({ name: 'p2', group: 'partner' });
		const p = await chat(partner, 'alpha-chat-4o', `hi ${USAGE}`);
		expect(sim.charged({ requestId: requestIdOf(p) })).toBe(Math.round(fee(bare, 0.6)));
		expect(sim.ledger.at(-1)).toMatchObject({ key: 'p2', group: 'partner', groupRatio: 0.6 });
	});

	it('a token-billed image model reports its usage (text and reference-image tokens) and is charged from it', async () => {
		const sync = await gen(
			{ model: 'alpha-image-2-az', prompt: 'a cat in the rain', size: '1024x1024' },
			'/v1/images/generations',
		);
		expect(sync.json.usage).toEqual({
			input_tokens: 5,
			input_tokens_details: { text_tokens: 5, image_tokens: 0 },
			output_tokens: 1290,
			total_tokens: 1295,
		});
		// az: model ratio 2.5, completion ratio 4; demo's group 1.5
		expect(sim.charged({ requestId: requestIdOf(sync) })).toBe(
			Math.round((5 + 1290 * 4) * 2.5 * 1.5),
		);
	});
});

describe('delta-video: reservation, settlement and refund, each a line with the task and request', () => {
	// mini, 480p, 5 s: 10 080 tokens a second → an estimate of 50 400 tokens at 11.638 per 1M, demo's ratio 1.5, 500 000 a unit
	const fee = (tokens: number, ratio = 1.5, unit = 11.638) =>
		Math.round((tokens * unit * ratio * 500_000) / 1_000_000);
	const RESERVED = fee(50_400);

	async function run(prompt: string, key = sim.keys.demo) {
		const created = await delta({ prompt, seconds: 5, resolution: '480p' }, { key });
		expect(created.status).toBe(200);
		const done = await videoDone(created.json.id, { key });
		return {
			id: created.json.id as string,
			requestId: requestIdOf(created),
			done: done.json,
			lines: sim.ledger.filter((l) => l.taskId === created.json.id),
		};
	}

	it('top-up, refund of the difference and exact settlements; failure returns the reservation; no usage keeps it', async () => {
		expect(RESERVED).toBe(439_916);
		const up = await run('a dog [usage=60000]');
		expect(up.lines).toEqual([
			expect.objectContaining({
				kind: 'reserve',
				amount: RESERVED,
				taskId: up.id,
				requestId: up.requestId,
				basis: {
					billing: 'per_video_token',
					tokens: 50_400,
					unitPrice: 11.638,
					withRefVideo: false,
					quotaPerUnit: 500_000,
					fee: RESERVED,
				},
			}),
			expect.objectContaining({
				kind: 'settle',
				settlement: 'top-up',
				amount: fee(60_000) - RESERVED,
				taskId: up.id,
				requestId: up.requestId,
				basis: expect.objectContaining({ tokens: 60_000, fee: fee(60_000) }),
			}),
		]);
		expect(sim.charged({ taskId: up.id })).toBe(fee(60_000));
		expect(sim.charged({ requestId: up.requestId })).toBe(fee(60_000));

		const down = await run('a dog [usage=1000]');
		expect(down.lines.map((l) => [l.kind, l.settlement, l.amount])).toEqual([
			['reserve', undefined, RESERVED],
			['settle', 'refund', fee(1000) - RESERVED],
		]);
		expect(fee(1000)).toBe(8729); // 8728.5, half-up

		const exact = await run('a dog [usage=50400]');
		expect(exact.lines.map((l) => [l.kind, l.settlement, l.amount])).toEqual([
			['reserve', undefined, RESERVED],
			['settle', 'exact', 0],
		]);

		const failed = await run('a dog [fail]');
		expect(failed.done.status).toBe('failed');
		expect(failed.lines.map((l) => [l.kind, l.reason, l.amount])).toEqual([
			['reserve', undefined, RESERVED],
			['refund', 'failed', -RESERVED],
		]);
		expect(sim.charged({ taskId: failed.id })).toBe(0);

		const unknown = await run('a dog [usage=none]');
		expect(unknown.done.status).toBe('completed');
		expect(unknown.done.usage).toBeUndefined();
		expect(unknown.lines.map((l) => l.kind)).toEqual(['reserve']);

		// the key's total is the sum of its tasks
		expect(sim.charged({ key: 'demo' })).toBe(
			fee(60_000) + fee(1000) + 0 + fee(50_400) + 0 + RESERVED,
		);
	});

	it('the price basis is fixed at acceptance: a price or ratio changed while the task runs does not apply to it', async () => {
		const created = await delta({ prompt: 'a dog [usage=60000]', seconds: 5, resolution: '480p' });
		sim.setPricing({
			group_ratio: { hd: 3 },
			data: [
				{
					model_name: 'delta-video-2-0-mini-260615',
					video_token_price: { noRefVideo: 99, withRefVideo: 99 },
				},
			],
		});
		await videoDone(created.json.id);
		expect(sim.charged({ taskId: created.json.id })).toBe(fee(60_000));
		expect(sim.ledger.every((l) => l.groupRatio === 1.5)).toBe(true);
		// a new task is charged at the new basis
		const next = await run('a cat [usage=1000]');
		expect(sim.charged({ taskId: next.id })).toBe(fee(1000, 3, 99));
	});

	it('a hidden-group key reserves and settles at its private ratio', async () => {
		sim.setPricing({
			hidden_group_ratio: { studio: 0.6 },
			enable: { studio: ['delta-video-2-0-mini-260615'] },
		});
		const key = sim.addKey({ name: 'studio1', group: 'studio' });
		const r = await run('a dog [usage=60000]', key);
		expect(r.lines.map((l) => [l.kind, l.group, l.groupRatio, l.amount])).toEqual([
			['reserve', 'studio', 0.6, fee(50_400, 0.6)],
			['settle', 'studio', 0.6, fee(60_000, 0.6) - fee(50_400, 0.6)],
		]);
		expect(sim.charged({ key: 'studio1' })).toBe(fee(60_000, 0.6));
	});

	it('image tasks: the charge and its refund carry the task and the request; the admin ledger has the same lines', async () => {
		const t = await gen({ prompt: 'x [fail]' });
		await untilDone(t.json.task_id);
		expect(sim.ledger.map((l) => [l.kind, l.reason, l.taskId, l.requestId])).toEqual([
			['charge', undefined, t.json.task_id, requestIdOf(t)],
			['refund', 'failed', t.json.task_id, requestIdOf(t)],
		]);
		const over = await request(`${sim.baseUrl}/__sim/ledger`);
		expect(await over.body.json()).toEqual(JSON.parse(JSON.stringify(sim.ledger)));
	});
});
