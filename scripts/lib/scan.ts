/**
 * n8n's community-package scanner on this package's tarball, offline: `npm pack` of the built package, unpacked, and
 * `analyzePackage` of `@n8n/scan-community-package` (a dev dependency) run on it, as n8n's verification runs it on a
 * published tarball. The registry legs of n8n's scan (provenance, the attested source download) need a published
 * version and the network, and are not run.
 *
 * Every finding is judged against the known exceptions in docs/lint-exceptions.md (the table after the
 * `scanner-exceptions` marker): a finding no row documents fails, and so does a row that no finding matches any more.
 * Used by test/package/scan.test.ts and `npm run scan`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT } from './repo';
import { packTarball, unpack } from './package';

export const EXCEPTIONS_DOC = 'docs/lint-exceptions.md';
const MARKER = '<!-- scanner-exceptions';

export interface Finding {
	/** path inside the tarball, e.g. dist/nodes/shared/transport/client.js */
	file: string;
	line: number;
	column: number;
	severity: 'error' | 'warning';
	message: string;
	rule: string;
	/** what the finding is about: the first quoted name of its message ('undici', 'setTimeout', "dependencies"), else '' */
	name: string;
}

export interface Exception {
	rule: string;
	file: string;
	name: string;
	/** how many findings of this rule, file and name are expected */
	count: number;
	why: string;
}

export interface ScanReport {
	version: string;
	findings: Array<Finding & { documented: boolean }>;
	/** findings no row of the exceptions documents */
	undocumented: Finding[];
	/** rows found fewer or more times than documented (0 found: the exception no longer occurs) */
	miscounted: Array<Exception & { found: number }>;
	/** the scanner's own verdict and summary line */
	passed: boolean;
	summary: string;
	ms: number;
}

const stripAnsi = (t: string) => t.replace(/\x1b\[[0-9;]*m/g, '');

/** The findings of the scanner's `stylish` report (`details`); `root` is the unpacked package folder. */
export function parseStylish(
	details: string,
	root: string,
): { findings: Finding[]; summary: string } {
	const findings: Finding[] = [];
	let file = '';
	let summary = '';
	for (const raw of stripAnsi(details).split('\n')) {
		const line = raw.trimEnd();
		if (!line.trim()) continue;
		if (/^\s*✖ \d+ problems?/.test(line)) {
			summary = line.trim();
			continue;
		}
		const m = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)\s{2,}(\S+)$/.exec(line);
		if (m) {
			const message = m[4].trim();
			const quoted = /'([^']+)'|"([^"]+)"/.exec(message);
			findings.push({
				file,
				line: Number(m[1]),
				column: Number(m[2]),
				severity: m[3] as Finding['severity'],
				message,
				rule: m[5],
				name: quoted ? (quoted[1] ?? quoted[2]) : '',
			});
		} else if (!/^\s/.test(line)) {
			file = relative(root, line.trim()).split('\\').join('/');
		} else {
			throw new Error(`cannot read this line of the scanner's report: ${JSON.stringify(line)}`);
		}
	}
	// the report's own count, so that a line this parser misread cannot go unnoticed
	const counted = /✖ (\d+) problems? \((\d+) errors?, (\d+) warnings?\)/.exec(summary);
	if (findings.length && (!counted || Number(counted[1]) !== findings.length)) {
		throw new Error(
			`read ${findings.length} findings from the scanner's report, but it says "${summary}"`,
		);
	}
	return { findings, summary };
}

/** The known exceptions: the table after the `<!-- scanner-exceptions -->` marker in docs/lint-exceptions.md. */
export function readExceptions(markdown: string): Exception[] {
	const at = markdown.indexOf(MARKER);
	if (at < 0)
		throw new Error(
			`${EXCEPTIONS_DOC} has no "${MARKER} -->" marker before the scanner's exceptions table`,
		);
	const rows: Exception[] = [];
	const lines = markdown.slice(at).split('\n').slice(1);
	let i = 0;
	while (i < lines.length && !lines[i].startsWith('|')) i++;
	for (i += 2; i < lines.length && lines[i].startsWith('|'); i++) {
		const cells = lines[i]
			.split('|')
			.slice(1, -1)
			.map((c) => c.trim());
		const code = (c: string) =>
			[...c.matchAll(/`([^`]+)`(?:\s*×\s*(\d+))?/g)].map((m) => ({
				text: m[1],
				count: m[2] ? Number(m[2]) : 1,
			}));
		const [rule] = code(cells[0] ?? '');
		const [file] = code(cells[1] ?? '');
		const names = code(cells[2] ?? '');
		if (!rule || !file || !names.length)
			throw new Error(
				`${EXCEPTIONS_DOC}: cannot read the exceptions row ${JSON.stringify(lines[i])}`,
			);
		for (const n of names)
			rows.push({
				rule: rule.text,
				file: file.text,
				name: n.text,
				count: n.count,
				why: cells[3] ?? '',
			});
	}
	if (!rows.length)
		throw new Error(`${EXCEPTIONS_DOC}: the scanner's exceptions table is empty or missing`);
	return rows;
}

/** Judges findings against the exceptions. */
export function judge(
	findings: Finding[],
	exceptions: Exception[],
): Pick<ScanReport, 'findings' | 'undocumented' | 'miscounted'> {
	const key = (x: { rule: string; file: string; name: string }) =>
		`${x.rule}\0${x.file}\0${x.name}`;
	const documented = new Map(exceptions.map((e) => [key(e), e]));
	const found = new Map<string, number>();
	for (const f of findings) found.set(key(f), (found.get(key(f)) ?? 0) + 1);
	return {
		findings: findings.map((f) => ({ ...f, documented: documented.has(key(f)) })),
		undocumented: findings.filter((f) => !documented.has(key(f))),
		miscounted: exceptions
			.map((e) => ({ ...e, found: found.get(key(e)) ?? 0 }))
			.filter((e) => e.found !== e.count),
	};
}

/** Runs the scanner's analyzePackage on an unpacked package (an ES module: run in a child process). */
export function analyze(packageDir: string): {
	passed: boolean;
	message?: string;
	details: string;
} {
	const scanner = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs', {
		paths: [ROOT],
	});
	const script = `
const { pathToFileURL } = await import('node:url');
const { analyzePackage } = await import(pathToFileURL(process.argv[1]).href);
const r = await analyzePackage(process.argv[2]);
process.stdout.write(JSON.stringify({ passed: r.passed, message: r.message, details: r.details ?? '' }));`;
	// the scanner makes a temporary folder when it loads (for its registry legs): keep it in ours
	const tmp = mkdtempSync(join(tmpdir(), 'gg-scan-tmp-'));
	try {
		const out = execFileSync(
			process.execPath,
			['--input-type=module', '-e', script, scanner, packageDir],
			{
				encoding: 'utf8',
				maxBuffer: 64 << 20,
				env: { ...process.env, TMPDIR: tmp, NO_COLOR: '1', FORCE_COLOR: '0' },
			},
		);
		return JSON.parse(out);
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}

/** Packs the built package, unpacks it, scans it and judges every finding. */
export function scanPackage(): ScanReport {
	const work = mkdtempSync(join(tmpdir(), 'gg-scan-'));
	try {
		const tarball = packTarball(join(work, 'pack'));
		const dir = unpack(tarball, join(work, 'package'));
		const started = Date.now();
		const result = analyze(dir);
		const ms = Date.now() - started;
		if (!result.passed && !result.details) throw new Error(`the scanner failed: ${result.message}`);
		const { findings, summary } = parseStylish(result.details, dir);
		const exceptions = readExceptions(readFileSync(join(ROOT, EXCEPTIONS_DOC), 'utf8'));
		const version = (
			JSON.parse(
				readFileSync(
					require.resolve('@n8n/scan-community-package/package.json', { paths: [ROOT] }),
					'utf8',
				),
			) as { version: string }
		).version;
		return {
			version,
			...judge(findings, exceptions),
			passed: result.passed,
			summary: summary || 'no problems',
			ms,
		};
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

/** The report as CI's log shows it: every finding, marked documented or not, then what fails. */
export function formatReport(r: ScanReport): string {
	const lines = [
		`n8n's community-package scanner ${r.version} (analyzePackage) on the packed tarball: ${r.summary}, ${Math.round(r.ms / 100) / 10} s`,
	];
	for (const f of r.findings)
		lines.push(
			`  ${f.documented ? 'exception ' : 'NEW       '} ${f.severity.padEnd(7)} ${f.rule}  ${f.file}:${f.line}  ${f.name || f.message}`,
		);
	const known = r.findings.filter((f) => f.documented).length;
	lines.push(
		`${known} known exceptions (${EXCEPTIONS_DOC}), ${r.undocumented.length} other findings, ${r.miscounted.length} exceptions off their documented count`,
	);
	for (const f of r.undocumented)
		lines.push(
			`  FAIL not a documented exception: ${f.file}:${f.line}:${f.column} ${f.severity} ${f.message}  ${f.rule}`,
		);
	for (const e of r.miscounted)
		lines.push(
			`  FAIL ${EXCEPTIONS_DOC} documents ${e.rule} ${e.file} \`${e.name}\` ×${e.count}, the scanner found it ×${e.found}${e.found === 0 ? ' (it no longer occurs: remove the row)' : ''}`,
		);
	return lines.join('\n');
}
