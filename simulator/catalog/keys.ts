/** The simulator's API keys: each belongs to a billing group. */

export interface KeyInfo {
	name: string;
	group: string;
	/** quota units left; Infinity for unlimited */
	quota: number;
}

export const DEFAULT_KEYS: Record<string, KeyInfo> = {
	'sk-sim-demo-0000000000000000': { name: 'demo', group: 'hd', quota: Infinity },
	'sk-sim-other-111111111111111': { name: 'other', group: 'hd', quota: Infinity },
	'sk-sim-limited-2222222222222': { name: 'limited', group: 'default', quota: Infinity },
	'sk-sim-broke-3333333333333333': { name: 'broke', group: 'default', quota: 0 },
};
