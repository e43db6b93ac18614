import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
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
  for await (const e of readUnits(path, {gzip, maxLineBytes: max, unitBytes, buffers})) {
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
