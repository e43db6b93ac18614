import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, expect, it} from 'vitest'
import {encodeParseSpec} from '../../src/extract/parse-spec.js'
import {ParsePool} from '../../src/ingest/parse-pool.js'
import {BOUND_HEAP_AFTER_BYTES, quickPass} from '../../src/ingest/quick-pass.js'
import {heapGrowthBounded} from '../../src/util/gc.js'

// A long quick pass bounds V8's heap growth itself once it has read BOUND_HEAP_AFTER_BYTES (at
// 5M records the main heap's garbage between two collections was the command's peak); a pass
// the size of a 200k-record incident or less never does, so its verdict pays no collections.

const dir = mkdtempSync(join(tmpdir(), 'ct-quick-bound-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const line = (i: number): string => JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: `r${i}`, tenant_id: 't1', session_id: `s${i}`, request: 'hello', response: 'plain words'})

async function pass(boundHeapAfterBytes?: number): Promise<void> {
  const path = join(dir, 'a.jsonl')
  writeFileSync(path, Array.from({length: 200}, (_, i) => line(i)).join('\n') + '\n')
  const files = [{path, size: statSync(path).size, gzip: false, format: 'native' as const, spec: encodeParseSpec({format: 'native'})}]
  const pool = new ParsePool(0)
  try {
    const result = await quickPass(files, pool, {source: 'default', maxLineBytes: 1 << 20, head: (p) => readFileSync(p).subarray(0, 4096), onRecord: () => {}, boundHeapAfterBytes})
    expect(result?.files[0]!.counts.records).toBe(200)
  } finally {
    await pool.close()
  }
}

it('leaves the heap unbounded through a pass under the threshold, and bounds it once a pass reads past it', async () => {
  expect(BOUND_HEAP_AFTER_BYTES).toBeGreaterThan(560_000_000)
  expect(heapGrowthBounded()).toBe(false)
  await pass()
  expect(heapGrowthBounded()).toBe(false)
  await pass(1000)
  expect(heapGrowthBounded()).toBe(true)
})
