/**
 * `npm run pipeline`: the scheduled pipeline (examples/pipeline-*.json) in a real n8n against the embedded simulator,
 * PostgreSQL, an S3 store and an SMTP mailbox; judged from the table, the bucket, the mailbox and the ledger.
 *
 *   npx tsx scripts/pipeline/cli.ts [--queue-mode] [--crash] [--images 4] [--videos 1] [--tick 5]
 *   --queue-mode: main + 2 workers; --crash (implies --queue-mode): a worker killed while its execution polls, n8n
 *   restarted between two ticks with more prompts pending, bursts of 429 on submissions and 5xx on polls
 */
import { removeTemplate } from '../lib/n8n/state';
import { summarise } from './judge';
import { crashRun, runPipeline, demoPrompts, FAILING } from './run';

async function main(argv: string[]): Promise<boolean> {
	const flag = (f: string) => argv.includes(f);
	const num = (f: string, d: number) => {
		const k = argv.indexOf(f);
		const v = k >= 0 ? Number(argv[k + 1]) : d;
		if (!Number.isInteger(v) || v < 0) throw new Error(`${f} takes a whole number`);
		return v;
	};
	const images = num('--images', 4);
	const videos = num('--videos', 1);
	const tickSeconds = num('--tick', 5);
	const report = flag('--crash')
		? await crashRun({ images, videos, tickSeconds })
		: await runPipeline({
				queue: flag('--queue-mode') ? { workers: 2, crash: false } : undefined,
				prompts: [...demoPrompts(images, videos), ...FAILING],
				tickSeconds,
			});
	console.log(`\n${summarise(report)}`);
	return report.problems.length === 0;
}

main(process.argv.slice(2))
	.then(
		(ok) => ok,
		(err) => {
			console.error(`[pipeline] ${(err as Error).stack ?? err}`);
			return false;
		},
	)
	.then((ok) => {
		removeTemplate();
		process.exit(ok ? 0 : 1);
	});
