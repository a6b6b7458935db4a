/** Task-creating POSTs: the submit latency and the concurrency limit that refuses the extra ones with 429. */
import type { ServerResponse } from 'node:http';
import type { SimState } from './state';

const SUBMIT_PATHS = [
	/^\/v1\/images\/(?:generations|edits)(?:\/async)?$/,
	/^\/v1\/image-tasks\/(?:generations|edits)$/,
	/^\/v1beta\/models\/[^/:]+:generateContent$/,
	/^\/v1\/videos$/,
	/^\/v1\/video\/generations$/,
];

/** Requests that create a task or generate (image async/sync/edits, native generateContent, video create). */
export function isSubmit(method: string, path: string): boolean {
	return method === 'POST' && SUBMIT_PATHS.some((re) => re.test(path));
}

/** Takes a slot for a submission, held until its answer is finished or dropped; false when the limit is reached. */
export function admitSubmit(sim: SimState, res: ServerResponse): boolean {
	if (sim.submitsInFlight >= sim.opts.maxConcurrentSubmits) return false;
	sim.submitsInFlight++;
	res.once('close', () => sim.submitsInFlight--);
	return true;
}
