/**
 * The one simulator set-up of a test file: `const sim = useSimulator({ taskLatencyMs: 100 })` at the top of a file
 * (or a describe) starts the simulator before its tests with these options and stops it after them; `{ reset: true }`
 * also resets it (log, ledger, faults, tasks) before each test. `sim` stands for the running simulator: read it only
 * inside hooks and tests.
 */
import { startSimulator, type Simulator, type SimulatorOptions } from '../../simulator';

export function useSimulator(
	opts: SimulatorOptions = {},
	each: { reset?: boolean } = {},
): Simulator {
	let running: Simulator | undefined;
	beforeAll(async () => {
		running = await startSimulator(opts);
	});
	afterAll(async () => {
		await running?.stop();
		running = undefined;
	});
	if (each.reset) beforeEach(() => current().reset());
	const current = (): Simulator => {
		if (!running) throw new Error('useSimulator: the simulator runs only inside hooks and tests');
		return running;
	};
	return new Proxy({} as Simulator, {
		get: (_, key) => {
			const sim = current();
			const value: unknown = Reflect.get(sim, key, sim);
			return typeof value === 'function' ? value.bind(sim) : value;
		},
		set: (_, key, value) => Reflect.set(current(), key, value),
		has: (_, key) => Reflect.has(current(), key),
	});
}
