/** Every task shape the spec and the gateway notes list, mapped to one phase. */
import { normaliseImageTask, normaliseVideoTask } from '../../nodes/shared/tasks/phases';
import { taskIdIn as pickTaskId } from '../../nodes/shared/rules/taskId';

const URL_A = 'https://files.example.com/a.png';

describe('normaliseImageTask', () => {
	const task = (extra: Record<string, unknown>) => ({
		id: 'task_1',
		task_id: 'task_1',
		object: 'image.generation.task',
		...extra,
	});

	it('the submit answer (processing / queued) is pending, with poll hints', () => {
		const n = normaliseImageTask(
			task({
				status: 'processing',
				state: 'queued',
				provider_status: 'in_progress',
				poll_url: 'https://gw.example.com/v1/images/tasks/task_1',
				poll_path: '/v1/images/tasks/task_1',
				poll_after_ms: 3000,
				created_at: 1,
			}),
		);
		expect(n).toMatchObject({
			taskId: 'task_1',
			phase: 'pending',
			rawStatus: 'processing',
			pollAfterMs: 3000,
			pollPath: '/v1/images/tasks/task_1',
			pollUrl: 'https://gw.example.com/v1/images/tasks/task_1',
		});
		expect(n.results).toEqual([]);
	});

	it('completed with data[] (url) → succeeded', () => {
		const n = normaliseImageTask(
			task({
				status: 'completed',
				state: 'succeeded',
				data: [{ url: URL_A }],
				billing: { status: 'charged' },
				request_id: 'req_9',
				expires_at: 1_800_000_000,
			}),
		);
		expect(n).toMatchObject({
			phase: 'succeeded',
			results: [{ url: URL_A }],
			billingStatus: 'charged',
			requestId: 'req_9',
			expiresAt: 1_800_000_000,
		});
		expect(n.error).toBeUndefined();
	});

	it('completed with result.data (compatibility) → succeeded', () => {
		expect(
			normaliseImageTask(task({ status: 'completed', result: { data: [{ url: URL_A }] } })),
		).toMatchObject({ phase: 'succeeded', results: [{ url: URL_A }] });
	});

	it('data wins over result.data when both are present; b64_json is read', () => {
		const n = normaliseImageTask(
			task({
				status: 'completed',
				data: [{ b64_json: 'iVBORw0K' }],
				result: { data: [{ url: URL_A }] },
			}),
		);
		expect(n.results).toEqual([{ url: undefined, b64: 'iVBORw0K' }]);
	});

	it('succeeded (as status, or as state without status) → succeeded', () => {
		expect(normaliseImageTask(task({ status: 'succeeded', data: [{ url: URL_A }] })).phase).toBe(
			'succeeded',
		);
		expect(normaliseImageTask(task({ state: 'succeeded', data: [{ url: URL_A }] })).phase).toBe(
			'succeeded',
		);
	});

	it.each([
		['data empty', { data: [] }],
		['data missing', {}],
		['result.data empty', { result: { data: [] } }],
		['result not an object', { result: 'ok' }],
		['items without url or b64', { data: [{ revised_prompt: 'x' }, null, 'y'] }],
	])('completed but %s → failed (business failure)', (_what, extra) => {
		const n = normaliseImageTask(task({ status: 'completed', ...extra }));
		expect(n.phase).toBe('failed');
		expect(n.error).toMatch(/no image/);
	});

	it('completed, empty, with an error message keeps the message', () => {
		expect(
			normaliseImageTask(
				task({ status: 'completed', data: [], error: { message: 'upstream returned nothing' } }),
			).error,
		).toBe('upstream returned nothing');
	});

	it('failed with error.message', () => {
		const n = normaliseImageTask(
			task({
				status: 'failed',
				state: 'failed',
				error: { message: 'content policy violation', code: 'policy' },
				billing: { status: 'not_charged' },
			}),
		);
		expect(n).toMatchObject({
			phase: 'failed',
			error: 'content policy violation',
			billingStatus: 'not_charged',
		});
	});

	it('failed with submission_uncertain', () => {
		const n = normaliseImageTask(
			task({
				status: 'failed',
				submission_uncertain: true,
				error: { message: 'upstream timeout' },
				billing: { status: 'needs_manual_check' },
			}),
		);
		expect(n).toMatchObject({
			phase: 'failed',
			submissionUncertain: true,
			billingStatus: 'needs_manual_check',
		});
	});

	it('failed without an error object still says why', () => {
		expect(normaliseImageTask(task({ status: 'failed' })).error).toBe('Task failed');
	});

	it('error given as a string or without message', () => {
		expect(normaliseImageTask(task({ status: 'failed', error: 'boom' })).error).toBe('boom');
		expect(
			normaliseImageTask(task({ status: 'failed', error: { code: 'upstream_error' } })).error,
		).toBe('upstream_error');
	});

	it.each(['cancelled', 'canceled', 'expired', 'error'])('%s → failed', (status) => {
		const n = normaliseImageTask(task({ status }));
		expect(n.phase).toBe('failed');
		expect(n.error).toContain(status);
	});

	it('status speaks first: a spec word in status decides, whatever state or provider_status say', () => {
		expect(normaliseImageTask(task({ status: 'processing', state: 'failed' })).phase).toBe(
			'pending',
		);
		expect(
			normaliseImageTask(task({ status: 'processing', provider_status: 'failed' })).phase,
		).toBe('pending');
		// a delivered task is never Failed because a compatibility field says otherwise
		expect(
			normaliseImageTask(
				task({
					status: 'completed',
					state: 'failed',
					provider_status: 'error',
					data: [{ url: URL_A }],
				}),
			).phase,
		).toBe('succeeded');
		expect(
			normaliseImageTask(task({ status: 'failed', state: 'succeeded', data: [{ url: URL_A }] }))
				.phase,
		).toBe('failed');
	});

	it('the compatibility fields decide where status is missing or not a spec word', () => {
		expect(normaliseImageTask(task({ status: undefined, state: 'failed' })).phase).toBe('failed');
		expect(normaliseImageTask(task({ status: 'weird', provider_status: 'failed' })).phase).toBe(
			'failed',
		);
		expect(
			normaliseImageTask(task({ status: undefined, state: 'succeeded', data: [{ url: URL_A }] }))
				.phase,
		).toBe('succeeded');
	});

	it.each([
		[{ status: 'processing' }],
		[{ status: 'processing', state: 'running' }],
		[{ state: 'queued' }],
		[{ state: 'running' }],
		[{ status: 'unknown' }],
		[{ status: 'in_progress' }],
		[{ status: 'processing', data: [{ url: URL_A }] }],
		[{}],
	])('%j → pending', (extra) => {
		expect(normaliseImageTask(task(extra)).phase).toBe('pending');
	});

	it.each([
		['COMPLETED', 'succeeded'],
		['Completed', 'succeeded'],
		['SUCCEEDED', 'succeeded'],
		['FAILED', 'failed'],
		['Cancelled', 'failed'],
		['EXPIRED', 'failed'],
		['Processing', 'pending'],
	])('mixed case %s → %s', (status, phase) => {
		expect(normaliseImageTask(task({ status, data: [{ url: URL_A }] })).phase).toBe(phase);
	});

	it('a synchronous answer (created + data, no status) → succeeded', () => {
		expect(normaliseImageTask({ created: 1_763_800_000, data: [{ url: URL_A }] })).toMatchObject({
			phase: 'succeeded',
			results: [{ url: URL_A }],
		});
	});

	it('poll_after_ms as a string is read as milliseconds', () => {
		expect(
			normaliseImageTask(task({ status: 'processing', poll_after_ms: '2500' })).pollAfterMs,
		).toBe(2500);
	});

	it('task IDs: task_id preferred, characters A-Za-z0-9_- only', () => {
		expect(normaliseImageTask({ task_id: 'a_B-9', id: 'other', status: 'processing' }).taskId).toBe(
			'a_B-9',
		);
		expect(normaliseImageTask({ id: 'only-id', status: 'processing' }).taskId).toBe('only-id');
		expect(
			normaliseImageTask({ task_id: '../etc/passwd', status: 'processing' }).taskId,
		).toBeUndefined();
		expect(normaliseImageTask({ task_id: 'a b', id: 'good_1' }).taskId).toBe('good_1');
	});

	it('tolerates non-objects', () => {
		for (const v of [null, undefined, 'x', 42, []])
			expect(normaliseImageTask(v)).toMatchObject({ phase: 'pending', results: [] });
	});
});

describe('normaliseVideoTask: delta-video', () => {
	const delta = (extra: Record<string, unknown>) => ({
		id: 'video_abc123',
		object: 'video',
		model: 'delta-video-2-0-mini-260615',
		...extra,
	});

	it('queued, progress 0 → pending', () => {
		expect(normaliseVideoTask(delta({ status: 'queued', progress: 0 }))).toMatchObject({
			taskId: 'video_abc123',
			phase: 'pending',
			rawStatus: 'queued',
			progress: 0,
		});
	});

	it('in_progress, progress 42 → pending', () => {
		expect(normaliseVideoTask(delta({ status: 'in_progress', progress: 42 }))).toMatchObject({
			phase: 'pending',
			progress: 42,
		});
	});

	it('completed, progress 100, usage → succeeded with tokens (no URL: download via /content)', () => {
		const n = normaliseVideoTask(
			delta({
				status: 'completed',
				progress: 100,
				usage: { completion_tokens: 108_900, total_tokens: 108_900 },
			}),
		);
		expect(n).toMatchObject({
			phase: 'succeeded',
			progress: 100,
			usage: { completionTokens: 108_900, totalTokens: 108_900 },
			results: [],
		});
	});

	it('failed with error → failed with its message', () => {
		expect(
			normaliseVideoTask(
				delta({
					status: 'failed',
					error: { message: 'material read failed', code: 'InvalidParameter' },
				}),
			),
		).toMatchObject({
			phase: 'failed',
			error: 'material read failed',
		});
	});

	it('failed with no error object (gateway-side timeout) → failed with a text', () => {
		const n = normaliseVideoTask(delta({ status: 'failed', progress: 30 }));
		expect(n.phase).toBe('failed');
		expect(n.error).toMatch(/without an error message/);
	});

	it('unknown (first seconds after creation) → pending', () => {
		expect(normaliseVideoTask(delta({ status: 'unknown' })).phase).toBe('pending');
	});

	it('extra fields are tolerated and field order does not matter', () => {
		const n = normaliseVideoTask({
			seconds: '5',
			size: '720p',
			status: 'completed',
			created_at: 1,
			completed_at: 2,
			id: 'video_x',
			progress: 100,
		});
		expect(n).toMatchObject({ taskId: 'video_x', phase: 'succeeded' });
	});
});

describe('normaliseVideoTask: gamma-video, every placement', () => {
	it.each([
		[{ task_id: 'g_1' }, 'g_1'],
		[{ id: 'g_2' }, 'g_2'],
		[{ data: { task_id: 'g_3' } }, 'g_3'],
		[{ code: 'success', message: '', data: { task_id: 'g_4', status: 'SUCCESS' } }, 'g_4'],
	])('task ID in %j', (body, id) => {
		expect(normaliseVideoTask(body).taskId).toBe(id);
	});

	const running = [
		'queued',
		'pending',
		'submitted',
		'processing',
		'in_progress',
		'NOT_START',
		'IN_PROGRESS',
		'Queued',
	];
	const success = ['completed', 'done', 'succeeded', 'success', 'SUCCESS', 'Done', 'COMPLETED'];
	const failure = ['failed', 'failure', 'error', 'cancelled', 'canceled', 'FAILURE', 'Canceled'];

	it.each(running)('status %j (top level and data.status) → pending', (s) => {
		expect(normaliseVideoTask({ task_id: 'g', status: s }).phase).toBe('pending');
		expect(normaliseVideoTask({ data: { task_id: 'g', status: s } }).phase).toBe('pending');
	});

	it.each(success)('status %j (top level and data.status) → succeeded', (s) => {
		expect(
			normaliseVideoTask({ task_id: 'g', status: s, result_url: 'https://v.example.com/1.mp4' })
				.phase,
		).toBe('succeeded');
		expect(
			normaliseVideoTask({ data: { task_id: 'g', status: s, url: 'https://v.example.com/1.mp4' } })
				.phase,
		).toBe('succeeded');
	});

	it.each(failure)('status %j (top level and data.status) → failed', (s) => {
		expect(normaliseVideoTask({ task_id: 'g', status: s }).phase).toBe('failed');
		expect(normaliseVideoTask({ data: { task_id: 'g', status: s } }).phase).toBe('failed');
	});

	it.each([
		[{ result_url: 'https://v.example.com/a.mp4' }, 'https://v.example.com/a.mp4'],
		[{ video: { url: 'https://v.example.com/b.mp4' } }, 'https://v.example.com/b.mp4'],
		[{ data: { result_url: 'https://v.example.com/c.mp4' } }, 'https://v.example.com/c.mp4'],
		[{ data: { url: 'https://v.example.com/d.mp4' } }, 'https://v.example.com/d.mp4'],
		[{ data: { video: { url: 'https://v.example.com/e.mp4' } } }, 'https://v.example.com/e.mp4'],
	])('result URL in %j', (extra, url) => {
		const n = normaliseVideoTask({ task_id: 'g', status: 'completed', ...extra });
		expect(n.results).toEqual([{ url }]);
		const nested = normaliseVideoTask({
			...extra,
			data: { task_id: 'g', status: 'SUCCESS', ...((extra as { data?: object }).data ?? {}) },
		});
		expect(nested.results).toEqual([{ url }]);
	});

	it.each([
		[{ error: 'moderation blocked' }, 'moderation blocked'],
		[{ error: { message: 'upstream 500' } }, 'upstream 500'],
		[{ fail_reason: 'quota' }, 'quota'],
		[{ data: { fail_reason: 'nested reason' } }, 'nested reason'],
		[{ data: { error: { message: 'nested error' } } }, 'nested error'],
		[{ data: { error: 'nested string' } }, 'nested string'],
	])('failure text in %j', (extra, text) => {
		const body = { task_id: 'g', status: 'FAILURE', ...extra };
		expect(normaliseVideoTask(body)).toMatchObject({ phase: 'failed', error: text });
	});

	it('progress as a string percentage-free number, in data', () => {
		expect(
			normaliseVideoTask({ data: { task_id: 'g', status: 'IN_PROGRESS', progress: '35' } })
				.progress,
		).toBe(35);
	});

	it('an unknown word keeps polling (the deadline decides)', () => {
		expect(normaliseVideoTask({ task_id: 'g', status: 'rendering' }).phase).toBe('pending');
		expect(normaliseVideoTask({ task_id: 'g' }).phase).toBe('pending');
	});
});

describe('taskIdIn (the one task-ID reader)', () => {
	it('refuses IDs longer than 200 characters or with other characters', () => {
		expect(pickTaskId({ id: 'a'.repeat(200) })).toHaveLength(200);
		expect(pickTaskId({ id: 'a'.repeat(201) })).toBeUndefined();
		expect(pickTaskId({ id: 'task/1' })).toBeUndefined();
		expect(pickTaskId({ id: 42 })).toBeUndefined();
	});
});
