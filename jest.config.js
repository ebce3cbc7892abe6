/** Jest runs the TypeScript sources as native ES modules, transformed by SWC (no type-check: `npm run typecheck` does that). */
export default {
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
        module: { type: 'es6' },
      },
    ],
  },
  // CLI and browser suites spawn real processes; a busy 2-core CI machine needs the room.
  testTimeout: 180_000,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // A no-op unless HANDOFF_TEST_CLOCK_DAYS is set (`npm run test:clock-ahead`).
  setupFiles: ['<rootDir>/test/support/clock-ahead.cjs'],
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
