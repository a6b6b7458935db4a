/** Download faults on the result host (`/r/`, `/v/`) and video `/content`: what the wire carries. */
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { useSimulator } from '../harness/simulator';
import { waitFor } from '../harness/wait';
import { client } from './client';
import { readWire } from './wire';

const sim = useSimulator(
	{
		quiet: true,
		taskLatencyMs: 10,
		videoLatencyMs: 10,
		syncLatencyMs: 0,
		videoBytes: 300_000,
		imageFormat: 'png',
	},
	{ reset: true },
);
const { call, gen, delta, videoDone } = client(() => sim);

const decodable = (buf: Buffer) =>
	sharp(buf)
		.raw()
		.toBuffer()
		.then(
			() => true,
			() => false,
		);

/** A fresh image result: its URL and route (and its natural bytes, from a fault-free download). */
async function image(
	model = 'alpha-image-2',
): Promise<{ url: string; route: string; natural: Buffer }> {
	const url = (await gen({ model }, '/v1/images/generations')).json.data[0].url as string;
	const natural = (await readWire(url)).body;
	return { url, route: `GET ${new URL(url).pathname}`, natural };
}

async function video(): Promise<{ url: string; route: string; auth: Record<string, string> }> {
	const id = (await delta()).json.id as string;
	await videoDone(id);
	return {
		url: `${sim.baseUrl}/v1/videos/${id}/content`,
		route: `GET /v1/videos/${id}/content`,
		auth: { authorization: `Bearer ${sim.keys.demo}` },
	};
}

async function gammaVideo(): Promise<{ url: string; route: string }> {
	const r = (
		await call('POST', '/v1/videos', {
			json: { model: 'gamma-video-1.0', prompt: 'x', seconds: 8 },
		})
	).json;
	const id = r.task_id ?? r.id ?? r.data?.task_id;
	const url: string = await waitFor(async () => {
		const b = (await call('GET', `/v1/videos/${id}`)).json;
		return b.result_url ?? b.video?.url ?? b.data?.result_url ?? b.data?.url ?? b.data?.video?.url;
	}, `gamma ${id}'s result`);
	return { url, route: `GET ${new URL(url).pathname}` };
}

describe('trickle', () => {
	it('result image: one byte every intervalMs, the full Content-Length announced', async () => {
		const img = await image();
		sim.fault({ route: img.route, kind: 'trickle', intervalMs: 100 });
		const w = await readWire(img.url, { maxBytes: 5 });
		expect(Number(w.headers['content-length'])).toBe(img.natural.length);
		expect(w.body).toEqual(img.natural.subarray(0, 5));
		expect(w.chunks.every((c) => c.bytes === 1)).toBe(true);
		expect(w.chunks[4].at - w.chunks[0].at).toBeGreaterThanOrEqual(350);
		// times: 1 — the next download is whole and quick
		const next = await readWire(img.url);
		expect(next.body).toEqual(img.natural);
	});

	it('video /content and the gamma result URL trickle the MP4', async () => {
		for (const v of [await video(), { ...(await gammaVideo()), auth: {} }]) {
			sim.fault({ route: v.route, kind: 'trickle', intervalMs: 60 });
			const w = await readWire(v.url, { headers: v.auth, maxBytes: 8 });
			expect(w.status).toBe(200);
			expect(Number(w.headers['content-length'])).toBe(300_000);
			expect(w.body.subarray(4, 8).toString('latin1')).toBe('ftyp');
			expect(w.chunks.length).toBe(8);
			expect(w.chunks[7].at - w.chunks[0].at).toBeGreaterThanOrEqual(350);
		}
	});

	it('a JSON answer (any gateway route) trickles byte by byte, until done', async () => {
		sim.fault({ route: 'GET /v1/images/tasks/', kind: 'trickle', intervalMs: 5 });
		const w = await readWire(`${sim.baseUrl}/v1/images/tasks/unknown_task`, {
			headers: { authorization: `Bearer ${sim.keys.demo}` },
		});
		expect(w.status).toBe(404);
		expect(w.ended).toBe('end');
		expect(JSON.parse(w.body.toString()).error.code).toBe('task_not_found');
		expect(w.chunks.length).toBeGreaterThan(w.body.length / 2);
		expect(w.chunks.at(-1)!.at - w.chunks[0].at).toBeGreaterThanOrEqual(
			(w.body.length - 1) * 5 * 0.8,
		);
	});
});

describe('endless', () => {
	it('image: a PNG signature then bytes for ever, no Content-Length', async () => {
		const img = await image();
		sim.fault({ route: img.route, kind: 'endless' });
		const w = await readWire(img.url, { maxBytes: 3 * 1024 * 1024 });
		expect(w.headers['content-length']).toBeUndefined();
		expect(w.headers['transfer-encoding']).toBe('chunked');
		expect(w.headers['content-type']).toBe('image/png');
		expect(w.body.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
		expect(w.ended).toBe('limit');
	});

	it('video /content and the gamma result: MP4-looking bytes for ever', async () => {
		for (const v of [await video(), { ...(await gammaVideo()), auth: {} }]) {
			sim.fault({ route: v.route, kind: 'endless' });
			const w = await readWire(v.url, { headers: v.auth, maxBytes: 2 * 1024 * 1024 });
			expect(w.headers['content-length']).toBeUndefined();
			expect(w.headers['content-type']).toBe('video/mp4');
			expect(w.body.subarray(4, 8).toString('latin1')).toBe('ftyp');
			expect(w.body.includes(Buffer.from('mdat'))).toBe(true);
			expect(w.ended).toBe('limit');
		}
	});
});

describe('broken images with a matching Content-Length', () => {
	it('header-only-image: PNG signature + IHDR, 33 bytes, claiming 100000x100000', async () => {
		const img = await image();
		sim.fault({ route: img.route, kind: 'header-only-image' });
		const w = await readWire(img.url);
		expect(w.headers['content-length']).toBe('33');
		expect(w.headers['content-type']).toBe('image/png');
		expect(w.body).toHaveLength(33);
		expect(w.body.subarray(12, 16).toString('latin1')).toBe('IHDR');
		expect([w.body.readUInt32BE(16), w.body.readUInt32BE(20)]).toEqual([100_000, 100_000]);
		expect(w.body.readUInt32BE(29)).toBe(crc32(w.body.subarray(12, 29)));
	});

	it('truncated-image: the real image cut to 60%, Content-Length matching', async () => {
		const img = await image();
		sim.fault({ route: img.route, kind: 'truncated-image' });
		const w = await readWire(img.url);
		expect(w.ended).toBe('end');
		expect(w.body).toEqual(img.natural.subarray(0, Math.floor(img.natural.length * 0.6)));
		expect(Number(w.headers['content-length'])).toBe(w.body.length);
		expect(await decodable(w.body)).toBe(false);
	});

	it('jpeg-no-scan: header segments only (no SOS, no EOI)', async () => {
		const img = await image();
		sim.fault({ route: img.route, kind: 'jpeg-no-scan' });
		const w = await readWire(img.url);
		expect(w.headers['content-type']).toBe('image/jpeg');
		expect(Number(w.headers['content-length'])).toBe(w.body.length);
		expect(w.body.subarray(0, 3).toString('hex')).toBe('ffd8ff');
		expect(w.body.includes(Buffer.from([0xff, 0xda]))).toBe(false);
		expect(w.body.subarray(-2).toString('hex')).not.toBe('ffd9');
		expect(
			w.body.includes(Buffer.from([0xff, 0xc0])) || w.body.includes(Buffer.from([0xff, 0xc2])),
		).toBe(true);
		expect(await decodable(w.body)).toBe(false);
	});

	it('padded-image: a valid image followed by junk, Content-Length matching', async () => {
		const img = await image();
		sim.fault({ route: img.route, kind: 'padded-image' });
		const w = await readWire(img.url);
		expect(w.body.subarray(0, img.natural.length)).toEqual(img.natural);
		expect(w.body.length).toBe(img.natural.length + 4096);
		expect(Number(w.headers['content-length'])).toBe(w.body.length);
	});
});

describe('b64-junk', () => {
	const junkCheck = async (b64: string) => {
		const buf = Buffer.from(b64, 'base64');
		expect(buf.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
		expect(buf.subarray(12, 16).toString('latin1')).toBe('IHDR');
		expect(buf.length).toBeGreaterThan(33);
		expect(await decodable(buf)).toBe(false);
	};

	it('sync image answer, async task data and native inlineData carry a valid header followed by junk', async () => {
		sim.fault({ route: 'POST /v1/images/generations', kind: 'b64-junk' });
		const sync = (await gen({ model: 'alpha-image-2' }, '/v1/images/generations')).json;
		await junkCheck(sync.data[0].b64_json);
		sim.fault({ route: 'POST /v1/images/generations/async', kind: 'b64-junk' });
		const t = (await gen({})).json.task_id;
		let done: Record<string, any> = {};
		for (let k = 0; k < 100 && done.status !== 'completed'; k++)
			done = (await call('GET', `/v1/images/tasks/${t}`)).json;
		expect(done.data[0].url).toBeUndefined();
		await junkCheck(done.data[0].b64_json);
		expect(done.result.data[0].b64_json).toBe(done.data[0].b64_json);
		sim.fault({ route: ':generateContent', kind: 'b64-junk' });
		const native = (
			await call('POST', '/v1beta/models/beta-3.1-flash-image-preview:generateContent', {
				json: { contents: [{ parts: [{ text: 'x' }] }] },
			})
		).json;
		const part = native.candidates[0].content.parts.find(
			(p: Record<string, any>) => p.inlineData || p.inline_data,
		);
		await junkCheck((part.inlineData ?? part.inline_data).data);
	});
});

describe('broken MP4s on /content and the gamma result URL', () => {
	it('short-mp4: an 8-byte ....ftyp file', async () => {
		for (const v of [await video(), { ...(await gammaVideo()), auth: {} }]) {
			sim.fault({ route: v.route, kind: 'short-mp4' });
			const w = await readWire(v.url, { headers: v.auth });
			expect(w.headers['content-type']).toBe('video/mp4');
			expect(w.headers['content-length']).toBe('8');
			expect(w.body.toString('hex')).toBe('0000000866747970');
		}
	});

	it('mp4-no-moov: ftyp + mdat, no moov', async () => {
		for (const v of [await video(), { ...(await gammaVideo()), auth: {} }]) {
			sim.fault({ route: v.route, kind: 'mp4-no-moov' });
			const w = await readWire(v.url, { headers: v.auth });
			expect(Number(w.headers['content-length'])).toBe(w.body.length);
			const boxes: string[] = [];
			for (let i = 0; i < w.body.length; i += w.body.readUInt32BE(i))
				boxes.push(w.body.subarray(i + 4, i + 8).toString('latin1'));
			expect(boxes).toEqual(['ftyp', 'mdat']);
		}
	});
});

describe('cut-download', () => {
	it('result host: reset after afterBytes with the full Content-Length announced; with times 1 the retry is whole', async () => {
		const img = await image();
		sim.fault({ route: img.route, kind: 'cut-download', afterBytes: 1000, times: 1 });
		const w = await readWire(img.url);
		expect(Number(w.headers['content-length'])).toBe(img.natural.length);
		expect(w.ended).toBe('aborted');
		expect(w.body).toEqual(img.natural.subarray(0, 1000));
		const retry = await readWire(img.url);
		expect(retry.ended).toBe('end');
		expect(retry.body).toEqual(img.natural);
	});

	it('/content: half by default, then whole on the next try', async () => {
		const v = await video();
		sim.fault({ route: v.route, kind: 'cut-download' });
		const w = await readWire(v.url, { headers: v.auth });
		expect(w.headers['content-length']).toBe('300000');
		expect(w.ended).toBe('aborted');
		expect(w.body.length).toBe(150_000);
		const retry = await readWire(v.url, { headers: v.auth });
		expect(retry.body.length).toBe(300_000);
		expect(retry.ended).toBe('end');
	});
});
