import {describe, expect, it} from 'vitest'
import {benchScanScaling} from '../../src/bench/scan-scaling.js'

// Issue 3: scan cost must not grow with the registry. Same logs, 10 vs 100,000 registered
// markers, best of several alternating rounds (noise on a shared machine hits both alike).
describe('registry scaling', () => {
  it('scans with 100,000 markers within 1.2x of 10 markers', () => {
    const r = benchScanScaling({records: 10000, responseWords: 120, smallRegistry: 10, largeRegistry: 100_000, rounds: 7, seed: 42})
    process.stderr.write(`registry scaling: ${JSON.stringify(r)}\n`)
    expect(r.small_registry).toBe(10)
    expect(r.large_registry).toBe(100_000)
    expect(r.ratio).toBeLessThanOrEqual(1.2)
  })
})
