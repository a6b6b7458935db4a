/**
 * The demo workflows of examples/ as queue-mode workflows: the manual trigger becomes a production webhook
 * (answered at once; the execution goes through Redis to a worker). Every other node is unchanged, except the
 * wait-loop's Wait node, which waits long enough for n8n to park the execution in the database instead of
 * sleeping inside the worker (n8n's Wait node does that only from 65 s on).
 */
import { randomUUID } from 'node:crypto';
import { loadExample } from '../demo/workflows';

export const PARKING_WAIT_SECONDS = 65;

export interface QueueWorkflow {
	folder: string;
	/** webhook path: POST /webhook/<path> starts one execution */
	path: string;
	json: Record<string, unknown>;
}

/** How many webhook calls per workflow make the wanted numbers of image and video tasks, and the files each writes. */
export interface QueuePlan {
	calls: Record<string, number>;
	/** files (= tasks) each workflow's runs write in all */
	files: Record<string, number>;
}

/** text-to-image makes two images a run, wait-loop one (through the long-job loop), each video workflow one video. */
export function queuePlan(images: number, videos: number, waitLoops: number): QueuePlan {
	if (waitLoops > images || (images - waitLoops) % 2)
		throw new Error(
			`images (${images}) minus wait-loop runs (${waitLoops}) must be even and not negative: text-to-image makes 2 images a run`,
		);
	const calls = {
		'text-to-image': (images - waitLoops) / 2,
		'wait-loop': waitLoops,
		'delta-video': Math.ceil(videos / 2),
		'gamma-video': Math.floor(videos / 2),
	};
	return { calls, files: { ...calls, 'text-to-image': images - waitLoops } };
}

/** Credentials are the demo's (`CREDENTIAL_ID` of scripts/demo/workflows.ts). */
export function asWebhookWorkflow(
	folder: string,
	subst: { outDir: string; inputDir: string },
): QueueWorkflow {
	const wf = loadExample(folder, subst) as {
		id: string;
		name: string;
		nodes: Array<{ type: string; parameters: Record<string, unknown> }>;
	};
	const path = `gen-gateway-${folder}`;
	let triggers = 0;
	wf.nodes = wf.nodes.map((n) => {
		if (n.type === 'n8n-nodes-base.wait')
			return {
				...n,
				parameters: { ...n.parameters, amount: PARKING_WAIT_SECONDS, unit: 'seconds' },
			};
		if (n.type !== 'n8n-nodes-base.manualTrigger') return n;
		triggers++;
		return {
			...n,
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			webhookId: randomUUID(),
			parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		};
	});
	if (triggers !== 1)
		throw new Error(`examples/${folder}.json: expected one manual trigger, found ${triggers}`);
	return { folder, path, json: { ...wf, id: `${wf.id}q`, name: `${wf.name} (webhook)` } };
}
