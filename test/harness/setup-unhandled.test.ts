/**
 * The jest set-up file test/setup-unhandled.ts: a fixture whose last test drops a stream without an 'error'
 * listener (the error surfaces on the next tick, after the test returned). Under jest alone no test fails: the
 * error kills the process after the tests (or is printed after the summary), naming no test. With the set-up
 * file the test that dropped the body fails, with the error.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function runFixture(withSetup: boolean): { status: number | null; output: string } {
	const config = {
		rootDir: ROOT,
		testEnvironment: 'node',
		transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
		testMatch: ['<rootDir>/test/harness/fixtures/late-error.fixture.ts'],
		setupFilesAfterEnv: withSetup ? ['<rootDir>/test/setup-unhandled.ts'] : [],
	};
	const run = spawnSync(
		process.execPath,
		[require.resolve('jest/bin/jest'), '--config', JSON.stringify(config), '--ci', '--no-cache'],
		{ cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
	);
	return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

it('without the set-up file no test fails; with it, the test that dropped the body fails', () => {
	const without = runFixture(false);
	expect(without.output).not.toMatch(/✕|failed/);
	expect(without.output).toMatch(/Unhandled 'error' event/);
	const withSetup = runFixture(true);
	expect(withSetup.status).toBe(1);
	expect(withSetup.output).toMatch(/Tests:\s+1 failed, 1 passed, 2 total/);
	expect(withSetup.output).toMatch(/✕ drops a body without a listener/);
	expect(withSetup.output).toMatch(
		/an 'error' event without a listener on a Readable:\s+Error: RequestAbortedError: the body was dropped/,
	);
}, 120_000);
