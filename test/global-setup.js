// One folder for everything a test run writes to a temporary n8n user folder, removed at the end (test/setup-env.ts).
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = async () => {
	if (!process.env.GG_TEST_TMP) process.env.GG_TEST_TMP = mkdtempSync(join(tmpdir(), 'gg-test-run-'));
};
