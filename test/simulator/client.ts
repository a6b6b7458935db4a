/** A small HTTP client for the simulator tests: JSON or multipart calls with a key, task polling. */
import { FormData, request } from 'undici';
import type { Simulator } from '../../simulator';
import { waitFor } from '../harness/wait';

export interface Call {
	key?: string | null;
	json?: unknown;
	form?: FormData;
	headers?: Record<string, string>;
	base?: string;
}

export interface Answer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	json: Record<string, any>;
	buf: Buffer;
	ms: number;
}

export function client(sim: () => Simulator) {
	async function call(method: string, path: string, o: Call = {}): Promise<Answer> {
		const s = sim();
		const key = o.key === undefined ? s.keys.demo : o.key;
		const headers: Record<string, string> = { ...(o.headers ?? {}) };
		if (key) headers.authorization = `Bearer ${key}`;
		let body: string | FormData | undefined;
		if (o.json !== undefined) {
			headers['content-type'] = 'application/json';
			body = JSON.stringify(o.json);
		} else if (o.form) body = o.form;
		const t0 = Date.now();
		const res = await request(`${o.base ?? s.baseUrl}${path}`, {
			method: method as 'GET',
			headers,
			body: body as never,
		});
		const buf = Buffer.from(await res.body.arrayBuffer());
		let json: Record<string, any> | undefined;
		try {
			json = JSON.parse(buf.toString('utf8'));
		} catch {
			json = undefined;
		}
		return {
			status: res.statusCode,
			headers: res.headers,
			json: json as Record<string, any>,
			buf,
			ms: Date.now() - t0,
		};
	}
	const gen = (
		json: Record<string, unknown>,
		path = '/v1/images/generations/async',
		o: Call = {},
	) =>
		call('POST', path, {
			json: { model: 'alpha-image-2.5', prompt: 'a cat', size: '1024x1024', ...json },
			...o,
		});
	const delta = (json: Record<string, unknown> = {}, o: Call = {}) =>
		call('POST', '/v1/videos', {
			json: {
				model: 'delta-video-2-0-mini-260615',
				prompt: 'a dog',
				generate_audio: false,
				watermark: false,
				...json,
			},
			...o,
		});
	const untilDone = (id: string, o: Call = {}): Promise<Answer> =>
		waitFor(async () => {
			const r = await call('GET', `/v1/images/tasks/${id}`, o);
			return r.json?.status !== 'processing' && r;
		}, `task ${id} done`);
	const videoDone = (id: string, o: Call = {}): Promise<Answer> =>
		waitFor(async () => {
			const r = await call('GET', `/v1/videos/${id}`, o);
			return !['queued', 'in_progress', 'unknown'].includes(r.json?.status) && r;
		}, `video ${id} done`);
	/** GET on the result host, without a key */
	const fetchResult = (url: string) =>
		call('GET', new URL(url).pathname, { base: new URL(url).origin, key: null });
	return { call, gen, delta, untilDone, videoDone, fetchResult };
}
