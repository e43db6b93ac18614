import {describe, expect, it} from 'vitest'
import {clearProgress, ingestProgressBar, scanProgressLine, type ProgressStream} from '../../src/cli/progress.js'
import type {IngestProgress} from '../../src/ingest/ingest-logs.js'

// Issue 17: one progress line for a whole ingest (all files, .gz by their compressed bytes)
// with an ETA that does not read noise in the first moments, and progress for scan's phases;
// on a terminal only.

function terminal(): ProgressStream & {lines: string[]} {
  const lines: string[] = []
  return {isTTY: true, lines, write: (text: string) => lines.push(text)}
}

const MB = 1_000_000
const event = (over: Partial<IngestProgress>): IngestProgress => ({
  file: 'a.jsonl', fileIndex: 0, fileCount: 2, bytesDone: 0, bytesTotal: 10 * MB, records: 0, inputBytesDone: 0, inputBytesTotal: 20 * MB, ...over,
})

describe('ingest progress', () => {
  it('is off when stderr is not a terminal', () => {
    expect(ingestProgressBar({isTTY: false, write: () => {}})).toBeUndefined()
    expect(scanProgressLine({isTTY: false, write: () => {}})).toBeUndefined()
  })

  it('one line over all files: the fraction of all input bytes, records summed over files, no rate or ETA in the first moments', () => {
    const out = terminal()
    let t = 0
    const bar = ingestProgressBar(out, () => t)!
    t = 200
    bar(event({inputBytesDone: 1 * MB, records: 50_000}))
    // 200 ms in: a rate would read 250,000 rec/s from nothing; none is shown.
    expect(out.lines.at(-1)).toMatch(/^\r\x1b\[2Kingest \[#?\.+\] +5% {2}1\.0 MB of 20\.0 MB {2}file 1\/2 {2}50,000 records {2}\(0s\)$/)
    t = 4000
    bar(event({inputBytesDone: 8 * MB, records: 400_000}))
    t = 5000
    // The second file is gzip: no decompressed total, its compressed bytes count.
    bar(event({file: 'b.jsonl.gz', fileIndex: 1, bytesTotal: null, bytesDone: 40 * MB, inputBytesDone: 15 * MB, records: 100_000}))
    const line = out.lines.at(-1)!
    expect(line).toContain('[##################......]  75%')
    expect(line).toContain('15.0 MB of 20.0 MB  file 2/2  500,000 records')
    expect(line).toContain('3.0 MB/s, 100,000 rec/s')
    // 5 s for three quarters: about 2 s to go.
    expect(line).toContain('ETA 2s')
    expect(line).not.toContain('\n')
  })

  it('triage\'s quick verdict pass has its own label, and ingest after it starts its clock and count again', () => {
    const out = terminal()
    let t = 0
    const bar = ingestProgressBar(out, () => t)!
    t = 4000
    bar(event({phase: 'verdict', inputBytesDone: 10 * MB, records: 300_000}))
    expect(out.lines.at(-1)).toMatch(/^\r\x1b\[2Kverdict pass \[/)
    expect(out.lines.at(-1)).toContain('300,000 records')
    t = 4200
    bar(event({inputBytesDone: 1 * MB, records: 50_000}))
    // ingest's own start: 200 ms in, no rate yet, and the verdict pass's records are not counted again
    expect(out.lines.at(-1)).toMatch(/^\r\x1b\[2Kingest \[#?\.+\] +5% {2}1\.0 MB of 20\.0 MB {2}file 1\/2 {2}50,000 records {2}\(0s\)$/)
  })

  it('clears its line', () => {
    const out = terminal()
    clearProgress(out)
    expect(out.lines).toEqual(['\r\x1b[2K'])
    const pipe = {isTTY: false, lines: [] as string[], write(text: string) { this.lines.push(text) }}
    clearProgress(pipe)
    expect(pipe.lines).toEqual([])
  })
})

describe('scan progress', () => {
  it('names the phase, files done, and the time so far', () => {
    const out = terminal()
    let t = 0
    const line = scanProgressLine(out, () => t)!
    t = 1000
    line({phase: 'markers', done: 3, total: 13})
    expect(out.lines.at(-1)).toBe('\r\x1b[2Kscan 1/3: canary markers 3/13 files  (1s)')
    t = 75_000
    line({phase: 'provenance', done: 0, total: 1})
    expect(out.lines.at(-1)).toBe('\r\x1b[2Kscan 2/3: provenance (verbatim overlap)…  (1m15s)')
    line({phase: 'pii', done: 1, total: 1})
    expect(out.lines.at(-1)).toBe('\r\x1b[2Kscan 3/3: personal data done  (1m15s)')
    line({phase: 'reextract', done: 12_000, total: 200_000})
    expect(out.lines.at(-1)).toBe('\r\x1b[2Kscan: detection extracts made again under the current rules (a case made by an earlier version; once) 12,000/200,000 records  (1m15s)')
  })
})

describe('what ingest reports', () => {
  it('input bytes over all files, the .gz file by its compressed bytes read', async () => {
    const {mkdtempSync, writeFileSync, statSync} = await import('node:fs')
    const {join} = await import('node:path')
    const {tmpdir} = await import('node:os')
    const {gzipSync} = await import('node:zlib')
    const {chatLine} = await import('../helpers/log-lines.js')
    const {openCase} = await import('../../src/store/open-case.js')
    const {ingestLogs} = await import('../../src/ingest/ingest-logs.js')
    const dir = mkdtempSync(join(tmpdir(), 'ct-progress-'))
    const lines = (prefix: string): string => Array.from({length: 22_000}, (_, i) => chatLine({request_id: `${prefix}${i}`, prompt: 'word '.repeat(60)})).join('\n') + '\n'
    const plain = join(dir, 'a.jsonl')
    const gz = join(dir, 'b.jsonl.gz')
    writeFileSync(plain, lines('a'))
    writeFileSync(gz, gzipSync(lines('b')))
    const sizes = [statSync(plain).size, statSync(gz).size]
    const events: IngestProgress[] = []
    const db = openCase(join(dir, 'case.db'), {create: true})
    try {
      await ingestLogs(db, {paths: [plain, gz], now: () => new Date(), workers: 0, onProgress: (p) => events.push({...p})})
    } finally {
      db.close()
    }
    expect(events.every((e) => e.inputBytesTotal === sizes[0]! + sizes[1]!)).toBe(true)
    const second = events.filter((e) => e.fileIndex === 1)
    expect(events.some((e) => e.fileIndex === 0)).toBe(true)
    expect(second.length).toBeGreaterThan(0)
    for (const e of second) {
      expect(e.bytesTotal).toBeNull()
      expect(e.inputBytesDone).toBeGreaterThan(sizes[0]!)
      expect(e.inputBytesDone).toBeLessThanOrEqual(sizes[0]! + sizes[1]!)
    }
  }, 120_000)
})

describe('a narrow terminal', () => {
  it('cuts the line to its width, so it is redrawn in place instead of wrapping', () => {
    const out = {...terminal(), columns: 40}
    const bar = ingestProgressBar(out, () => 0)!
    bar(event({inputBytesDone: 1 * MB}))
    expect(out.lines.at(-1)!.replace('\r\x1b[2K', '')).toHaveLength(39)
  })
})
