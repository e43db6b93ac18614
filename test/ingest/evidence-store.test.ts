import {spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import Database from 'better-sqlite3'
import {describe, expect, it} from 'vitest'
import {BLOCK_SIZE, EvidenceWriter, RAW_BLOCK_SIZE, evidenceReader, readEvidence} from '../../src/evidence/evidence-store.js'
import {insertLoadingLogFile} from '../../src/store/files.js'
import {openCase} from '../../src/store/open-case.js'
import {seededRng} from '../../src/util/rng.js'
import {ROOT, tempDir} from '../helpers/cli.js'
import {join} from 'node:path'

function caseWithFile() {
  const db = openCase(join(tempDir(), 'case.db'), {create: true})
  const id = insertLoadingLogFile(db, {path: 'f', name: 'f', absPath: '/f', sha256: 'x', size: 0, compression: 'none', logFormat: 'native', parseSpec: '{}', formatReason: 'given', source: 'default', startedAt: 'now'})
  return {db, id}
}

describe('EvidenceWriter', () => {
  it('stores every byte, in blocks, readable back at any offset', async () => {
    const {db, id} = caseWithFile()
    const data = randomBytes(BLOCK_SIZE * 2 + 12345)
    const w = new EvidenceWriter(db, id)
    for (let off = 0; off < data.length; off += 100_000) w.push(data.subarray(off, off + 100_000))
    await w.finish()
    db.transaction(() => w.writeReady())()
    expect(db.prepare('SELECT count(*) FROM evidence_blocks').pluck().get()).toBe(3)
    expect(readEvidence(db, id, BLOCK_SIZE - 10, 30).equals(data.subarray(BLOCK_SIZE - 10, BLOCK_SIZE + 20))).toBe(true)
    expect(readEvidence(db, id, 0, data.length).equals(data)).toBe(true)
  })

  it.each(['raw', 'deflate'] as const)('copies what it is given: the caller may reuse its buffer at once (%s)', async (codec) => {
    // Ingest reads every file into one reused buffer; a writer that kept views of it would
    // store whatever the last read left there.
    const {db, id} = caseWithFile()
    const data = randomBytes(BLOCK_SIZE + 300_000)
    const scratch = Buffer.alloc(70_000)
    const w = new EvidenceWriter(db, id, codec)
    for (let off = 0; off < data.length; off += scratch.length) {
      const n = data.copy(scratch, 0, off, off + scratch.length)
      w.push(scratch.subarray(0, n))
      scratch.fill(0xee)
    }
    await w.finish()
    db.transaction(() => w.writeReady())()
    expect(readEvidence(db, id, 0, data.length).equals(data)).toBe(true)
  })

  it.each(['raw', 'deflate'] as const)('random-access reads give the same bytes as ordered reads, inside and across blocks (%s)', async (codec) => {
    const {db, id} = caseWithFile()
    const size = codec === 'raw' ? RAW_BLOCK_SIZE : BLOCK_SIZE
    const data = randomBytes(size * 3 + 777)
    const w = new EvidenceWriter(db, id, codec)
    w.push(data)
    await w.finish()
    db.transaction(() => w.writeReady())()
    const ordered = evidenceReader(db)
    const random = evidenceReader(db, {random: true})
    const ranges: Array<[number, number]> = [[0, 1], [size - 5, 5], [size - 5, 10], [size, size], [size * 3, 777], [size * 2 + 3, size + 9]]
    const rand = seededRng(7) // a failing range is the same on every run
    for (let i = 0; i < 200; i++) {
      const offset = Math.floor(rand() * data.length)
      ranges.push([offset, 1 + Math.floor(rand() * Math.min(5000, data.length - offset))])
    }
    for (const [offset, length] of ranges) {
      const want = data.subarray(offset, offset + length)
      expect(random(id, offset, length).equals(want), `random ${offset}+${length}`).toBe(true)
      expect(ordered(id, offset, length).equals(want), `ordered ${offset}+${length}`).toBe(true)
    }
  })

  // Regression: backpressure() once awaited an already-settled promise in a loop and spun
  // the microtask queue forever when more blocks were compressing than allowed. A spinning
  // event loop cannot time itself out, so the scenario runs in a child process.
  it('backpressure returns while many blocks are compressing', () => {
    const script = `
      import {randomBytes} from 'node:crypto'
      import {join} from 'node:path'
      import {tmpdir} from 'node:os'
      import {mkdtempSync} from 'node:fs'
      const {EvidenceWriter, BLOCK_SIZE} = await import(${JSON.stringify(join(ROOT, 'src/evidence/evidence-store.ts'))})
      const {openCase} = await import(${JSON.stringify(join(ROOT, 'src/store/open-case.ts'))})
      const {insertLoadingLogFile} = await import(${JSON.stringify(join(ROOT, 'src/store/files.ts'))})
      const db = openCase(join(mkdtempSync(join(tmpdir(), 'ct-')), 'c.db'), {create: true})
      const id = insertLoadingLogFile(db, {path: 'f', name: 'f', absPath: '/f', sha256: 'x', size: 0, compression: 'none', logFormat: 'native', parseSpec: '{}', source: 'default', startedAt: 'now'})
      const w = new EvidenceWriter(db, id)
      w.push(randomBytes(BLOCK_SIZE * 8))
      await w.backpressure()
      await w.finish()
      db.transaction(() => w.writeReady())()
      console.log(db.prepare('SELECT count(*) FROM evidence_blocks').pluck().get())
    `
    // The source, through tsx (as the in-process tests run it), never a possibly stale dist/.
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {cwd: ROOT, encoding: 'utf8', timeout: 30_000})
    expect(r.signal, 'backpressure() did not return within 30 s').toBeNull()
    expect(r.stdout.trim()).toBe('8')
  })
})
