/** The spec's suggested client timeouts (client choices, not service guarantees), in milliseconds. */
export const DEFAULT_TIMEOUTS = {
	submit: 60_000,
	query: 30_000,
	syncImage: 600_000,
	imageDownload: 120_000,
	videoSubmit: 120_000,
	videoDownload: 180_000,
	/** chat/responses: non-streaming calls may take long; streams use an idle timeout instead */
	text: 600_000,
	streamIdle: 60_000,
	/** the whole of a streamed text answer, whatever its idle gaps */
	streamTotal: 30 * 60_000,
	/** longest gap between two chunks of a download (image or video); the whole download is bounded by its kind's timeout */
	downloadIdle: 30_000,
	/** overall wait for a task */
	overallWait: 30 * 60_000,
} as const;

export type TimeoutKind = keyof typeof DEFAULT_TIMEOUTS;
