// The e2e-n8n1 project drives the n8n 1.x runtime (scripts/lib/n8n/runtime.ts reads this when a test file loads it), so it
// can share one jest run, and its workers, with the n8n 2 project.
process.env.GG_N8N_MAJOR = '1';
