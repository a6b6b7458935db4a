/** Whether a stored file really decodes: sharp to the last pixel for images, ffprobe and a full ffmpeg decode for videos. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';

const run = promisify(execFile);

/** undefined when the file decodes, else why not. */
export async function undecodable(bytes: Buffer, mimeType: string): Promise<string | undefined> {
	if (mimeType.startsWith('image/')) {
		try {
			await sharp(bytes, { failOn: 'truncated' }).raw().toBuffer();
			return undefined;
		} catch (err) {
			return `sharp: ${(err as Error).message}`;
		}
	}
	if (mimeType.startsWith('video/')) {
		const dir = await mkdtemp(join(tmpdir(), 'gg-oracle-'));
		const file = join(dir, 'v.mp4');
		try {
			await writeFile(file, bytes);
			const probe = await run('ffprobe', [
				'-v',
				'error',
				'-show_entries',
				'stream=codec_type',
				'-of',
				'csv=p=0',
				file,
			]).catch((e: { stderr?: string; message: string }) => ({
				stdout: '',
				stderr: e.stderr || e.message,
			}));
			if (probe.stderr.trim() || !/video/.test(probe.stdout))
				return `ffprobe: ${probe.stderr.trim() || 'no video stream'}`;
			const dec = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'null', '-']).catch(
				(e: { stderr?: string; message: string }) => ({
					stdout: '',
					stderr: e.stderr || e.message,
				}),
			);
			return dec.stderr.trim() ? `ffmpeg: ${dec.stderr.trim().slice(0, 200)}` : undefined;
		} finally {
			await rm(dir, { recursive: true, force: true });
		}
	}
	return `not an image or video: ${mimeType}`;
}
