// Ends a test run with one plain line, "N passed, N failed[, N skipped]", which any CI can
// read whatever it knows about vitest's own summary.
export default class PlainSummaryReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
        else skipped++
      }
      // A file that failed to load has no tests but is a failure all the same.
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) failed++
    }
    failed += unhandledErrors?.length ?? 0
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`)
  }
}
