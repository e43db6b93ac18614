import {defineConfig} from 'vitest/config'

// Three projects:
// - unit: pure functions and the stages in-process, against the source (npm run test:unit);
// - commands: every command in-process against the source (@oclif/test's runCommand; oclif
//   loads src/ through tsx because NODE_ENV is test), on cases built by the real ingest;
// - e2e: a few true end-to-end tests that spawn bin/run.js as installed (dist/, rebuilt first
//   when older than src/).
// The commands and e2e projects share one generated incident per run (test/setup/incident.ts).
export default defineConfig({
  test: {
    // Command tests spawn the CLI or run whole pipelines; the default 5 s is tight on 2-core machines.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    disableConsoleIntercept: true,
    pool: 'forks',
    env: {NODE_ENV: 'test'},
    reporters: ['default', './scripts/plain-summary-reporter.mjs'],
    projects: [
      {extends: true, test: {name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/commands/**', 'test/e2e/**'], globalSetup: ['./test/setup/tmp.ts']}},
      // --no-concurrent-recompilation: a commands fork (in-process ingest, its parse worker threads
      // ended as each command returns) died twice in one CI run on Node 20's assertion
      // `NodePlatform::ForIsolate ... (data.first) != nullptr`, reached from an optimising compile
      // on a background thread for a worker isolate being torn down; optimising on the isolate's
      // own thread leaves that path out (the files passed when run again).
      {extends: true, test: {name: 'commands', include: ['test/commands/**/*.test.ts'], globalSetup: ['./test/setup/tmp.ts', './test/setup/incident.ts'], execArgv: ['--no-concurrent-recompilation']}},
      {extends: true, test: {name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['./test/setup/tmp.ts', './test/setup/fresh-build.ts', './test/setup/incident.ts']}},
    ],
  },
})
