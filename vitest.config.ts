import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // CLI and browser suites spawn real processes; a busy 2-core CI machine needs the room.
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default'],
  },
});
