/** The files the hostile result host serves: real images and a real MP4, and broken ones that only look like them. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import {
	headerOnlyPng,
	jpegWithoutScan,
	paddedWithJunk,
	shortMp4,
	truncatedImage,
} from '../../simulator/media/broken-media';
import { mp4Body } from '../../simulator/media/mp4';

export const IMAGE_VARIANTS = [
	'png',
	'jpeg',
	'cut-png',
	'header-only',
	'jpeg-no-scan',
	'padded-png',
	'html',
	'empty',
] as const;
export const VIDEO_VARIANTS = ['mp4', 'grown', 'short', 'cut-mp4', 'html', 'empty'] as const;
export type ImageVariant = (typeof IMAGE_VARIANTS)[number];
export type VideoVariant = (typeof VIDEO_VARIANTS)[number];

export interface Media {
	image(v: ImageVariant): { bytes: Buffer; type: string };
	video(v: VideoVariant): { bytes: Buffer; type: string };
}

/** A one-second 64x48 H.264 (or MPEG-4 part 2) MP4 made by ffmpeg: the only video here that decodes. */
function realMp4(): Buffer {
	const dir = mkdtempSync(join(tmpdir(), 'gg-prop-mp4-'));
	try {
		const out = join(dir, 'v.mp4');
		const common = [
			'-v',
			'error',
			'-y',
			'-f',
			'lavfi',
			'-i',
			'testsrc=size=64x48:rate=24',
			'-t',
			'1',
			'-pix_fmt',
			'yuv420p',
			'-movflags',
			'+faststart',
		];
		try {
			execFileSync('ffmpeg', [...common, '-c:v', 'libx264', out]);
		} catch {
			execFileSync('ffmpeg', [...common, '-c:v', 'mpeg4', out]);
		}
		return readFileSync(out);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

export async function makeMedia(): Promise<Media> {
	const base = sharp({
		create: { width: 40, height: 30, channels: 3, background: { r: 10, g: 120, b: 200 } },
	});
	const png = await base.clone().png().toBuffer();
	const jpeg = await base.clone().jpeg().toBuffer();
	const mp4 = realMp4();
	// the simulator's MP4: a real frame whose media data is grown with unreferenced bytes (before, filler frames that no
	// decoder accepted under a valid box structure: found by seeds 1561573057 and 1726363765)
	const grown = Buffer.concat([...mp4Body(4096, 1).chunks()]);
	const html = Buffer.from('<!doctype html><title>CDN</title><p>Access denied</p>');
	const images: Record<ImageVariant, { bytes: Buffer; type: string }> = {
		png: { bytes: png, type: 'image/png' },
		jpeg: { bytes: jpeg, type: 'image/jpeg' },
		'cut-png': { bytes: truncatedImage(png, 0.6), type: 'image/png' },
		'header-only': { bytes: headerOnlyPng(40, 30), type: 'image/png' },
		'jpeg-no-scan': { bytes: jpegWithoutScan(jpeg), type: 'image/jpeg' },
		'padded-png': { bytes: paddedWithJunk(png, 512), type: 'image/png' },
		html: { bytes: html, type: 'image/png' },
		empty: { bytes: Buffer.alloc(0), type: 'image/png' },
	};
	const videos: Record<VideoVariant, { bytes: Buffer; type: string }> = {
		mp4: { bytes: mp4, type: 'video/mp4' },
		grown: { bytes: grown, type: 'video/mp4' },
		short: { bytes: shortMp4(), type: 'video/mp4' },
		'cut-mp4': { bytes: mp4.subarray(0, Math.floor(mp4.length * 0.7)), type: 'video/mp4' },
		html: { bytes: html, type: 'video/mp4' },
		empty: { bytes: Buffer.alloc(0), type: 'video/mp4' },
	};
	return { image: (v) => images[v], video: (v) => videos[v] };
}
