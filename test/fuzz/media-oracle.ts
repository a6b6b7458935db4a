/**
 * The valid files the media fuzzer starts from, and the oracles it holds the node's verdict to: images decoded in
 * full by sharp at its strictest (failOn 'warning'; BMP, which libvips cannot read, by ffmpeg), videos by ffprobe and
 * a full ffmpeg decode (every stream: video and audio). An oracle "decodes" a file when it finishes without reporting any error.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Format } from './media-mutations';
import { bmp } from '../harness/inputs';

const noise = (width: number, height: number, pageHeight?: number) =>
	sharp({
		create: {
			width,
			height,
			channels: 3,
			background: '#000',
			noise: { type: 'gaussian', mean: 128, sigma: 60 },
			...(pageHeight ? { pageHeight } : {}),
		},
	});

/** A one-second 64x64 H.264 MP4 by ffmpeg, moov first (`faststart`) or last; `h265`: H.265 (hvc1) with an AAC track, moov first. */
export function ffmpegMp4(faststart: boolean, h265 = false): Buffer {
	const dir = mkdtempSync(join(tmpdir(), 'gg-fuzz-mp4-'));
	try {
		const out = join(dir, 'v.mp4');
		const codecs = h265
			? [
					'-f',
					'lavfi',
					'-i',
					'sine=frequency=440:sample_rate=8000',
					'-c:v',
					'libx265',
					'-x265-params',
					'log-level=error:info=0',
					'-tag:v',
					'hvc1',
					'-c:a',
					'aac',
					'-ac',
					'1',
					'-b:a',
					'16k',
				]
			: ['-c:v', 'libx264'];
		execFileSync('ffmpeg', [
			'-v',
			'error',
			'-y',
			'-f',
			'lavfi',
			'-i',
			'testsrc=size=64x64:rate=10',
			...codecs,
			'-t',
			'1',
			'-pix_fmt',
			'yuv420p',
			...(faststart ? ['-movflags', '+faststart'] : []),
			out,
		]);
		return readFileSync(out);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

export async function seeds(): Promise<
	Record<Exclude<Format, 'mp4'>, Buffer> & {
		'mp4 faststart': Buffer;
		'mp4 moov last': Buffer;
		'mp4 h265 aac': Buffer;
	}
> {
	return {
		png: await noise(96, 64).png({ compressionLevel: 1 }).toBuffer(),
		jpeg: await noise(64, 48).jpeg({ quality: 80 }).toBuffer(),
		webp: await noise(64, 48).webp().toBuffer(),
		gif: await noise(32, 64, 32).gif({ loop: 0 }).toBuffer(),
		tiff: await noise(48, 32).tiff({ compression: 'lzw' }).toBuffer(),
		bmp: bmp(16, 12, 'noise'),
		'mp4 faststart': ffmpegMp4(true),
		'mp4 moov last': ffmpegMp4(false),
		'mp4 h265 aac': ffmpegMp4(true, true),
	};
}

export async function sharpDecodes(b: Buffer): Promise<boolean> {
	try {
		await sharp(b, { failOn: 'warning', animated: true }).raw().toBuffer();
		return true;
	} catch {
		return false;
	}
}

function run(cmd: string, args: string[]): Promise<{ ok: boolean; stderr: string }> {
	return new Promise((resolve) => {
		execFile(cmd, args, { timeout: 30_000, maxBuffer: 4 * 1024 * 1024 }, (err, _stdout, stderr) =>
			resolve({ ok: !err && !stderr.trim(), stderr: String(stderr).trim() }),
		);
	});
}

let tmp: string | undefined;
let n = 0;

/** ffmpeg's complaints about timestamps only (frames decode, but in the wrong order or time: e.g. a B-frame track without ctts) */
const TIMING =
	/non monotonically increasing dts|Invalid timestamps|Non-monotonous DTS|pts has no value/i;

/**
 * ffprobe, then a full decode by ffmpeg (every stream): ok when neither reports an error. `timingOnly`: every error was about
 * timestamps, none about decoding.
 */
export async function ffmpegDecodes(
	b: Buffer,
	ext: string,
): Promise<{ ok: boolean; why: string; timingOnly?: boolean }> {
	tmp ??= mkdtempSync(join(tmpdir(), 'gg-fuzz-'));
	const file = join(tmp, `f${n++}.${ext}`);
	writeFileSync(file, b);
	try {
		const probe = await run('ffprobe', ['-v', 'error', file]);
		if (!probe.ok) return { ok: false, why: `ffprobe: ${probe.stderr.split('\n')[0]}` };
		const decode = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'null', '-']);
		const lines = decode.stderr.split('\n').filter(Boolean);
		return {
			ok: decode.ok,
			why: decode.ok ? '' : `ffmpeg: ${lines[0] ?? 'failed'}`,
			timingOnly: !decode.ok && lines.length > 0 && lines.every((l) => TIMING.test(l)),
		};
	} finally {
		rmSync(file, { force: true });
	}
}

export function cleanupOracle(): void {
	if (tmp) rmSync(tmp, { recursive: true, force: true });
	tmp = undefined;
}
