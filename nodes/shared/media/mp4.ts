/** MP4 results: checked while they stream (constant memory), see bmff.ts. */
import { BmffChecker, MP4_RULES } from './bmff';

/** A checker for one MP4 download: push every byte in order, then `end()`. */
export function mp4Checker(): BmffChecker {
	return new BmffChecker(MP4_RULES);
}
