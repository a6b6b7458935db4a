/**
 * The one way a test waits for something to happen (a request in the simulator's log, a task done, a slot released):
 * `cond` is asked now and then every few milliseconds until it gives a truthy value, which is returned. Never a fixed
 * sleep standing in for the event; `ms` only ends a wait that would otherwise hang, naming what never came.
 */
export async function waitFor<T>(
	cond: () => T | Promise<T>,
	what: string,
	ms = 10_000,
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
	const end = Date.now() + ms;
	for (;;) {
		const value = await cond();
		if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 5));
	}
}
