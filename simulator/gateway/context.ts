/**
 * What a route gets: the request as the gateway read it, and its context (the simulator's state, the caller's key,
 * the log line, the upstream's behaviour, the model check). Types only, so every handler can name them without
 * importing the gateway's front (which imports the route table, which imports the handlers).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KeyInfo } from '../catalog/keys';
import type { RequestLogEntry, SimState } from '../state';
import type { Answer } from './answer';
import type { Upstream } from './upstream';

export interface Req {
	method: string;
	path: string;
	query: URLSearchParams;
	headers: IncomingMessage['headers'];
	raw: IncomingMessage;
	res: ServerResponse;
	body: Buffer;
	/** parsed JSON body, or undefined */
	json?: unknown;
	/** parsed multipart body, or undefined */
	form?: FormData;
}

/** What a route gets: the simulator's state, the caller's key, the request, its log line and the upstream's behaviour. */
export interface Ctx {
	sim: SimState;
	key: KeyInfo;
	req: Req;
	log: RequestLogEntry;
	upstream: Upstream;
	/** the request's model (recorded in the log), or its refusal: missing, unknown, not the key's, no channel, no quota */
	model: (model: unknown) => string | Answer;
}
