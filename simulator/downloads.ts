/** Result downloads (the result host's `/r/…`, `/v/…` and the video `/content`): latency, bandwidth and download faults. */
import type { ServerResponse } from 'node:http';
import { endlessMp4, endlessPng, headerOnlyPng, jpegWithoutScan, junk, shortMp4, truncatedImage } from './broken-media';
import { pause, sendBody, type Pace } from './delivery';
import type { FaultKind, FaultSpec } from './faults';
import { baseImage, bufferBody, mp4Body, type Body, type ImageFormat } from './media';
import { resultImage } from './padding';
import type { SimState } from './state';

export const DOWNLOAD_FAULTS: FaultKind[] = [
	'html-result',
	'truncate',
	'trickle',
	'endless',
	'cut-download',
	'header-only-image',
	'truncated-image',
	'jpeg-no-scan',
	'padded-image',
	'short-mp4',
	'mp4-no-moov',
];

export type Download =
	| { kind: 'image'; id: string; width: number; height: number; format: ImageFormat; variant: number }
	| { kind: 'video'; bytes: number; durationSec: number };

export function mimeOf(format: ImageFormat): string {
	return format === 'jpeg' ? 'image/jpeg' : `image/${format}`;
}

/** The first `bytes` of a body. */
function headOf(body: Body, bytes: number): Body {
	return {
		length: bytes,
		*chunks() {
			let left = bytes;
			for (const c of body.chunks()) {
				if (left <= 0) return;
				yield c.subarray(0, left);
				left -= c.length;
			}
		},
	};
}

function withJunk(body: Body, bytes: number): Body {
	return {
		length: body.length! + bytes,
		*chunks() {
			yield* body.chunks();
			yield junk(bytes);
		},
	};
}

/** Serves a download after the result host's time to first byte, at its bandwidth, as `fault` (if any) breaks it. */
export async function serveDownload(sim: SimState, res: ServerResponse, d: Download, fault: FaultSpec | undefined): Promise<void> {
	await pause(res, sim.opts.resultTtfbMs);
	if (res.destroyed) return;
	const pace: Pace = { bytesPerSec: sim.opts.resultBandwidth };
	const mime = d.kind === 'image' ? mimeOf(d.format) : 'video/mp4';
	const natural = async (): Promise<Body> => (d.kind === 'image' ? bufferBody(await resultImage(d.width, d.height, d.format, d.variant, d.id, sim.opts.imageBytes)) : mp4Body(d.bytes, d.durationSec));
	const send = (type: string, body: Body, extra: Pace = {}) => sendBody(res, 200, { 'content-type': type }, body, { ...pace, ...extra });
	switch (fault?.kind) {
		case 'html-result': {
			const html = Buffer.from('<!DOCTYPE html><html><body>Error 502: bad gateway</body></html>');
			return send(fault.status === 1 ? 'text/html' : mime, bufferBody([html]));
		}
		case 'header-only-image':
			return send('image/png', bufferBody([headerOnlyPng()]));
		case 'jpeg-no-scan': {
			const jpeg = await baseImage(d.kind === 'image' ? d.width : 640, d.kind === 'image' ? d.height : 480, 'jpeg', 0);
			return send('image/jpeg', bufferBody([jpegWithoutScan(jpeg)]));
		}
		case 'short-mp4':
			return send('video/mp4', bufferBody([shortMp4()]));
		case 'mp4-no-moov':
			return send('video/mp4', mp4Body(d.kind === 'video' ? d.bytes : 100_000, d.kind === 'video' ? d.durationSec : 5, false));
		case 'endless':
			return send(d.kind === 'image' ? 'image/png' : 'video/mp4', d.kind === 'image' ? endlessPng() : endlessMp4(), { chunkPauseMs: fault.intervalMs });
		case 'truncated-image': {
			const body = await natural();
			return send(mime, d.kind === 'image' ? bufferBody([truncatedImage(Buffer.concat([...body.chunks()]))]) : headOf(body, Math.floor(body.length! * 0.6)));
		}
		case 'padded-image':
			return send(mime, withJunk(await natural(), 4096));
		case 'trickle':
			return send(mime, await natural(), { trickleMs: fault.intervalMs ?? 500 });
		case 'truncate':
		case 'cut-download': {
			const body = await natural();
			const half = Math.floor(body.length! / 2);
			return send(mime, body, { cutAfter: fault.kind === 'truncate' ? half : Math.min(fault.afterBytes ?? half, body.length!) });
		}
		default:
			return send(mime, await natural());
	}
}
