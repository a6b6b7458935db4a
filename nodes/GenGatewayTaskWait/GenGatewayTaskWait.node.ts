import { NodeConnectionTypes, type IDataObject, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { createTransport } from '../shared/credentials';
import { errorItem } from '../shared/router';
import { emitOutcome } from '../shared/wait/emit';
import { buildJob, type JobMeta } from '../shared/wait/jobs';
import { waitForTasks, type WaitJob } from '../shared/wait/waitTasks';

interface WaitOptions {
	deadlineMinutes?: number;
	maxWaitSeconds?: number;
	videoIntervalMs?: number;
	concurrency?: number;
	binaryPropertyName?: string;
	download?: boolean;
	groupRatio?: number;
}

export class GenGatewayTaskWait implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'GenGateway Task Wait',
		name: 'genGatewayTaskWait',
		icon: { light: 'file:../../icons/taskWait.svg', dark: 'file:../../icons/taskWait.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"wait for " + ($parameter["taskKind"] === "auto" ? "tasks" : $parameter["taskKind"] + " tasks")}}',
		description: 'Waits for image and video tasks (many at once, with deadlines) and downloads the results',
		defaults: { name: 'GenGateway Task Wait' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: ['Completed', 'Failed', 'Still Running'],
		credentials: [{ name: 'genGatewayApi', required: true }],
		properties: [
			{
				displayName: 'Every input item comes out of exactly one output. Still Running items keep their task_id: loop them through a Wait node back here instead of holding a worker.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{ displayName: 'Task ID', name: 'taskId', type: 'string', default: '={{ $json.task_id }}', required: true, description: 'The task to wait for (Image Submit / Video Create output, or an expression)' },
			{
				displayName: 'Task Kind',
				name: 'taskKind',
				type: 'options',
				options: [
					{ name: 'Auto (From Input Item)', value: 'auto' },
					{ name: 'Image Task', value: 'image' },
					{ name: 'Video Task', value: 'video' },
				],
				default: 'auto',
				description: 'Auto reads kind, family, origin and poll fields from the input item',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{ displayName: 'Binary Property', name: 'binaryPropertyName', type: 'string', default: 'data', description: 'Name of the binary property for the result; further images get _1, _2, …' },
					{ displayName: 'Concurrent Queries', name: 'concurrency', type: 'number', default: 16, typeOptions: { minValue: 1, maxValue: 64 }, description: 'Upper bound of queries in flight; it halves when the gateway answers 429' },
					{ displayName: 'Deadline (Minutes)', name: 'deadlineMinutes', type: 'number', default: 30, typeOptions: { minValue: 0.01 }, description: 'Overall time to wait for a task, counted from the first wait (kept across Still Running loops)' },
					{ displayName: 'Download Results', name: 'download', type: 'boolean', default: true, description: 'Whether to download results into binary data (off: URLs only). Off automatically when used as an AI-agent tool.' },
					{ displayName: 'Group Multiplier', name: 'groupRatio', type: 'number', default: 1, description: "Your key's group ratio, for the settled delta-video fee" },
					{ displayName: 'Max Wait per Execution (Seconds)', name: 'maxWaitSeconds', type: 'number', default: 0, description: 'Hand back Still Running after this long (0 = until the deadline). Use in queue mode so long jobs do not hold a worker.' },
					{ displayName: 'Video Poll Interval (Ms)', name: 'videoIntervalMs', type: 'number', default: 4000, typeOptions: { minValue: 50 }, description: 'Videos have no poll_after_ms; the spec suggests 3 to 5 s' },
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const outputs: INodeExecutionData[][] = [[], [], []];
		const opts = this.getNodeParameter('options', 0, {}) as WaitOptions;
		const transport = await createTransport(this);
		const asTool = typeof this.isToolExecution === 'function' && this.isToolExecution();
		const now = Date.now();
		const jobs: WaitJob[] = [];
		const metas = new Map<WaitJob, JobMeta>();
		const results: Array<{ output: number; item: INodeExecutionData } | undefined> = new Array(items.length);
		for (let i = 0; i < items.length; i++) {
			const taskIdParam = this.getNodeParameter('taskId', i, '') as unknown;
			if (items[i].json.submission_uncertain === true && (taskIdParam === null || taskIdParam === undefined || taskIdParam === '')) {
				// An uncertain submission without a task ID: nothing to poll, and it must not be resubmitted.
				results[i] = {
					output: 1,
					item: { json: { status: 'uncertain', submission_uncertain: true, task_id: null, error: `submission outcome unknown and no task ID: ${String(items[i].json.reason ?? '')}`.trim(), note: 'Check the usage records before submitting again.' } },
				};
				continue;
			}
			try {
				const o = this.getNodeParameter('options', i, {}) as WaitOptions;
				const { job, meta } = buildJob(i, items[i].json, taskIdParam, this.getNodeParameter('taskKind', i) as string, {
					now,
					deadlineMs: (o.deadlineMinutes ?? 30) * 60_000,
					maxWaitMs: (o.maxWaitSeconds ?? 0) * 1000,
				});
				jobs.push(job);
				metas.set(job, meta);
			} catch (err) {
				results[i] = { output: 1, item: errorItem(this, err, i, []) };
			}
		}
		const outcomes = await waitForTasks(transport, jobs, { maxConcurrency: opts.concurrency ?? 16, videoIntervalMs: opts.videoIntervalMs ?? 4000 });
		for (const [k, job] of jobs.entries()) {
			const meta = metas.get(job)!;
			const routed = await emitOutcome(this, transport, job, outcomes[k], {
				binaryProperty: opts.binaryPropertyName || 'data',
				download: opts.download !== false && !asTool,
				groupRatio: opts.groupRatio ?? 1,
				model: meta.model,
				family: meta.family,
				withReferenceVideo: meta.withReferenceVideo,
				carry: { wait_started_at: meta.waitStartedAt, ...(meta.family ? { family: meta.family } : {}) } as IDataObject,
			});
			results[job.index] = routed;
		}
		for (let i = 0; i < items.length; i++) {
			const r = results[i]!;
			outputs[r.output].push({ ...r.item, pairedItem: { item: i } });
		}
		return outputs;
	}
}
