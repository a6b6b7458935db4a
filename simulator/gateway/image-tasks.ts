/** Image tasks: their lifecycle, the task object in every state, and the task query. */
import type { KeyInfo } from '../catalog/keys';
import { refundTask } from './charges';
import { resultImageBuffer } from '../media/padding';
import type { ImageOutcome, ImageTask, SimState } from '../state';
import { json, openAiError, type Answer } from './answer';
import type { Ctx } from './context';

/** Terminal `status`, compatibility `state` and `provider_status` of each outcome. */
const TERMINAL: Record<ImageOutcome, { status: string; state: string; provider: string }> = {
	ok: { status: 'completed', state: 'succeeded', provider: 'completed' },
	empty: { status: 'completed', state: 'succeeded', provider: 'completed' },
	fail: { status: 'failed', state: 'failed', provider: 'failed' },
	'uncertain-fail': { status: 'failed', state: 'failed', provider: 'failed' },
	cancelled: { status: 'cancelled', state: 'failed', provider: 'cancelled' },
	expired: { status: 'expired', state: 'failed', provider: 'expired' },
};

const REFUNDED: ImageOutcome[] = ['fail', 'cancelled', 'expired'];

export function resultExt(task: Pick<ImageTask, 'format'>): string {
	return task.format === 'jpeg' ? 'jpg' : task.format;
}

function finish(sim: SimState, task: ImageTask, key: KeyInfo): void {
	if (task.finishedAt) return;
	task.finishedAt = Date.now();
	if (task.outcome === 'ok') {
		task.resultIds = [];
		for (let i = 0; i < task.delivered; i++) {
			const rid = sim.nextId('img');
			sim.results.set(rid, {
				kind: 'image',
				width: task.width,
				height: task.height,
				format: task.format,
				seed: sim.opts.seed + i + task.createdAt,
			});
			task.resultIds.push(rid);
		}
	} else if (REFUNDED.includes(task.outcome) && task.charged) {
		task.refunded = true;
		refundTask(
			sim,
			key,
			task,
			task.charged,
			task.outcome === 'fail' ? 'failed' : task.outcome === 'cancelled' ? 'cancelled' : 'expired',
		);
	}
}

/** The result items of a finished task: hosted URLs, or Base64 images when the task answers b64_json. */
async function dataItems(sim: SimState, task: ImageTask): Promise<Array<Record<string, string>>> {
	const ids = task.resultIds ?? [];
	if (!task.b64)
		return ids.map((rid) => ({ url: `${sim.urls.result}/r/${rid}.${resultExt(task)}` }));
	const out: Array<Record<string, string>> = [];
	for (const rid of ids) {
		const r = sim.results.get(rid);
		out.push({
			b64_json: (
				await resultImageBuffer(
					task.width,
					task.height,
					task.format,
					(r?.seed ?? 0) % 16,
					rid,
					sim.opts.imageBytes,
				)
			).toString('base64'),
		});
	}
	return out;
}

/** The task object as the gateway reports it now (finishing the task when its time has come). */
export async function imageTaskBody(
	sim: SimState,
	task: ImageTask,
	key: KeyInfo,
): Promise<Record<string, unknown>> {
	const now = Date.now();
	const done = now >= task.readyAt;
	if (done) finish(sim, task, key);
	const created = Math.floor(task.createdAt / 1000);
	const pollPath = `/v1/images/tasks/${task.id}`;
	const base: Record<string, unknown> = {
		id: task.id,
		task_id: task.id,
		object: 'image.generation.task',
		model: task.model,
		created_at: created,
		created,
		updated_at: Math.floor(now / 1000),
		poll_path: pollPath,
		poll_url: `${sim.urls.gateway}${pollPath}`,
		poll_after_ms: sim.opts.pollAfterMs,
	};
	if (!done) {
		const running = now - task.createdAt > (task.readyAt - task.createdAt) / 3;
		return {
			...base,
			status: 'processing',
			state: running ? 'running' : 'queued',
			provider_status: running ? 'in_progress' : 'queued',
			billing: { status: task.charged ? 'charged' : 'not_charged' },
		};
	}
	const t = TERMINAL[task.outcome];
	const terminal = {
		...base,
		status: t.status,
		state: t.state,
		provider_status: t.provider,
		completed_at: Math.floor(task.finishedAt! / 1000),
		expires_at: Math.floor((task.finishedAt! + sim.opts.retentionMs) / 1000),
		request_id: task.requestId,
	};
	switch (task.outcome) {
		case 'ok': {
			const data = await dataItems(sim, task);
			return { ...terminal, data, result: { created, data }, billing: { status: 'charged' } };
		}
		case 'empty':
			return {
				...terminal,
				data: [],
				result: { created, data: [] },
				billing: { status: 'needs_manual_check' },
			};
		case 'uncertain-fail':
			return {
				...terminal,
				submission_uncertain: true,
				error: { message: 'upstream connection lost after submission; outcome unknown' },
				billing: { status: 'needs_manual_check' },
			};
		case 'cancelled':
			return {
				...terminal,
				error: { message: task.error ?? 'the task was cancelled upstream' },
				billing: { status: task.refunded ? 'refunded_if_reserved' : 'not_charged' },
			};
		case 'expired':
			return {
				...terminal,
				error: { message: task.error ?? 'the task expired before the upstream finished it' },
				billing: { status: task.refunded ? 'refunded_if_reserved' : 'not_charged' },
			};
		default:
			return {
				...terminal,
				error: { message: task.error ?? 'upstream rejected the generation (content policy)' },
				billing: { status: task.refunded ? 'refunded_if_reserved' : 'not_charged' },
			};
	}
}

export async function imageQuery(ctx: Ctx, id: string): Promise<Answer> {
	const { sim, key, log } = ctx;
	const task = sim.tasks.get(id);
	log.taskId = id;
	const notFound = () => openAiError(404, `task not found: ${id}`, 'task_not_found');
	if (!task || task.kind !== 'image' || task.owner !== key.name) return notFound();
	if (ctx.upstream.imageTaskForgotten(task)) return notFound();
	if (task.finishedAt && Date.now() - task.finishedAt > sim.opts.retentionMs) {
		sim.tasks.delete(id);
		return notFound();
	}
	log.model = task.model;
	return json(200, await imageTaskBody(sim, task, key), undefined, {
		kind: 'image-task',
		task,
		query: true,
	});
}
