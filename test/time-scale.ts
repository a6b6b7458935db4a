/**
 * The unit phase's clock: every back-off, Retry-After wait and poll floor of the package lasts TEST_TIME_SCALE of its
 * real length (nodes/shared/transport/clock.ts), set for every unit test file by test/setup-time-scale.ts. Timeouts and
 * deadlines are not scaled. Each timing rule keeps exactly one test at real time, wrapped in `atRealTime`, which
 * proves the rule at its real length; the other tests see the same rules, shorter.
 */
import { setTimeScaleForTests } from '../nodes/shared/transport/clock';

export const TEST_TIME_SCALE = 0.05;

/** Runs a test body at real time (scale 1), restoring the test scale afterwards. */
export function atRealTime<A extends unknown[], T>(
	fn: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
	return async (...args: A) => {
		const previous = setTimeScaleForTests(1);
		try {
			return await fn(...args);
		} finally {
			setTimeScaleForTests(previous);
		}
	};
}

/** Runs every test of the enclosing describe (or file) at real time: for tests of the timing rules' numbers themselves. */
export function useRealTime(): void {
	let previous = TEST_TIME_SCALE;
	beforeAll(() => {
		previous = setTimeScaleForTests(1);
	});
	afterAll(() => {
		setTimeScaleForTests(previous);
	});
}
