import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync, gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {DamagedStreamError, gunzipFile} from '../../src/ingest/gunzip-recover.js'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// Node's zlib ends a gzip stream at a NUL byte after a member and takes no more input; the
// reader then waited for an 'end' that had been emitted already, and ingest and triage exited
// 13 (an unsettled top-level await) with nothing stored.

const LEAK = 'CANARY-00000000000000000000000000000002'
const lines = (prefix: string, n: number, answer?: string): string =>
  Array.from({length: n}, (_, i) => `${chatLine({request_id: `${prefix}-${i}`, answer: i === n - 1 && answer ? answer : 'hi there'})}\n`).join('')

async function readAll(path: string, size: number): Promise<{text: string; hashed: number; error: Error | null}> {
  const out: Buffer[] = []
  let hashed = 0
  try {
    for await (const c of gunzipFile(path, size, (chunk) => void (hashed += chunk.length))) out.push(c)
    return {text: Buffer.concat(out).toString(), hashed, error: null}
  } catch (error) {
    return {text: Buffer.concat(out).toString(), hashed, error: error as Error}
  }
}

describe('a gzip file with NUL bytes after a member', () => {
  it('reads NUL padding after the last member as gzip -d does, and names a member after a NUL as not read', {timeout: 20_000}, async () => {
    const dir = tempDir()
    const first = gzipSync(lines('a', 50))
    const second = gzipSync(lines('b', 50))
    const padded = Buffer.concat([first, second, Buffer.alloc(4096)])
    writeFileSync(join(dir, 'padded.gz'), padded)
    const got = await readAll(join(dir, 'padded.gz'), padded.length)
    expect(got.error).toBeNull()
    expect(got.text).toBe(gunzipSync(Buffer.concat([first, second])).toString())
    expect(got.hashed).toBe(padded.length)

    const between = Buffer.concat([first, Buffer.alloc(1), second])
    writeFileSync(join(dir, 'between.gz'), between)
    const cut = await readAll(join(dir, 'between.gz'), between.length)
    expect(cut.error).toBeInstanceOf(DamagedStreamError)
    expect(cut.error!.message).toMatch(new RegExp(`gzip stream ends at compressed byte ${first.length} of ${between.length}`))
    expect(cut.text).toBe(lines('a', 50))
    expect(cut.hashed).toBe(between.length)
  })

  it('ingest and triage end with the sibling files stored; the gate does not pass on what was not decompressed', {timeout: 60_000}, async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'clean.jsonl'), lines('c', 5))
    writeFileSync(join(logs, 'padded.jsonl.gz'), Buffer.concat([gzipSync(lines('p', 5, `code ${LEAK}`)), Buffer.alloc(512)]))
    writeFileSync(join(logs, 'between.jsonl.gz'), Buffer.concat([gzipSync(lines('x', 5)), Buffer.alloc(1), gzipSync(lines('y', 5, `code ${LEAK}`))]))
    const canaries = join(dir, 'canaries.csv')
    writeFileSync(canaries, `marker,tenant_id,session_id\nCANARY-00000000000000000000000000000001,tenant-a,sess-1\n${LEAK},tenant-b,sess-9\n`)
    // The member after the NUL is not read: exit 1 (E_NOT_READ), the document as the error's details.
    const r = await run(['ingest', 'logs', logs, '--db', join(dir, 'case.db'), '--json'])
    expect(r.code, r.stderr).toBe(1)
    const out = (JSON.parse(r.stdout) as {error: {details: {files: number; per_file: Array<{path: string; records: number; unread: string | null}>}}}).error.details
    expect(out.files).toBe(3)
    expect(out.per_file.find((f) => f.path.endsWith('padded.jsonl.gz'))).toMatchObject({records: 5, unread: null})
    expect(out.per_file.find((f) => f.path.endsWith('between.jsonl.gz'))).toMatchObject({records: 5, unread: expect.stringMatching(/gzip stream ends at compressed byte/)})
    // The padded file's leak is found; the member after the NUL is named as not read.
    const t = await run(['triage', logs, '--canaries', canaries, '--db', join(dir, 'triage.db'), '--fail-on-leak'])
    expect(t.code).toBe(3)
    expect(t.stderr).toMatch(/Gate: also: --fail-on-leak cannot pass: 1 log file could not be judged: .*between\.jsonl\.gz \(not read whole: gzip stream ends/)
  })
})
