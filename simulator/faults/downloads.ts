/** Download faults: the result host's and `/content`'s bodies broken the way misbehaving upstreams break them. */
import {
	endlessMp4,
	endlessPng,
	headerOnlyPng,
	jpegWithoutScan,
	junk,
	shortMp4,
	truncatedImage,
} from '../media/broken-media';
import type { Answer, Download } from '../gateway/answer';
import { downloadBody, downloadMime, sendDownload } from '../gateway/results';
import { bufferBody, type Body } from '../media/body';
import { baseImage } from '../media/images';
import { mp4Body } from '../media/mp4';
import type { Pace } from '../media/send';
import type { SimState } from '../state';
import type { FaultKind, FaultSpec } from './book';

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

/** What the download sends instead of its real bytes (still after the time to first byte, at the bandwidth). */
async function broken(
	sim: SimState,
	d: Download,
	fault: FaultSpec,
): Promise<{ type: string; body: Body; pace?: Pace }> {
	const mime = downloadMime(d);
	const natural = () => downloadBody(sim, d);
	switch (fault.kind) {
		case 'html-result': {
			const html = Buffer.from('<!DOCTYPE html><html><body>Error 502: bad gateway</body></html>');
			return { type: fault.status === 1 ? 'text/html' : mime, body: bufferBody([html]) };
		}
		case 'header-only-image':
			return { type: 'image/png', body: bufferBody([headerOnlyPng()]) };
		case 'jpeg-no-scan': {
			const jpeg = await baseImage(
				d.kind === 'image' ? d.width : 640,
				d.kind === 'image' ? d.height : 480,
				'jpeg',
				0,
			);
			return { type: 'image/jpeg', body: bufferBody([jpegWithoutScan(jpeg)]) };
		}
		case 'short-mp4':
			return { type: 'video/mp4', body: bufferBody([shortMp4()]) };
		case 'mp4-no-moov':
			return {
				type: 'video/mp4',
				body: mp4Body(
					d.kind === 'video' ? d.bytes : 100_000,
					d.kind === 'video' ? d.durationSec : 5,
					false,
				),
			};
		case 'endless':
			return {
				type: d.kind === 'image' ? 'image/png' : 'video/mp4',
				body: d.kind === 'image' ? endlessPng() : endlessMp4(),
				pace: { chunkPauseMs: fault.intervalMs },
			};
		case 'truncated-image': {
			const body = await natural();
			return {
				type: mime,
				body:
					d.kind === 'image'
						? bufferBody([truncatedImage(Buffer.concat([...body.chunks()]))])
						: headOf(body, Math.floor(body.length! * 0.6)),
			};
		}
		case 'padded-image':
			return { type: mime, body: withJunk(await natural(), 4096) };
		case 'trickle':
			return { type: mime, body: await natural(), pace: { trickleMs: fault.intervalMs ?? 500 } };
		case 'truncate':
		case 'cut-download': {
			const body = await natural();
			const half = Math.floor(body.length! / 2);
			return {
				type: mime,
				body,
				pace: {
					cutAfter:
						fault.kind === 'truncate' ? half : Math.min(fault.afterBytes ?? half, body.length!),
				},
			};
		}
		default:
			return { type: mime, body: await natural() };
	}
}

/** The download answer sent broken by `fault`. */
export function brokenDownload(sim: SimState, d: Download, fault: FaultSpec): Answer {
	return { kind: 'custom', write: (res) => sendDownload(sim, res, d, () => broken(sim, d, fault)) };
}
