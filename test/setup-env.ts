import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core's InstanceSettings writes $N8N_USER_FOLDER/.n8n/config; keep it out of $HOME, one folder per test file,
// inside the run's folder that test/global-teardown.js removes.
if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = mkdtempSync(
		join(process.env.GG_TEST_TMP ?? tmpdir(), 'gg-n8n-user-'),
	);
}
