/** The result host (`/r/<id>.<ext>`, `/v/<id>.mp4`) and how every download is sent: after its time to first byte, at its bandwidth. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bufferBody, type Body } from '../media/body';
import type { ImageFormat } from '../media/images';
import { mp4Body } from '../media/mp4';
import { resultImage } from '../media/padding';
import { pause, sendBody, type Pace } from '../media/send';
import type { SimState } from '../state';
import { openAiError, plain, type Answer, type Download } from './answer';

function mimeOf(format: ImageFormat): string {
	return format === 'jpeg' ? 'image/jpeg' : `image/${format}`;
}

export function downloadMime(d: Download): string {
	return d.kind === 'image' ? mimeOf(d.format) : 'video/mp4';
}

/** The download's real bytes. */
export async function downloadBody(sim: SimState, d: Download): Promise<Body> {
	return d.kind === 'image'
		? bufferBody(
				await resultImage(d.width, d.height, d.format, d.variant, d.id, sim.opts.imageBytes),
			)
		: mp4Body(d.bytes, d.durationSec);
}

/** Sends a download: `body` (default: its real bytes) after the time to first byte, at the bandwidth. */
export async function sendDownload(
	sim: SimState,
	res: ServerResponse,
	d: Download,
	broken?: () => Promise<{ type: string; body: Body; pace?: Pace }>,
): Promise<void> {
	await pause(res, sim.opts.resultTtfbMs);
	if (res.destroyed) return;
	const { type, body, pace } = broken
		? await broken()
		: { type: downloadMime(d), body: await downloadBody(sim, d), pace: {} };
	return sendBody(res, 200, { 'content-type': type }, body, {
		bytesPerSec: sim.opts.resultBandwidth,
		...pace,
	});
}

/** The result host: hosted images and gamma videos, by the ID in their address. */
export function resultHost(sim: SimState, raw: IncomingMessage): Answer {
	const path = new URL(raw.url ?? '/', 'http://x').pathname;
	if ((raw.method ?? 'GET') !== 'GET')
		return openAiError(405, 'method not allowed', 'method_not_allowed');
	const m = /^\/(r|v)\/([A-Za-z0-9_-]+)\.[a-z0-9]+$/.exec(path);
	const r = m ? sim.results.get(m[2]) : undefined;
	if (!r) return plain(404, { 'content-type': 'text/plain' }, 'not found');
	if (r.kind === 'video')
		return {
			kind: 'download',
			download: {
				kind: 'video',
				bytes: r.bytes ?? sim.opts.videoBytes,
				durationSec: r.durationSec ?? 5,
			},
		};
	return {
		kind: 'download',
		download: {
			kind: 'image',
			id: m![2],
			width: r.width!,
			height: r.height!,
			format: r.format!,
			variant: r.seed % 16,
		},
	};
}
