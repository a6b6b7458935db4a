/**
 * No unhandled 'error' events or rejections, proved where nothing catches them: a plain Node process (not jest)
 * runs hostile answers that make the transport and the result code drop bodies early (a result of the wrong type,
 * answers past their caps, a redirect with a body, cuts, a body opened and never read) and must exit normally.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

it('a plain Node process survives every early-dropped body, each case ending in its own error', () => {
	const run = spawnSync(
		process.execPath,
		['--import', 'tsx', join(__dirname, 'fixtures', 'no-crash.ts')],
		{ encoding: 'utf8', timeout: 60_000 },
	);
	const out = `${run.stdout}\n${run.stderr}`;
	expect(out).not.toMatch(/Unhandled 'error' event|ERR_UNHANDLED_ERROR|UnhandledPromiseRejection/);
	expect(run.status).toBe(0);
	expect(run.stdout).toMatch(
		/image served as text\/html → ResultInvalidError: result URL answered Content-Type "text\/html", not an image/,
	);
	expect(run.stdout).toMatch(/video served as application\/json → ResultInvalidError/);
	expect(run.stdout).toMatch(/image cut mid-stream on every attempt → ResultDownloadError/);
	expect(run.stdout).toMatch(/no crash/);
}, 60_000);
