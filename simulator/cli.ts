/** `npm run simulator -- --port 8787 --latency 2000 --fault '{"route":"POST /v1/images","kind":"rate-limit"}'` */
import { startSimulator } from './index';
import type { KeyConfig } from './catalog/keys';
import type { PricingConfig } from './catalog/price-list';
import type { FaultSpec } from './faults/book';

function parseArgs(argv: string[]) {
	const out: Record<string, string[]> = {};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (!a.startsWith('--')) continue;
		const [k, inline] = a.slice(2).split('=', 2);
		const v = inline ?? (argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[++i] : 'true');
		(out[k] ??= []).push(v);
	}
	return out;
}

async function main() {
	const a = parseArgs(process.argv.slice(2));
	if (a.help) {
		console.log(
			[
				'flags: --port N --host H --latency MS --video-latency MS --poll-after MS --seed N --video-bytes N --retention MS --fault JSON (repeatable)',
				'       --submit-latency MS --result-ttfb MS --result-bandwidth BYTES_PER_SEC --image-bytes N --max-concurrent-submits N --submit-retry-after SEC --submits-per-second N',
				'       --max-body-bytes N --pricing JSON --key JSON (repeatable, e.g. \'{"name":"partner","group":"partner"}\')',
				'       --spec-only-chat (another gateway that follows the spec: ignores response_format, its model calls every tool offered)',
			].join('\n'),
		);
		return;
	}
	const num = (k: string) => (a[k] ? Number(a[k][0]) : undefined);
	const sim = await startSimulator({
		port: num('port') ?? 8787,
		host: a.host?.[0],
		taskLatencyMs: num('latency'),
		videoLatencyMs: num('video-latency'),
		pollAfterMs: num('poll-after'),
		seed: num('seed'),
		videoBytes: num('video-bytes'),
		retentionMs: num('retention'),
		submitLatencyMs: num('submit-latency'),
		resultTtfbMs: num('result-ttfb'),
		resultBandwidth: num('result-bandwidth'),
		imageBytes: num('image-bytes'),
		maxConcurrentSubmits: num('max-concurrent-submits'),
		submitRetryAfterSec: num('submit-retry-after'),
		submitsPerSecond: num('submits-per-second'),
		maxBodyBytes: num('max-body-bytes'),
		pricing: a.pricing ? (JSON.parse(a.pricing[0]) as PricingConfig) : undefined,
		keys: (a.key ?? []).map((k) => JSON.parse(k) as KeyConfig),
		specOnlyChat: a['spec-only-chat']?.[0] === 'true',
	});
	for (const f of a.fault ?? []) sim.fault(JSON.parse(f) as FaultSpec);
	console.log(
		`gateway simulator\n  base URL:       ${sim.baseUrl}\n  video base URL: ${sim.altBaseUrl}\n  result host:    ${sim.resultBaseUrl}\n  demo key:       ${sim.keys.demo}\n  other keys:     ${Object.entries(
			sim.keys,
		)
			.filter(([name]) => name !== 'demo')
			.map(([name, key]) => `${name}=${key}`)
			.join(
				' ',
			)}\n  admin:          ${sim.baseUrl}/__sim/{faults,log,ledger,reset,status,keys,pricing}`,
	);
	const stop = async () => {
		await sim.stop();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((err) => {
	console.error(err);
	process.exit(1);
});
