/**
 * The environment an n8n process runs with: its state folder as home, the test encryption key, no telemetry, community
 * packages on, its task broker's port, the folders its Read/Write Files node may touch. Every n8n process the scripts,
 * benchmarks and tests start (`n8n execute`, `n8n start`, workers) takes it.
 */
import { join } from 'node:path';
import { NODE_HOME } from './runtime';

export const ENCRYPTION_KEY = 'gen-gateway-e2e-encryption-key-0001';

export interface N8nEnvOptions {
	/** folders n8n's Read/Write Files node may touch */
	fileAccess?: string[];
	extra?: Record<string, string>;
}

export function n8nEnv(
	stateDir: string,
	brokerPort: number,
	opts: N8nEnvOptions = {},
): NodeJS.ProcessEnv {
	return {
		PATH: `${join(NODE_HOME, 'bin')}:${process.env.PATH ?? ''}`,
		HOME: stateDir,
		N8N_USER_FOLDER: stateDir,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RESTRICT_FILE_ACCESS_TO: (opts.fileAccess ?? [join(stateDir, 'files')]).join(';'),
		// `n8n execute` prints its run data through the logger at level info
		N8N_LOG_LEVEL: 'info',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		DB_SQLITE_POOL_SIZE: '2',
		...opts.extra,
	};
}
