/**
 * P6: memory held per item in flight, not per batch (issue 42). N items, each with a 12 MiB image in n8n's
 * filesystem binary store (put there by a first node, as n8n's file nodes do), through the Chat node to a loopback
 * gateway that samples the process's memory each time a request arrives: after a full garbage collection, the heap
 * plus Buffers, minus the same just before the Chat node ran. What a request holds is its own images (and their
 * Base64 in its body); growth that rises with N means the batch's images are held at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import sharp from 'sharp';
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { removeBinaryStore, runChain } from './n8n-core';

// the built package (npm run bench builds it first): the code users install, not the sources beside it
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GenGatewayChat } = require('../dist') as typeof import('../index');

const MiB = 1024 * 1024;

/** Full collections on demand (the bench runs without --expose-gc). */
function collector(): () => void {
	setFlagsFromString('--expose-gc');
	return runInNewContext('gc') as () => void;
}

/** heap + Buffers after a full collection: what is held, not what is garbage */
function held(gc: () => void): number {
	gc();
	gc();
	const m = process.memoryUsage();
	return m.heapUsed + m.external;
}

/** A PNG of noise of about `mib` MiB (stored, not compressed: its size is its pixels). */
async function bigPng(mib: number): Promise<Buffer> {
	const side = Math.ceil(Math.sqrt((mib * MiB) / 3));
	return sharp({
		create: {
			width: side,
			height: side,
			channels: 3,
			background: '#808080',
			noise: { type: 'gaussian', mean: 128, sigma: 40 },
		},
	})
		.png({ compressionLevel: 0 })
		.toBuffer();
}

/** The first node: one item per prompt, each with the image put in n8n's binary store as `data`. */
function attach(png: Buffer, n: number, onDone: () => void): INodeType {
	return {
		description: {
			displayName: 'Attach',
			name: 'benchAttach',
			group: ['transform'],
			version: 1,
			description: 'bench: items with an image',
			defaults: { name: 'Attach' },
			inputs: ['main'],
			outputs: ['main'],
			properties: [],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const items: INodeExecutionData[] = [];
			for (let k = 0; k < n; k++)
				items.push({
					json: { q: `item ${k}: what is in this picture?` },
					binary: { data: await this.helpers.prepareBinaryData(png, `in${k}.png`, 'image/png') },
				});
			onDone();
			return [items];
		},
	} as INodeType;
}

/** A gateway that answers every chat request at once and samples memory when each arrives. */
async function gateway(sample: () => void): Promise<{ server: Server; url: string }> {
	const server = createServer((req, res) => {
		if (req.method !== 'POST') {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end('{"error":{"message":"not here"}}');
			return;
		}
		req.resume();
		req.on('end', () => {
			sample();
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				'{"choices":[{"index":0,"message":{"role":"assistant","content":"a picture"},"finish_reason":"stop"}]}',
			);
		});
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface ImagesRow {
	n: number;
	/** held at the first request, over what was held before the Chat node ran */
	firstMiB: number;
	/** the most held at any request */
	maxMiB: number;
	requests: number;
}

/** N items × `imageMiB` images through the Chat node, for each N. */
export async function benchImages(ns: number[], imageMiB = 12): Promise<ImagesRow[]> {
	const gc = collector();
	const png = await bigPng(imageMiB);
	const rows: ImagesRow[] = [];
	for (const n of ns) {
		let before = 0;
		const samples: number[] = [];
		const gw = await gateway(() => samples.push(held(gc) - before));
		try {
			const r = await runChain(
				[
					{ name: 'Attach', type: attach(png, n, () => (before = held(gc))), parameters: {} },
					{
						name: 'Chat',
						type: new GenGatewayChat(),
						parameters: {
							model: { __rl: true, mode: 'id', value: 'alpha-vision-1' },
							messagesFrom: 'ui',
							messages: { values: [{ role: 'user', content: '={{ $json.q }}' }] },
							stream: false,
							options: { imageBinaries: 'data' },
						},
					},
				],
				[{ json: {} }],
				{ type: 'genGatewayApi', data: { apiKey: 'sk-bench-images-0123456789', baseUrl: gw.url } },
			);
			if (r.error) throw new Error(`P6 N=${n}: ${r.error}`);
		} finally {
			gw.server.closeAllConnections();
			gw.server.close();
			removeBinaryStore();
		}
		rows.push({
			n,
			firstMiB: (samples[0] ?? NaN) / MiB,
			maxMiB: Math.max(...samples) / MiB,
			requests: samples.length,
		});
	}
	return rows;
}
