const { rmSync } = require('node:fs');

module.exports = async () => {
	if (process.env.GG_TEST_TMP) rmSync(process.env.GG_TEST_TMP, { recursive: true, force: true });
};
