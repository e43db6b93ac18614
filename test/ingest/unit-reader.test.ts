import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gunzipSync, gzipSync} from 'node:zlib'
import {afterAll, describe, expect, it} from 'vitest'
import {readLines} from '../../src/ingest/line-reader.js'
import {readUnits, UnitBuffers} from '../../src/ingest/unit-reader.js'

// The unit reader must cut exactly the lines the line reader yields: same numbers, same
// offsets, same bytes, whatever the unit size and however lines straddle read chunks.

const dir = mkdtempSync(join(tmpdir(), 'ct-units-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

interface Line {
  lineNo: number
  offset: number
  length: number
  text: string | null
}

async function viaLines(path: string, gzip: boolean, max: number): Promise<Line[]> {
  const out: Line[] = []
  for await (const l of readLines(path, {gzip, maxLineBytes: max})) out.push({lineNo: l.lineNo, offset: l.offset, length: l.length, text: l.bytes ? l.bytes.toString('latin1') : null})
  return out
}

async function viaUnits(path: string, gzip: boolean, max: number, unitBytes: number, buffers?: UnitBuffers): Promise<Line[]> {
  const out: Line[] = []
  let expectLine = 1
  // Every chunk as it was when handed over (valid during the call only): in order, the file's
  // bytes (onFileChunk) and its content (onChunk), each byte once.
  const fileChunks: Buffer[] = []
  const contentChunks: Buffer[] = []
  const onFileChunk = (c: Buffer): void => void fileChunks.push(Buffer.from(c))
  const onChunk = (c: Buffer): void => void contentChunks.push(Buffer.from(c))
  for await (const e of readUnits(path, {gzip, maxLineBytes: max, unitBytes, buffers, onFileChunk, onChunk})) {
    if (e.kind === 'skipping' || e.kind === 'cut') continue
    if (e.kind === 'oversize') {
      expect(e.lineNo).toBe(expectLine)
      out.push({lineNo: e.lineNo, offset: e.offset, length: e.length, text: null})
      expectLine++
      continue
    }
    expect(e.firstLineNo).toBe(expectLine)
    let s = 0
    let n = e.firstLineNo
    while (s < e.bytes.length) {
      let end = e.bytes.indexOf(10, s)
      if (end === -1) end = e.bytes.length
      const length = end - s
      // The line reader leaves an over-long line unassembled; units carry it (the parser reports it).
      out.push({lineNo: n, offset: e.offset + s, length, text: length > max ? null : e.bytes.subarray(s, end).toString('latin1')})
      n++
      s = end + 1
    }
    expect(n - e.firstLineNo).toBe(e.lines)
    expectLine = n
    // Each unit is the only view at the start of its buffer; handing it back lets the reader
    // fill it again for a later unit, which must not disturb anything already read.
    expect(e.bytes.byteOffset).toBe(0)
    if (buffers) {
      e.bytes.fill(0)
      buffers.release(e.bytes.buffer)
    }
  }
  const file = readFileSync(path)
  expect(Buffer.concat(fileChunks).equals(file)).toBe(true)
  expect(Buffer.concat(contentChunks).equals(gzip ? gunzipSync(file) : file)).toBe(true)
  return out
}

function randomLines(seed: number, count: number): string {
  let x = seed
  const rnd = (): number => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32)
  const parts: string[] = []
  for (let i = 0; i < count; i++) {
    const r = rnd()
    const len = r < 0.05 ? 0 : r < 0.1 ? 3_000_000 + Math.floor(rnd() * 200_000) : Math.floor(rnd() * 5000)
    parts.push(String.fromCharCode(97 + (i % 26)).repeat(len))
  }
  return parts.join('\n')
}

describe('readUnits', () => {
  for (const [name, content] of [
    ['random lines, no final newline', randomLines(1, 400)],
    ['random lines, final newline', `${randomLines(2, 300)}\n`],
    ['blank lines only', '\n\n\n'],
    ['one line without newline', 'x'.repeat(10)],
    ['empty', ''],
  ] as const) {
    for (const gzip of [false, true]) {
      it(`${name}${gzip ? ' (gzip)' : ''}: same lines as the line reader`, async () => {
        const path = join(dir, `${name.replace(/\W/g, '_')}${gzip ? '.gz' : ''}`)
        writeFileSync(path, gzip ? gzipSync(content) : content)
        const max = 2_000_000
        const want = await viaLines(path, gzip, max)
        for (const unitBytes of [1, 4096, 1 << 20]) {
          expect(await viaUnits(path, gzip, max, unitBytes)).toEqual(want)
          // Recycled buffers (as ingest runs it), small enough that long lines outgrow them.
          const buffers = new UnitBuffers(unitBytes + 8192, 4)
          expect(await viaUnits(path, gzip, max, unitBytes, buffers)).toEqual(want)
          if (want.length > 1) expect(buffers.available).toBeGreaterThan(0)
        }
        if (content.length > 1000) expect(want.some((l) => l.text === null)).toBe(true)
      })
    }
  }
})

describe('readUnits bounds its memory by --max-line-bytes, whatever the line length (issue 16)', () => {
  it('never asks for a unit buffer larger than a unit plus --max-line-bytes, and reports skipped bytes as they pass', async () => {
    const path = join(dir, 'one-long-line.jsonl')
    // 40 MB without a newline, then a short line: the long one is skipped, never assembled.
    writeFileSync(path, `${'x'.repeat(40 << 20)}\n{"short":1}\n`)
    const asked: number[] = []
    class Recording extends UnitBuffers {
      override take(min = 0): ArrayBuffer {
        asked.push(Math.max(min, this.capacity))
        return super.take(min)
      }
    }
    const unitBytes = 64 << 10
    const maxLineBytes = 3 << 20
    let skipping = 0
    const events: string[] = []
    for await (const e of readUnits(path, {gzip: false, unitBytes, maxLineBytes, buffers: new Recording(unitBytes + (1 << 20), 4)})) {
      if (e.kind === 'skipping') skipping++
      else events.push(e.kind === 'oversize' ? `oversize ${e.lineNo} ${e.length}` : e.kind === 'unit' ? `unit ${e.firstLineNo}` : e.kind)
    }
    expect(events).toEqual([`oversize 1 ${40 << 20}`, 'unit 2'])
    expect(Math.max(...asked)).toBeLessThanOrEqual(unitBytes + maxLineBytes + (2 << 20))
    // One report per read of the skipped line (1 MiB reads): the caller can store and release the evidence meanwhile.
    expect(skipping).toBeGreaterThanOrEqual(30)
  })
})

describe('readUnits on damaged gzip keeps every byte gzip -dc recovers (issue 16)', () => {
  const lines = Array.from({length: 3000}, (_, i) => JSON.stringify({i, text: `line ${i} `.repeat(12)}))
  const content = `${lines.join('\n')}\n`

  /** What `gzip -dc` writes before it gives up (it exits non-zero on damage). */
  function zcat(path: string): Buffer {
    try {
      return execFileSync('gzip', ['-dc', path], {maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000})
    } catch (error) {
      return (error as {stdout: Buffer}).stdout
    }
  }

  async function read(path: string): Promise<{bytes: Buffer; cut: string | null; error: string | null}> {
    const parts: Buffer[] = []
    let cut: string | null = null
    try {
      for await (const e of readUnits(path, {gzip: true, unitBytes: 64 << 10, maxLineBytes: 1 << 20})) {
        if (e.kind === 'unit') parts.push(Buffer.from(e.bytes))
        if (e.kind === 'cut') {
          parts.push(Buffer.from(e.raw))
          cut = `line ${e.lineNo} @${e.offset}`
        }
      }
      return {bytes: Buffer.concat(parts), cut, error: null}
    } catch (error) {
      return {bytes: Buffer.concat(parts), cut, error: (error as Error).message}
    }
  }

  const gz = gzipSync(content)
  const cases: Array<[string, Buffer]> = [
    ['bad trailer (CRC)', Buffer.concat([gz.subarray(0, gz.length - 8), Buffer.from([1, 2, 3, 4]), gz.subarray(gz.length - 4)])],
    ['garbage appended', Buffer.concat([gz, Buffer.from('GARBAGE')])],
    ['corrupt block', (() => {
      const c = Buffer.from(gz)
      c[Math.floor(c.length * 0.6)]! ^= 0xff
      return c
    })()],
    ['truncated', gz.subarray(0, Math.floor(gz.length * 0.7))],
  ]
  for (const [name, bytes] of cases) {
    it(`${name}: the bytes before the damage, to the byte, and the damage reported`, async () => {
      const path = join(dir, `${name.replace(/\W/g, '_')}.jsonl.gz`)
      writeFileSync(path, bytes)
      const want = zcat(path)
      const got = await read(path)
      expect(got.error).toMatch(/gzip stream is (truncated|corrupt)/)
      // Every byte gzip recovers (for garbage appended: all of the file's lines).
      expect(got.bytes.length).toBe(want.length)
      expect(got.bytes.equals(want)).toBe(true)
      if (name === 'garbage appended') expect(want.toString()).toBe(content)
      // A line the damage cut is handed over as cut (never parsed), not as a unit.
      if (!want.toString().endsWith('\n')) expect(got.cut).toMatch(/^line \d+ @\d+$/)
    })
  }
})
