/**
 * The points where a real request can leave the spec's happy path: the connection is lost, the upstream reports an
 * error, a task query is refused, a stream is ignored or ends in an error. The faithful routes ask these questions at
 * the moment the gateway would meet them; `HAPPY_PATH` answers "nothing happens", and the fault layer
 * (../faults/layer.ts) answers from the armed faults. No route knows which fault, if any, is behind an answer.
 */
import type { ImageTask, VideoTask } from '../state';

export interface Upstream {
	/** the connection is lost after the request was accepted and before anything was created or charged */
	lostBeforeCommit(): boolean;
	/** the connection is lost after the task was created and charged, before the answer */
	lostAfterCommit(): boolean;
	/** a synchronous generation (sync image or native) was charged: the upstream's error text instead of images, if any */
	generationError(what: 'images' | 'native'): string | undefined;
	/** an image task was just built from the request: the upstream may change its outcome, error and result form */
	imageTaskCreated(task: ImageTask): void;
	/** a query of an image task: true when the gateway no longer knows the task (it answers 404) */
	imageTaskForgotten(task: ImageTask): boolean;
	/** a video task was just built from the request */
	videoTaskCreated(task: VideoTask): void;
	/** a status query of an existing video task: the HTTP status it is refused with, if any */
	videoQueryRefused(task: VideoTask): number | undefined;
	/** a status query that is answered: true when the upstream reports the status `unknown` this time */
	videoStatusUnknown(task: VideoTask): boolean;
	/** `/content` of a finished video: the HTTP status it is refused with, if any */
	contentRefused(task: VideoTask): number | undefined;
	/**
	 * chat/responses: the upstream answers plain JSON although `stream: true` was asked: `true`, or the Content-Type
	 * it labels that JSON with (a gateway that labels every answer to a streamed request `text/event-stream`)
	 */
	ignoresStream(): boolean | string;
	/** chat/responses: the upstream's error text (a 500 without `stream`, the stream's error event with it), if any */
	streamError(): string | undefined;
	/** chat/responses stream: it ends in a generic error event instead of its completion */
	streamFails(): boolean;
	/** responses stream: the completion event's name and extra response fields, when they differ from the usual */
	finalEvent(): { name: string; response: Record<string, unknown> } | undefined;
}

export const HAPPY_PATH: Upstream = {
	lostBeforeCommit: () => false,
	lostAfterCommit: () => false,
	generationError: () => undefined,
	imageTaskCreated: () => undefined,
	imageTaskForgotten: () => false,
	videoTaskCreated: () => undefined,
	videoQueryRefused: () => undefined,
	videoStatusUnknown: () => false,
	contentRefused: () => undefined,
	ignoresStream: () => false,
	streamError: () => undefined,
	streamFails: () => false,
	finalEvent: () => undefined,
};
