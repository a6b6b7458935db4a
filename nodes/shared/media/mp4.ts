/** MP4 results: checked while they stream (bmff.ts, moov.ts), then their H.264/H.265 samples in the stored file (nal.ts). */
import { BmffChecker, MP4_RULES } from './bmff';
import { checkNalFraming, fileReader, type ReadAt } from './nal';

/** A checker for one MP4 download: push every byte in order, then `end()`, then `checkMp4Samples` on the stored file. */
export function mp4Checker(): BmffChecker {
	return new BmffChecker(MP4_RULES);
}

/** After `checker.end()` passed: the NAL units of every H.264/H.265 sample tile it, read through `read` or from `path`. */
export async function checkMp4Samples(
	checked: ReturnType<BmffChecker['end']>,
	source: { path: string } | { read: ReadAt },
): Promise<void> {
	if (!checked.framed?.count) return;
	if ('read' in source) return checkNalFraming(checked.framed, source.read);
	const file = await fileReader(source.path);
	try {
		await checkNalFraming(checked.framed, file.read);
	} finally {
		await file.close();
	}
}
