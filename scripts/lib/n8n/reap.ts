/**
 * The n8n processes a script starts run in their own process group (detached), so that stopping one stops its
 * children too. That also means they outlive the script when it is killed: a demo stopped by a test's time limit
 * left its `n8n start` spinning for an hour and slowed every test after it. Each detached group is kept here until it
 * has ended, and killed when this process exits or is told to stop (SIGTERM, SIGINT, SIGHUP).
 */
const groups = new Set<number>();
let installed = false;

function killAll(): void {
	for (const pid of groups) {
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {
			/* already gone */
		}
	}
	groups.clear();
}

function install(): void {
	if (installed) return;
	installed = true;
	process.once('exit', killAll);
	for (const [signal, code] of [
		['SIGTERM', 143],
		['SIGINT', 130],
		['SIGHUP', 129],
	] as const)
		process.once(signal, () => {
			killAll();
			process.exit(code);
		});
}

/** Keeps the detached group `pid` until `ended` (its close) and kills it if this process ends first. */
export function reapWithThisProcess(pid: number | undefined, ended: Promise<unknown>): void {
	if (pid === undefined) return;
	install();
	groups.add(pid);
	void ended.finally(() => groups.delete(pid));
}
