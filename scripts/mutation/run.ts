/**
 * `npm run mutate [-- <id> ...]`: the mutation check of the ten guarantees (./mutants.ts). It copies the checkout as
 * it is (tracked and new files, uncommitted changes included) to a temporary folder; for each mutant it runs the
 * mutant's tests there on the unchanged code (they must pass: a kill means nothing otherwise), writes the mutant into
 * the copy, runs the same tests again, and puts the file back. A mutant is killed when at least one test fails on an assertion (a file that no
 * longer compiles does not count: the mutant is then reported broken). Prints one line per mutant and
 * `killed N of M`; exits 1 unless every mutant was killed. The checkout itself is never written.
 */
import { spawnSync } from 'node:child_process';
import {
	cpSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../lib/repo';
import { MUTANTS, mutated, type Mutant } from './mutants';

interface JestSummary {
	failedTests: number;
	passedTests: number;
	brokenFiles: number;
	firstFailure?: string;
	seconds: number;
}

function copyCheckout(): string {
	const dir = mkdtempSync(join(tmpdir(), 'gg-mutate-'));
	const files = spawnSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
		cwd: ROOT,
		encoding: 'utf8',
	})
		.stdout.split('\0')
		.filter((f) => f && !f.startsWith('node_modules/'));
	for (const f of files) {
		mkdirSync(dirname(join(dir, f)), { recursive: true });
		try {
			cpSync(join(ROOT, f), join(dir, f));
		} catch {
			// a file deleted in the working tree but still tracked
		}
	}
	symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
	return dir;
}

function runJest(dir: string, m: Pick<Mutant, 'tests' | 'grep' | 'env'>): JestSummary {
	const { tests, grep } = m;
	const out = join(dir, '.mutate-result.json');
	rmSync(out, { force: true });
	const args = [
		'jest',
		'--selectProjects',
		'unit',
		'--runTestsByPath',
		...tests,
		'--json',
		`--outputFile=${out}`,
		'--maxWorkers=2',
		...(grep ? ['-t', grep] : []),
	];
	const started = Date.now();
	spawnSync('npx', args, {
		cwd: dir,
		stdio: ['ignore', 'ignore', 'ignore'],
		env: { ...process.env, CI: 'true', ...m.env },
	});
	const seconds = (Date.now() - started) / 1000;
	let r: {
		numFailedTests: number;
		numPassedTests: number;
		numRuntimeErrorTestSuites: number;
		testResults: Array<{ assertionResults: Array<{ status: string; fullName: string }> }>;
	};
	try {
		r = JSON.parse(readFileSync(out, 'utf8'));
	} catch {
		return { failedTests: 0, passedTests: 0, brokenFiles: tests.length, seconds };
	}
	const first = r.testResults.flatMap((t) => t.assertionResults).find((a) => a.status === 'failed');
	return {
		failedTests: r.numFailedTests,
		passedTests: r.numPassedTests,
		brokenFiles: r.numRuntimeErrorTestSuites,
		firstFailure: first?.fullName,
		seconds,
	};
}

function main(): void {
	const only = process.argv.slice(2);
	const chosen = only.length ? MUTANTS.filter((m) => only.includes(m.id)) : MUTANTS;
	if (!chosen.length)
		throw new Error(`no mutant named ${only.join(', ')}: ${MUTANTS.map((m) => m.id).join(', ')}`);
	const dir = copyCheckout();
	console.log(`a copy of the checkout in ${dir}`);
	try {
		let killed = 0;
		for (const m of chosen) {
			const path = join(dir, m.file);
			const source = readFileSync(path, 'utf8');
			const text = mutated(source, m);
			if (typeof text !== 'string') {
				console.log(`NOT RUN  ${m.id}: ${text.error}`);
				continue;
			}
			// its tests must pass on the unchanged code first: a kill means nothing otherwise
			const base = runJest(dir, m);
			if (base.failedTests || base.brokenFiles || !base.passedTests) {
				console.log(
					`NOT RUN  ${m.id}: its tests do not pass on the unchanged code (${base.failedTests} failed, ${base.brokenFiles} files broken)`,
				);
				continue;
			}
			writeFileSync(path, text);
			try {
				const r = runJest(dir, m);
				const verdict =
					r.failedTests > 0
						? 'killed'
						: r.brokenFiles > 0
							? 'BROKEN (does not compile or load)'
							: 'SURVIVED';
				if (r.failedTests > 0) killed++;
				console.log(
					`${verdict.padEnd(8)} ${m.id} (${m.guarantee}): unchanged ${base.passedTests} passed in ${base.seconds.toFixed(0)} s; mutated ${r.failedTests} of ${r.failedTests + r.passedTests} failed in ${m.tests.join(', ')}${m.grep ? ` -t '${m.grep}'` : ''}, ${r.seconds.toFixed(0)} s${r.firstFailure ? `; first: ${r.firstFailure}` : ''}`,
				);
			} finally {
				writeFileSync(path, source);
			}
		}
		console.log(`killed ${killed} of ${chosen.length}`);
		if (killed !== chosen.length) process.exitCode = 1;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

main();
