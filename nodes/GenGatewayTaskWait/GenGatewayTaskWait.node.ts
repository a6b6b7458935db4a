import { NodeConnectionTypes, type IDataObject, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { createTransport, credentialTest } from '../shared/credentials';
import { errorItem } from '../shared/router';
import { videoOriginProperty } from '../shared/ui';
import { WaitAndEmit, type Routed } from '../shared/wait/emit';
import { buildJob, type JobMeta } from '../shared/wait/jobs';
import { readWaitOptions, type WaitOptionValues } from '../shared/wait/options';
import type { WaitJob } from '../shared/wait/waitTasks';

/**
 * An input item's fields to carry: all but `error` (on a first output item n8n's Retry On Fail would read it as a
 * failed try) and the submit-time `state`, which a later state would contradict.
 */
function inputFields(json: IDataObject): IDataObject {
	const { error: _error, state: _state, ...rest } = json;
	return rest;
}

export class GenGatewayTaskWait implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'GenGateway Task Wait',
		name: 'genGatewayTaskWait',
		icon: { light: 'file:../../icons/taskWait.svg', dark: 'file:../../icons/taskWait.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"wait for " + ($parameter["taskKind"] === "auto" ? "tasks" : $parameter["taskKind"] + " tasks")}}',
		description: 'Waits for image and video tasks to finish and returns their files',
		defaults: { name: 'GenGateway Task Wait' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: ['Completed', 'Failed', 'Still Running'],
		credentials: [{ name: 'genGatewayApi', required: true, testedBy: 'genGatewayApiTest' }],
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
				description: 'Auto reads kind, family, origin and poll fields from the input item; a task ID with nothing else is asked as an image task, then as a video task',
			},
			videoOriginProperty('videoOrigin'),
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
					{ displayName: 'Group Multiplier', name: 'groupRatio', type: 'number', default: 1, typeOptions: { minValue: 0.0001 }, description: "Your key's group multiplier, when you know it: the delta-video fee is then settled at it. Without it the fee is shown at multiplier 1 (fee.status at_multiplier_1)." },
					{ displayName: 'Keep Input Fields', name: 'keepInputFields', type: 'boolean', default: true, description: "Whether the input item's fields (e.g. a row ID) come along on the output item, so later nodes can use them; the task's own fields win" },
					{ displayName: 'Max Video Size (MiB)', name: 'maxVideoMiB', type: 'number', default: 2048, typeOptions: { minValue: 1 }, description: 'A video larger than this (announced or counted while it downloads) is refused, so a broken host cannot fill the disk' },
					{ displayName: 'Max Wait per Execution (Seconds)', name: 'maxWaitSeconds', type: 'number', default: 0, description: 'Hand back Still Running after this long (0 = until the deadline). Use in queue mode so long jobs do not hold a worker.' },
					{ displayName: 'Video Poll Interval (Ms)', name: 'videoIntervalMs', type: 'number', default: 4000, typeOptions: { minValue: 1000 }, description: 'Videos have no poll_after_ms; the spec suggests 3 to 5 s. No task is queried more often than once a second.' },
				],
			},
		],
	};

	methods = { credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const outputs: INodeExecutionData[][] = [[], [], []];
		const transport = await createTransport(this);
		const asTool = typeof this.isToolExecution === 'function' && this.isToolExecution();
		const now = Date.now();
		// every check runs before any task is queried: with Stop Workflow a bad item fails the node having sent nothing
		const planned = items.map((item, i): Routed | { job: WaitJob; meta: JobMeta; o: WaitOptionValues } => {
			const taskIdParam = this.getNodeParameter('taskId', i, '') as unknown;
			if (item.json.submission_uncertain === true && (taskIdParam === null || taskIdParam === undefined || taskIdParam === '')) {
				// An uncertain submission without a task ID: nothing to poll, and it must not be resubmitted.
				return {
					output: 1,
					item: { json: { status: 'uncertain', submission_uncertain: true, task_id: null, error: `submission outcome unknown and no task ID: ${String(item.json.reason ?? '')}`.trim(), note: 'Check the usage records before submitting again.' } },
				};
			}
			try {
				const o = readWaitOptions(this, i);
				const { job, meta } = buildJob(i, item.json, taskIdParam, this.getNodeParameter('taskKind', i) as string, {
					now,
					deadlineMs: o.deadlineMs,
					maxWaitMs: o.maxWaitMs,
					originParam: this.getNodeParameter('videoOrigin', i, 'auto') as string,
					hasVideoOrigin: transport.root('video') !== transport.root('base'),
				});
				return { job: { ...job, videoIntervalMs: o.videoIntervalMs }, meta, o };
			} catch (err) {
				return { output: 1, item: errorItem(this, err, i, transport.redactionSecrets) };
			}
		});
		const first = planned.find((p): p is Extract<typeof p, { o: WaitOptionValues }> => 'o' in p);
		const waiter = new WaitAndEmit(this, transport, { maxConcurrency: first?.o.concurrency });
		const routed = await Promise.all(
			planned.map((p) =>
				'job' in p
					? waiter.run(p.job, {
							binaryProperty: p.o.binaryPropertyName,
							download: p.o.download && !asTool,
							groupRatio: p.o.groupRatio,
							maxVideoBytes: p.o.maxVideoBytes,
							model: p.meta.model,
							family: p.meta.family,
							withReferenceVideo: p.meta.withReferenceVideo,
							imagesExpected: p.meta.imagesExpected,
							carry: { wait_started_at: p.meta.waitStartedAt, wait_started_at_iso: new Date(p.meta.waitStartedAt).toISOString(), ...(p.meta.family ? { family: p.meta.family } : {}) } as IDataObject,
						})
					: Promise.resolve(p),
			),
		);
		for (const [i, r] of routed.entries()) {
			const p = planned[i];
			const json = 'o' in p && p.o.keepInputFields ? { ...inputFields(items[i].json), ...r.item.json } : r.item.json;
			outputs[r.output].push({ ...r.item, json: transport.redactValue(json), pairedItem: { item: i } });
		}
		return outputs;
	}
}
