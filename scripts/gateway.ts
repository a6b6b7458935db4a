/**
 * The gateway the scripts (demo, queue mode, pipeline) run against: a real one given by GATEWAY_BASE_URL /
 * GATEWAY_VIDEO_BASE_URL / GATEWAY_API_KEY, a simulator a test hands in, or an embedded simulator started here.
 */
import { startSimulator, type Simulator } from '../simulator';

export interface ScriptGateway {
	baseUrl: string;
	/** the video provider's origin ('' when a real gateway serves videos on its own origin) */
	videoBaseUrl: string;
	apiKey: string;
	/** the simulator, unless the gateway is a real one */
	sim?: Simulator;
	/** one line saying which gateway this is, for the scripts' logs */
	describe: string;
	/** stops the simulator if it was started here */
	stop(): Promise<void>;
}

export async function scriptGateway(
	given: Simulator | undefined,
	videoBytes: number,
): Promise<ScriptGateway> {
	const external = process.env.GATEWAY_BASE_URL;
	if (external) {
		const apiKey = process.env.GATEWAY_API_KEY;
		if (!apiKey) throw new Error('GATEWAY_API_KEY is required with GATEWAY_BASE_URL');
		const videoBaseUrl = process.env.GATEWAY_VIDEO_BASE_URL ?? '';
		const describe = `gateway ${external}${videoBaseUrl ? ` (videos: ${videoBaseUrl})` : ''}; no simulator`;
		return { baseUrl: external, videoBaseUrl, apiKey, describe, stop: async () => undefined };
	}
	const own = !given;
	const sim =
		given ??
		(await startSimulator({
			quiet: true,
			taskLatencyMs: 2000,
			pollAfterMs: 500,
			videoLatencyMs: 3000,
			videoBytes,
		}));
	return {
		baseUrl: sim.baseUrl,
		videoBaseUrl: sim.altBaseUrl,
		apiKey: sim.keys.demo,
		sim,
		describe: own
			? `embedded gateway simulator at ${sim.baseUrl} (video origin ${sim.altBaseUrl})`
			: `gateway simulator at ${sim.baseUrl}`,
		stop: async () => {
			if (own) await sim.stop();
		},
	};
}
