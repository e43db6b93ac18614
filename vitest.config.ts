import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Command tests spawn the CLI; the default 5 s is tight on 2-core CI machines.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    disableConsoleIntercept: true,
    pool: 'forks',
    // One temporary directory per run, removed at the end (CROSSTALK_KEEP_TEST_TMP=1 keeps it).
    globalSetup: ['./test/global-tmp.ts'],
    reporters: ['default', './scripts/plain-summary-reporter.mjs'],
  },
})
