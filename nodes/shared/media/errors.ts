/** A file that is not a complete, usable image or video: header only, truncated, padded, or broken inside. */
export class InvalidMediaError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'InvalidMediaError';
	}
}

export function invalid(format: string, why: string): InvalidMediaError {
	return new InvalidMediaError(`not a complete ${format}: ${why}`);
}

/** Largest picture accepted: generated images are far smaller; a header claiming more is not a real result. */
export interface ImageLimits {
	/** longest side in pixels; default 16384 */
	maxSide: number;
	/** width × height; default 100 million */
	maxPixels: number;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = { maxSide: 16384, maxPixels: 100_000_000 };

export function checkDimensions(
	format: string,
	width: number,
	height: number,
	limits: ImageLimits,
): void {
	if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1)
		throw invalid(format, `its size ${width}x${height} is not a picture`);
	if (width > limits.maxSide || height > limits.maxSide || width * height > limits.maxPixels) {
		throw invalid(
			format,
			`its size ${width}x${height} is beyond any generated image (at most ${limits.maxSide} px a side, ${limits.maxPixels / 1e6} megapixels)`,
		);
	}
}

/** A generated result that is not a usable file (wrong type, broken, too large, gone). */
export class ResultInvalidError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ResultInvalidError';
	}
}

/**
 * The result could not be downloaded: the network failed (cut, stalled, refused, 5xx) on every attempt within the
 * download's time. The task itself succeeded; its result may still be there to download later.
 */
export class ResultDownloadError extends ResultInvalidError {
	readonly retryLater = true;
	constructor(message: string) {
		super(message);
		this.name = 'ResultDownloadError';
	}
}
