/** The simulator's API keys: each belongs to a billing group, may have a quota and a model restriction. */

export interface KeyInfo {
	name: string;
	/** the key's billing group: any group, published or not (its ratio: `PriceList.ratioOf`) */
	group: string;
	/** quota units left; Infinity for unlimited */
	quota: number;
	/** the key's model restriction: only these models, when given (403 for others) */
	models?: string[];
}

/** What `sim.addKey(...)`, `POST /__sim/keys` and the `keys` option take. */
export interface KeyConfig {
	/** letters, digits, `.`, `_`, `-`; an existing name reconfigures that key */
	name: string;
	/** default `default` (a new key) or unchanged (an existing one) */
	group?: string;
	/** quota units; absent or null = unlimited */
	quota?: number | null;
	/** model restriction; null removes it */
	models?: string[] | null;
	/** the secret to use for a new key (default `sk-sim-<name>-<16 hex digits>`) */
	key?: string;
}

export const DEFAULT_KEYS: Record<string, KeyInfo> = {
	'sk-sim-demo-0000000000000000': { name: 'demo', group: 'hd', quota: Infinity },
	'sk-sim-other-111111111111111': { name: 'other', group: 'hd', quota: Infinity },
	'sk-sim-limited-2222222222222': { name: 'limited', group: 'default', quota: Infinity },
	'sk-sim-broke-3333333333333333': { name: 'broke', group: 'default', quota: 0 },
};
