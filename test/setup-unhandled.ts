/**
 * Fails the test during which an unhandled rejection, an uncaught exception or an 'error' event without a
 * listener happened. Jest alone pins such an error on whichever test runs when it surfaces (often the next one),
 * and after the last test of a file it reports nothing at all. Here every one is recorded where it is emitted
 * (EventEmitter.prototype.emit is shared by the real process, sockets and streams; the `process` a test sees is a
 * copy whose listeners never fire), each test waits a few ticks for what it set off (a stream destroyed at its end
 * emits on the next tick), and a test with records fails naming them. What surfaces after a file's last hook fails
 * the next file of the same worker, naming the file that caused it.
 */
import { EventEmitter } from 'node:events';

interface Problem {
	what: string;
	detail: string;
	test: string;
	file: string;
}

interface Recorder {
	problems: Problem[];
	file: string;
	/** the last error reported as an 'error' event without a listener (it comes back as an uncaught exception) */
	lastEventError?: unknown;
}

const KEY = Symbol.for('gen-gateway.test.unhandled');
type Proto = EventEmitter & { [KEY]?: Recorder };
const proto = EventEmitter.prototype as Proto;

const describeError = (e: unknown) =>
	(e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e))
		.split('\n')
		.slice(0, 8)
		.join('\n');
const currentTest = () => expect.getState().currentTestName ?? '(between tests)';
const isProcess = (o: unknown) =>
	!!o &&
	typeof (o as NodeJS.Process).pid === 'number' &&
	typeof (o as NodeJS.Process).kill === 'function';

function install(): Recorder {
	const existing = proto[KEY];
	if (existing) return existing;
	const recorder: Recorder = { problems: [], file: '' };
	const original = proto.emit;
	const record = (what: string, err: unknown) =>
		recorder.problems.push({
			what,
			detail: describeError(err),
			test: currentTest(),
			file: recorder.file,
		});
	proto.emit = function emit(
		this: EventEmitter,
		type: string | symbol,
		...args: unknown[]
	): boolean {
		if (type === 'error' && this.listenerCount('error') === 0 && !isProcess(this)) {
			recorder.lastEventError = args[0];
			record(
				`an 'error' event without a listener on a ${this.constructor?.name ?? 'EventEmitter'}`,
				args[0],
			);
		} else if ((type === 'uncaughtException' || type === 'unhandledRejection') && isProcess(this)) {
			const err = args[0] as { code?: string; context?: unknown };
			const echo = err?.code === 'ERR_UNHANDLED_ERROR' && err.context === recorder.lastEventError;
			if (!echo)
				record(
					type === 'uncaughtException' ? 'an uncaught exception' : 'an unhandled rejection',
					err,
				);
		}
		return original.call(this, type, ...args);
	} as typeof proto.emit;
	Object.defineProperty(proto, KEY, { value: recorder });
	return recorder;
}

const recorder = install();

/** Lets what a test set off surface: pending ticks, immediates and short timers. */
async function settle(): Promise<void> {
	for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
	await new Promise((r) => setTimeout(r, 5));
	await new Promise((r) => setImmediate(r));
}

function take(): Problem[] {
	return recorder.problems.splice(0);
}

const report = (list: Problem[], where: string) =>
	new Error(
		`${list.length} unhandled error${list.length === 1 ? '' : 's'} ${where}:\n` +
			list
				.map((p) => `• ${p.what}${p.file !== recorder.file ? ` (in ${p.file})` : ''}:\n${p.detail}`)
				.join('\n'),
	);

beforeAll(() => {
	const left = take();
	recorder.file = expect.getState().testPath ?? '';
	if (left.length) throw report(left, 'after the last test of an earlier file of this worker');
});

afterEach(async () => {
	await settle();
	const list = take();
	if (list.length) throw report(list, 'during this test (or set off by it)');
});

afterAll(async () => {
	await settle();
	const list = take();
	if (list.length) throw report(list, 'after the tests of this file');
});
