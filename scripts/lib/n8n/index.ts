/**
 * The n8n driver's names as scripts/lib/n8n.ts exported them before it was split by job, re-exported and nothing
 * defined here: for code written against the old module (scripts/demo/summary.ts, branches in flight). New code
 * imports from the module of the job it needs:
 *   runtime.ts  where the private n8n and its Node live, whether they are installed
 *   env.ts      the environment an n8n process runs with
 *   cli.ts      running the n8n CLI, reading what it printed or stored
 *   imports.ts  importing credentials and workflows
 *   stamp.ts    what a build and the repository's folders hold, as hashes
 *   state.ts    state folders with the package installed, and their template
 * and, outside this folder, ../repo.ts (ROOT, PACKAGE_NAME), ../port.ts (freePort), ../package.ts (ensureBuilt).
 */
export { ensureBuilt } from '../package';
export { freePort } from '../port';
export { PACKAGE_NAME, ROOT } from '../repo';
export {
	executeWorkflow,
	nodeOutput,
	parseRunOutput,
	runFailure,
	runN8n,
	storedCustomData,
	storedRun,
	type CliResult,
	type ExecuteResult,
} from './cli';
export { ENCRYPTION_KEY, n8nEnv, type N8nEnvOptions } from './env';
export { importCredentials, importWorkflow, type Credential } from './imports';
export {
	N8N_BIN,
	N8N_CACHE_ROOT,
	N8N_HOME,
	N8N_MAJOR,
	N8N_NODE,
	N8N_VERSION,
	NODE_HOME,
	NODE_VERSION,
	ensureN8n,
	n8nInstalled,
} from './runtime';
export { buildStamp, treeHash } from './stamp';
export { newState, packAndInstall, removeState, removeTemplate } from './state';
