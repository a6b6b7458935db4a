/** A free TCP port on the loopback interface, for a server a script or test starts (n8n, its task broker, services). */
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
	return new Promise((res, rej) => {
		const s = createServer();
		s.once('error', rej);
		s.listen(0, '127.0.0.1', () => {
			const p = (s.address() as { port: number }).port;
			s.close(() => res(p));
		});
	});
}
