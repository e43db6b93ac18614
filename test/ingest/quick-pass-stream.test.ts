import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, expect, it} from 'vitest'
import {encodeParseSpec} from '../../src/extract/parse-spec.js'
import {IngestInterrupted, UNIT_BYTES} from '../../src/ingest/ingest-file.js'
import {ParsePool} from '../../src/ingest/parse-pool.js'
import {quickPass, type QuickRecord} from '../../src/ingest/quick-pass.js'

// The quick pass hands each kept marked record to its caller as it reads it, instead of
// collecting them until the end: over millions of records a list of every marked record was
// the part of the pass that grew with the input. What is handed over, and in which order, is
// what ingest will keep (first (source, request_id) wins, in the order files are read).

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ct-quick-stream-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

const line = (id: string, response: string, tenant = 't1'): string =>
  JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: id, tenant_id: tenant, session_id: `s-${id}`, request: 'hello', response})

function file(name: string, lines: string[]): {path: string; size: number; gzip: boolean; format: 'native'; spec: string} {
  const path = join(dir, name)
  writeFileSync(path, lines.join('\n') + '\n')
  return {path, size: statSync(path).size, gzip: false, format: 'native', spec: encodeParseSpec({format: 'native'})}
}

async function pass(files: ReturnType<typeof file>[], onRecord: (r: QuickRecord) => void, signal?: AbortSignal) {
  const pool = new ParsePool(0)
  try {
    return await quickPass(files, pool, {source: 'default', maxLineBytes: 1 << 20, signal, head: (p) => readFileSync(p).subarray(0, 4096), onRecord})
  } finally {
    await pool.close()
  }
}

it('hands over each kept marked record once, in the order ingest keeps them, and counts them', async () => {
  const a = file('a.jsonl', [line('r1', 'plain'), line('r2', 'leak CANARY-00112233445566778899aabbccddeeff'), line('r3', 'own CANARY-ffeeddccbbaa99887766554433221100')])
  // r2 again (a duplicate: not handed over, whatever it holds), then a new marked record
  const b = file('b.jsonl', [line('r2', 'other CANARY-0123456789abcdef0123456789abcdef', 't2'), line('r4', 'x CANARY-aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbb'), line('r5', 'none')])
  const seen: QuickRecord[] = []
  const result = await pass([a, b], (r) => seen.push(r))
  expect(result).not.toBeNull()
  expect(seen.map((r) => r.request_id)).toEqual(['r2', 'r3', 'r4'])
  expect(seen[0]!.tenant_id).toBe('t1')
  expect(seen[0]!.tokens.map((t) => t.token)).toEqual(['CANARY-00112233445566778899aabbccddeeff'])
  expect(result!.marked).toBe(3)
  expect(result!.files.map((f) => [f.counts.records, f.counts.duplicates])).toEqual([[3, 0], [2, 1]])
  expect(Object.keys(result!)).not.toContain('records')
})

it('hands records over while it reads, not at its end', async () => {
  // Two files of several units each: the first record is handed over before the second file is read.
  const filler = 'y'.repeat(2000)
  const many = (prefix: string) => Array.from({length: Math.ceil((2 * UNIT_BYTES) / 2100)}, (_, i) => line(`${prefix}${i}`, i % 50 === 0 ? `CANARY-${(prefix === 'a' ? 'a' : 'b').repeat(16)}${String(i).padStart(16, '0')}` : filler))
  const files = [file('a.jsonl', many('a')), file('b.jsonl', many('b'))]
  const stop = new AbortController()
  const seen: string[] = []
  await expect(
    pass(files, (r) => {
      seen.push(r.request_id)
      stop.abort()
    }, stop.signal),
  ).rejects.toBeInstanceOf(IngestInterrupted)
  expect(seen.length).toBeGreaterThan(0)
  expect(seen.every((id) => id.startsWith('a'))).toBe(true)
})

it('lets a failure of the caller\'s handler go up as it was thrown (it is no read failure of the pass)', async () => {
  const a = file('a.jsonl', [line('r1', 'leak CANARY-00112233445566778899aabbccddeeff'), line('r2', 'plain')])
  const boom = new Error('the verdict could not be built')
  await expect(pass([a], () => {
    throw boom
  })).rejects.toBe(boom)
})
