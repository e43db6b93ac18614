import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it, vi} from 'vitest'
import {decideFormats, ingestLogs, refusedMessage, type FormatDecision} from '../../src/ingest/ingest-logs.js'
import {makeCase} from '../helpers/case-builder.js'
import {tempDir} from '../helpers/cli.js'

// Issue 18: formats are decided while the next files' first lines are being read (a few files
// at a time). What the user sees must not change: one decision per file, in the order given,
// and a file that cannot be opened stops the run in its place, after the decisions before it.
// A file opened whose first lines then fail to read or to be judged is refused alone (the other
// files are read): an exception there aborted the whole command, the other files' records lost.

// A file whose first lines fail to read (an I/O error, which root's permissions cannot provoke)
// fails here, after a delay, so that the files after it are decided first.
vi.mock('../../src/ingest/file-lines.js', async (importActual) => {
  const actual = await importActual<typeof import('../../src/ingest/file-lines.js')>()
  return {
    ...actual,
    sniffFile: async (...args: Parameters<typeof actual.sniffFile>) => {
      if (args[0].path.includes('sniff-fails')) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        throw new Error(`${args[0].path}: cannot read (EIO)`)
      }
      return actual.sniffFile(...args)
    },
  }
})

const dir = tempDir()
const native = (i: number) => `${JSON.stringify({ts: '2026-10-30T00:00:00Z', request_id: `r${i}`, tenant_id: 't', session_id: 's', request: 'hi', response: 'ok'})}\n`
const otel = `${JSON.stringify({resourceSpans: []})}\n`

function files(n: number): string[] {
  const sub = join(dir, `set-${n}-${Math.random().toString(36).slice(2)}`)
  mkdirSync(sub)
  return Array.from({length: n}, (_, i) => {
    const path = join(sub, `f${String(i).padStart(2, '0')}.jsonl${i % 5 === 3 ? '.gz' : ''}`)
    // Sizes differ a lot, so that reads finish out of order.
    const body = (i % 4 === 1 ? otel : '') + Array.from({length: 1 + ((i * 7919) % 13) * 40}, (_, k) => native(k)).join('')
    writeFileSync(path, i % 5 === 3 ? gzipSync(body) : body)
    return path
  })
}

describe('decideFormats', () => {
  it('decides every file in the order given, whatever order their reads finish in', async () => {
    const paths = files(11)
    const seen: FormatDecision[] = []
    const decided = await decideFormats(paths, null, {onFormat: (d) => seen.push(d)}, 1 << 20)
    expect(decided.map((d) => d.path)).toEqual(paths)
    expect(seen.map((d) => d.path)).toEqual(paths)
    expect(decided.map((d) => d.gzip)).toEqual(paths.map((p) => p.endsWith('.gz')))
    // Each file's own decision: the same as deciding it alone.
    for (const [i, path] of paths.entries()) {
      const [alone] = await decideFormats([path], null, {}, 1 << 20)
      expect(decided[i]!.reason).toBe(alone!.reason)
      expect(decided[i]!.how?.format).toBe(alone!.how?.format)
    }
  })

  it('stops at a file that cannot be read, after deciding the files before it and none after', async () => {
    const paths = files(7)
    const missing = join(dir, 'no-such-file.jsonl')
    const list = [...paths.slice(0, 2), missing, ...paths.slice(2)]
    const seen: string[] = []
    await expect(decideFormats(list, null, {onFormat: (d) => seen.push(d.path)}, 1 << 20)).rejects.toThrow(/no-such-file\.jsonl: cannot read/)
    expect(seen).toEqual(paths.slice(0, 2))
  })

  it('refuses alone, in its place, a file that fails while its first lines are read; the files after it are decided', async () => {
    const paths = files(6)
    const failing = join(dir, 'sniff-fails.jsonl')
    writeFileSync(failing, native(0))
    const list = [...paths.slice(0, 2), failing, ...paths.slice(2)]
    const seen: FormatDecision[] = []
    const decided = await decideFormats(list, null, {onFormat: (d) => seen.push(d)}, 1 << 20)
    expect(seen.map((d) => d.path)).toEqual(list)
    expect(decided.map((d) => d.path)).toEqual(list)
    expect(decided[2]!.how).toBeNull()
    expect(decided[2]!.reason).toBe(`reading its first lines to decide the format failed (${failing}: cannot read (EIO))`)
    expect(seen[2]).toMatchObject({format: null, reason: decided[2]!.reason})
    expect(decided.filter((d) => d.how === null)).toHaveLength(1)
  })

  it('ingest logs: such a file is refused in one line naming it and why, and the other files are in the case', async () => {
    const paths = files(3)
    const failing = join(dir, 'sniff-fails-ingest.jsonl')
    writeFileSync(failing, native(0))
    const tc = makeCase()
    const result = await ingestLogs(tc.db, {paths: [paths[0]!, failing, paths[1]!, paths[2]!], now: () => new Date('2026-11-03T00:00:00Z'), workers: 0})
    expect(result.per_file.map((f) => [f.path, f.status])).toEqual([[paths[0], 'ingested'], [failing, 'refused'], [paths[1], 'ingested'], [paths[2], 'ingested']])
    const message = refusedMessage(result)
    expect(message).toContain(`${failing}: not ingested: its log format could not be decided: reading its first lines to decide the format failed (${failing}: cannot read (EIO))`)
    expect(message).not.toContain('\n')
    expect(result.files).toBe(3)
  })

  it('refuses a path that is not a regular file in its place', async () => {
    const paths = files(6)
    const notFile = join(dir, 'dir.jsonl')
    mkdirSync(notFile, {recursive: true})
    const seen: string[] = []
    await expect(decideFormats([paths[0]!, notFile, ...paths.slice(1)], null, {onFormat: (d) => seen.push(d.path)}, 1 << 20)).rejects.toThrow(/dir\.jsonl: .*not a regular file/)
    expect(seen).toEqual([paths[0]])
  })
})
