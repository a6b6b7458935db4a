import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core's InstanceSettings writes $N8N_USER_FOLDER/.n8n/config; keep it out of $HOME.
if (!process.env.N8N_USER_FOLDER) {
  process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'gg-n8n-user-'));
}
