/** A free TCP port on the loopback interface, for a server a script or test starts (n8n, its task broker, services). */
import { createServer } from 'node:net';

/**
 * Ports this process handed out: the OS may give a port back as soon as the probe closes it, so two calls in a row
 * could name the same port for two servers (n8n's main port and its task broker's, seen in CI); never the same twice.
 */
const handedOut = new Set<number>();

function probe(): Promise<number> {
	return new Promise((res, rej) => {
		const s = createServer();
		s.once('error', rej);
		s.listen(0, '127.0.0.1', () => {
			const p = (s.address() as { port: number }).port;
			s.close(() => res(p));
		});
	});
}

export async function freePort(): Promise<number> {
	for (let tries = 0; ; tries++) {
		const p = await probe();
		if (!handedOut.has(p) || tries >= 20) {
			handedOut.add(p);
			return p;
		}
	}
}
