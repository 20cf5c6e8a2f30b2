/** Four levels: unit (nock, no network at all), integration (the sandbox over loopback), e2e (a real n8n), queue (n8n in queue mode). */
const base = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }] },
};

module.exports = {
	reporters: ['default', '<rootDir>/test/setup/summaryReporter.js'],
	testSequencer: '<rootDir>/test/setup/e2eSequencer.js',
	projects: [
		{
			...base,
			displayName: 'unit',
			testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
			setupFilesAfterEnv: ['<rootDir>/test/setup/no-network.ts', '<rootDir>/test/setup/sleeps.ts'],
		},
		{
			...base,
			displayName: 'integration',
			testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
			setupFilesAfterEnv: ['<rootDir>/test/setup/loopback-only.ts'],
		},
		{
			...base,
			displayName: 'e2e',
			testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
			setupFilesAfterEnv: ['<rootDir>/test/setup/loopback-only.ts'],
		},
		{
			...base,
			displayName: 'queue',
			testMatch: ['<rootDir>/test/queue/**/*.test.ts'],
			setupFilesAfterEnv: ['<rootDir>/test/setup/loopback-only.ts'],
		},
	],
};
