/**
 * The pipeline's object store and mailbox, on loopback, in this process (PostgreSQL comes from
 * scripts/queue/services.ts):
 * - an S3-protocol store: s3rver (npm), objects kept as files under a temporary folder; n8n's S3 node signs its
 *   requests with AWS Signature V4 and s3rver checks them against the one key pair it knows;
 * - an SMTP server: smtp-server (npm, the Nodemailer project's), with AUTH PLAIN/LOGIN against one account,
 *   every accepted message delivered as one .eml file into a Maildir-like folder the checks read.
 */
import {
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readdirSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from '../lib/port';

export interface ObjectStore {
	endpoint: string;
	region: string;
	accessKeyId: string;
	secretAccessKey: string;
	bucket: string;
	/** the objects of the bucket: key → bytes */
	objects(): Map<string, Buffer>;
	stop(): Promise<void>;
}

export interface Mailbox {
	host: string;
	port: number;
	user: string;
	password: string;
	/** the folder holding one .eml file per delivered message */
	dir: string;
	/** every delivered message, parsed, oldest first */
	messages(): Promise<Array<ParsedMail & { raw: string }>>;
	stop(): Promise<void>;
}

export async function startObjectStore(bucket: string): Promise<ObjectStore> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const S3rver = require('s3rver') as new (opts: Record<string, unknown>) => {
		run(): Promise<{ port: number }>;
		close(): Promise<void>;
	};
	const dir = mkdtempSync(join(tmpdir(), 'gg-s3-'));
	const port = await freePort();
	const accessKeyId = 'S3RVER';
	const secretAccessKey = 'S3RVER';
	const server = new S3rver({
		address: '127.0.0.1',
		port,
		silent: true,
		directory: dir,
		configureBuckets: [{ name: bucket }],
	});
	await server.run();
	const bucketDir = join(dir, bucket);
	return {
		endpoint: `http://127.0.0.1:${port}`,
		region: 'us-east-1',
		accessKeyId,
		secretAccessKey,
		bucket,
		objects() {
			// s3rver keeps each object as `<key>._S3rver_object` beside its metadata files
			const found = new Map<string, Buffer>();
			const walk = (d: string) => {
				for (const name of readdirSync(d)) {
					const p = join(d, name);
					if (statSync(p).isDirectory()) walk(p);
					else if (name.endsWith('._S3rver_object'))
						found.set(relative(bucketDir, p).slice(0, -'._S3rver_object'.length), readFileSync(p));
				}
			};
			walk(bucketDir);
			return found;
		},
		async stop() {
			await server.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

export async function startMailbox(): Promise<Mailbox> {
	const dir = mkdtempSync(join(tmpdir(), 'gg-mail-'));
	const newDir = join(dir, 'new');
	mkdirSync(newDir);
	const port = await freePort();
	const user = 'pipeline';
	const password = 'mail-passw0rd';
	let seq = 0;
	const server = new SMTPServer({
		secure: false,
		disabledCommands: ['STARTTLS'],
		allowInsecureAuth: true,
		authMethods: ['PLAIN', 'LOGIN'],
		size: 50 * 1024 * 1024,
		logger: false,
		onAuth(auth, _session, cb) {
			if (auth.username === user && auth.password === password) cb(null, { user });
			else cb(new Error('Invalid username or password'));
		},
		onData(stream, _session, cb) {
			const chunks: Buffer[] = [];
			stream.on('data', (c: Buffer) => chunks.push(c));
			stream.on('end', () => {
				writeFileSync(
					join(newDir, `${Date.now()}.${String(++seq).padStart(6, '0')}.eml`),
					Buffer.concat(chunks),
				);
				cb();
			});
		},
	});
	await new Promise<void>((res, rej) => {
		server.once('error', rej);
		server.listen(port, '127.0.0.1', () => res());
	});
	return {
		host: '127.0.0.1',
		port,
		user,
		password,
		dir: newDir,
		async messages() {
			const files = readdirSync(newDir).sort();
			return Promise.all(
				files.map(async (f) => {
					const raw = readFileSync(join(newDir, f), 'utf8');
					return Object.assign(await simpleParser(raw), { raw });
				}),
			);
		},
		async stop() {
			await new Promise<void>((res) => server.close(() => res()));
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
