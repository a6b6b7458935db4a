/**
 * `npm run demo` (through scripts/demo.sh, which installs n8n once and builds first): the command line of the demo.
 * Reads the arguments, runs the demo (scripts/demo/run.ts: the workflows of examples/ in a real n8n, 2.41.1 or 1.123.x
 * with --n8n 1, against the embedded gateway simulator or the gateway given by GATEWAY_BASE_URL /
 * GATEWAY_VIDEO_BASE_URL / GATEWAY_API_KEY), prints the table of its steps and exits 0 only when every step did what
 * it should.
 *
 *   npx tsx scripts/demo.ts [--out DIR] [workflow ...]      e.g. `npm run demo -- chat pricing`
 *   (`npm run demo -- --n8n 1 ...` selects the n8n 1.x runtime: scripts/demo.sh sets GG_N8N_MAJOR)
 */
import { join, relative, resolve } from 'node:path';
import { removeTemplate } from './lib/n8n/state';
import { PIPELINE_NAME, runDemo, type DemoResult } from './demo/run';
import { table } from './demo/summary';
import { WORKFLOWS } from './demo/workflows';

const log = (s: string) => process.stdout.write(`${s}\n`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** `[--out DIR] [workflow ...]`; `--help` prints the usage and exits */
function parseArgs(argv: string[]): { only?: string[]; outDir?: string } {
	const only: string[] = [];
	let outDir: string | undefined;
	for (let k = 0; k < argv.length; k++) {
		const a = argv[k];
		if (a === '--out') outDir = argv[++k];
		else if (a.startsWith('--out=')) outDir = a.slice('--out='.length);
		else if (a === '-h' || a === '--help') {
			log(
				`usage: npm run demo -- [--n8n 2|1] [--out DIR] [workflow ...]\nworkflows: ${[...WORKFLOWS.map((w) => w.folder), PIPELINE_NAME].join(', ')}\nenvironment: GATEWAY_BASE_URL, GATEWAY_VIDEO_BASE_URL, GATEWAY_API_KEY (a real gateway instead of the simulator), GATEWAY_DEMO_REFERENCE_IMAGES`,
			);
			process.exit(0);
		} else if (!a.startsWith('-')) only.push(a);
	}
	return { only: only.length ? only : undefined, outDir: outDir ? resolve(outDir) : undefined };
}

/** The table of the run's steps and its verdict. */
function report(r: DemoResult, ms: number): void {
	const { entries, ok, outDir } = r;
	log(`\n${table(entries)}\n`);
	log(
		`[demo] ${ok ? 'every step did what it should' : `${entries.filter((e) => !e.ok).length} step(s) failed`} (${secs(ms)}); summary in ${relative(process.cwd(), join(outDir, 'summary.json'))}, n8n run data in ${relative(process.cwd(), join(outDir, 'runs'))}/`,
	);
}

if (require.main === module) {
	const started = Date.now();
	runDemo(parseArgs(process.argv.slice(2)))
		.then(
			(r) => {
				report(r, Date.now() - started);
				return r.ok;
			},
			(err) => {
				console.error(`[demo] ${(err as Error).message}`);
				return false;
			},
		)
		.then((ok) => {
			removeTemplate();
			process.exit(ok ? 0 : 1);
		});
}
