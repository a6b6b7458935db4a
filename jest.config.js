/** Unit/in-process tests run on the machine's Node; e2e tests drive a real n8n (its own Node 24, or Node 22 for n8n 1.x). */
const base = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	setupFiles: ['<rootDir>/test/setup-env.ts'],
	// a test during which an unhandled rejection, uncaught exception or 'error' event without a listener happened fails
	setupFilesAfterEnv: ['<rootDir>/test/setup-unhandled.ts'],
};
module.exports = {
	// no task is queried more often than once a second, so in-process workflows take seconds
	testTimeout: 30_000,
	globalSetup: '<rootDir>/test/global-setup.js',
	globalTeardown: '<rootDir>/test/global-teardown.js',
	projects: [
		{
			...base,
			displayName: 'unit',
			testMatch: ['<rootDir>/test/**/*.test.ts'],
			testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
			// back-offs, Retry-After waits and poll floors on a shorter clock (test/time-scale.ts)
			setupFilesAfterEnv: [...base.setupFilesAfterEnv, '<rootDir>/test/setup-time-scale.ts'],
		},
		{ ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'], testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/agent-n8n1.test.ts'] },
		// the subset that also runs in n8n 1.x: GG_N8N_MAJOR=1 for each of its files, so one jest run can hold both projects
		{
			...base,
			displayName: 'e2e-n8n1',
			setupFiles: [...base.setupFiles, '<rootDir>/test/setup-n8n1.ts'],
			testMatch: ['smoke', 'install-native', 'demo', 'agent-n8n1'].map((f) => `<rootDir>/test/e2e/${f}.test.ts`),
		},
	],
};
