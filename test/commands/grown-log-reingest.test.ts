import {appendFileSync, copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {gatherFacts} from '../../src/notify/facts.js'
import {openCase} from '../../src/store/open-case.js'

// A log appended to after it was ingested, ingested again (ingest logs DIR, triage DIR): its
// lines already in the case were read again and counted a second time as duplicates, the
// file counted twice among the case's log files (status, and a draft's "from N log files"),
// and a copy of it under another name likewise. A file whose first bytes changed is another
// matter: it is named as changed, never merged with what was stored from its path.

const A = 'CANARY-00112233445566778899aabb'
const line = (i: number, tenant: string, session: string, content = 'fine'): string =>
  JSON.stringify({ts: `2026-11-03T01:${String(i).padStart(2, '0')}:00Z`, request_id: `r-${i}`, tenant_id: tenant, session_id: session, status: 200, request: 'hello there', response: content}) + '\n'

interface Status {
  files: number
  earlier_versions: number
  records: number
  duplicates: number
  bad_lines: number
  originals_grown: unknown[]
}
interface FileSummary {
  path: string
  sha256: string
  status: string
  records: number
  duplicates: number
  bad_lines: number
  notes: string[]
  continues?: {sha256: string; size: number; read_from: number; from_line: number | null}
  changed_from?: {sha256: string; size: number}
}
interface Ingest {
  files: number
  records: number
  duplicates: number
  bad_lines: number
  warnings: string[]
  per_file: FileSummary[]
}

/** Three logs: app.jsonl holds a retry (a duplicate line) and a bad line; the registry gives tn-a's session its marker. */
function logDir(): {dir: string; logs: string; app: string; db: string; canaries: string} {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  const app = join(logs, 'app.jsonl')
  writeFileSync(app, line(1, 'tn-a', 's-a', `mine ${A}`) + line(2, 'tn-a', 's-a') + line(2, 'tn-a', 's-a') + '{not json\n' + line(3, 'tn-b', 's-b'))
  writeFileSync(join(logs, 'api.jsonl'), line(10, 'tn-b', 's-b') + line(11, 'tn-c', 's-c'))
  writeFileSync(join(logs, 'web.jsonl'), line(20, 'tn-c', 's-c'))
  const canaries = join(dir, 'reg.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tn-a,s-a,2026-11-01T00:00:00Z\n`)
  return {dir, logs, app, db: join(dir, 'c.db'), canaries}
}

const counts = (s: Status) => ({files: s.files, records: s.records, duplicates: s.duplicates, bad_lines: s.bad_lines})

describe('a log that grew since it was ingested, ingested again', () => {
  it('ingest logs DIR reads only its new lines: every count says what the case holds, once', async () => {
    const {logs, app, db, canaries} = logDir()
    await runJson(['ingest', 'canaries', canaries, '--db', db])
    await runJson(['ingest', 'logs', logs, '--db', db])
    const before = await runJson<Status>(['status', '--db', db])
    expect(counts(before)).toEqual({files: 3, records: 6, duplicates: 1, bad_lines: 1})
    const stored = statSync(app).size

    // Two new lines: a new request, and a retry of one already stored (a real duplicate).
    appendFileSync(app, line(4, 'tn-b', 's-b', `leak ${A}`) + line(1, 'tn-a', 's-a', `mine ${A}`))
    const again = await runJson<Ingest>(['ingest', 'logs', logs, '--db', db])
    const grown = again.per_file.find((f) => f.path.endsWith('app.jsonl'))!
    expect([grown.status, grown.records, grown.duplicates, grown.bad_lines]).toEqual(['ingested', 1, 1, 0])
    expect(grown.continues).toMatchObject({size: stored, read_from: stored, from_line: 6})
    expect([again.records, again.bad_lines]).toEqual([1, 0])

    const after = await runJson<Status>(['status', '--db', db])
    // One file more read, none more held: 3 log files, the new record and the one new duplicate line.
    expect(counts(after)).toEqual({files: 3, records: 7, duplicates: 2, bad_lines: 1})
    expect(after.earlier_versions).toBe(1)
    expect(after.originals_grown).toEqual([])

    // The new line's leak is judged, and the draft counts the case's files.
    const gate = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(gate.code, gate.stderr).toBe(3)
    await runJson(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'controller'])
    const draft = await runJson<{scope: {log_files: number; records_examined: number}}>(['report', 'article33', '--db', db])
    expect([draft.scope.log_files, draft.scope.records_examined]).toEqual([3, 7])
    const text = await run(['report', 'article33', '--db', db])
    expect(text.stdout).toContain('from 3 log files')

    // The lines before the new ones are accounted for by the version stored first.
    const verify = await run(['verify', '--db', db])
    expect(verify.code, verify.stderr + verify.stdout).toBe(0)
  }, 120_000)

  it('triage DIR again counts the same (--evidence reference)', async () => {
    const {logs, app, db} = logDir()
    await runJson(['triage', logs, '--db', db, '--evidence', 'reference'])
    appendFileSync(app, line(4, 'tn-b', 's-b') + line(5, 'tn-b', 's-b'))
    await runJson(['triage', logs, '--db', db, '--evidence', 'reference'])
    const after = await runJson<Status & {log_evidence: {files_by_reference: number}}>(['status', '--db', db])
    expect(counts(after)).toEqual({files: 3, records: 8, duplicates: 1, bad_lines: 1})
    expect(after.log_evidence.files_by_reference).toBe(3)
    const shown = await run(['status', '--db', db])
    expect(shown.stdout).toContain('(3 log, with 1 earlier version of logs that grew')
    expect(shown.stdout).toContain('3 of 3 log files kept by reference')
    // What the drafts say: 3 log files, all 3 read from their originals.
    const conn = openCase(db)
    try {
      const {totals} = gatherFacts(conn, {now: new Date('2026-11-04T00:00:00Z')})
      expect([totals.log_files, totals.log_files_by_reference]).toEqual([3, 3])
    } finally {
      conn.close()
    }
    expect((await run(['verify', '--db', db])).code).toBe(0)
  }, 120_000)

  it('a copy of it that grew, under another path and name, is read the same way', async () => {
    const {dir, logs, app, db} = logDir()
    await runJson(['ingest', 'logs', logs, '--db', db])
    const other = join(dir, 'elsewhere')
    mkdirSync(other)
    const copy = join(other, 'gateway-copy.jsonl')
    copyFileSync(app, copy)
    appendFileSync(copy, line(4, 'tn-b', 's-b'))
    const r = await runJson<Ingest>(['ingest', 'logs', copy, '--db', db])
    expect([r.per_file[0]!.records, r.per_file[0]!.duplicates, r.per_file[0]!.bad_lines]).toEqual([1, 0, 0])
    expect(r.per_file[0]!.continues?.size).toBe(statSync(app).size)
    const after = await runJson<Status>(['status', '--db', db])
    expect(counts(after)).toEqual({files: 3, records: 7, duplicates: 1, bad_lines: 1})
    // The original grows alike and is given again: its bytes are the copy's, already in the case, so it is no grown original.
    appendFileSync(app, line(4, 'tn-b', 's-b'))
    const again = await runJson<Ingest>(['ingest', 'logs', app, '--db', db])
    expect(again.per_file[0]!.status).toBe('already_present')
    const judged = await runJson<Status>(['status', '--db', db])
    expect([counts(judged), judged.originals_grown]).toEqual([{files: 3, records: 7, duplicates: 1, bad_lines: 1}, []])
  }, 120_000)

  // With parse workers, a unit cut where the new lines begin travels to a worker as a view into its buffer.
  for (const workers of ['0', '2']) {
    it(`a last line stored cut short is read again whole, and counted once (CROSSTALK_WORKERS=${workers})`, async () => {
      const env = {env: {CROSSTALK_WORKERS: workers}}
      const {logs, app, db} = logDir()
      const full = line(4, 'tn-b', 's-b')
      appendFileSync(app, full.slice(0, 30))
      await runJson(['ingest', 'logs', logs, '--db', db], env)
      expect(counts(await runJson<Status>(['status', '--db', db]))).toEqual({files: 3, records: 6, duplicates: 1, bad_lines: 2})
      appendFileSync(app, full.slice(30) + line(5, 'tn-c', 's-c'))
      const r = await runJson<Ingest>(['ingest', 'logs', logs, '--db', db], env)
      const grown = r.per_file.find((f) => f.path.endsWith('app.jsonl'))!
      expect([grown.continues?.from_line, grown.records, grown.bad_lines]).toEqual([6, 2, 0])
      // The cut line is now a record: no longer a bad line.
      expect(counts(await runJson<Status>(['status', '--db', db]))).toEqual({files: 3, records: 8, duplicates: 1, bad_lines: 1})
      expect((await run(['verify', '--db', db])).code).toBe(0)
    }, 120_000)
  }

  it('a file whose stored first bytes changed is named as changed and never merged', async () => {
    const {logs, app, db} = logDir()
    const first = await runJson<Ingest>(['ingest', 'logs', logs, '--db', db])
    const was = first.per_file.find((f) => f.path.endsWith('app.jsonl'))!
    // The first line rewritten (same length), then a line appended: not a longer version of what was stored.
    writeFileSync(app, readFileSync(app, 'utf8').replace('"fine"', '"FINE"').replace('mine ', 'MINE ') + line(4, 'tn-b', 's-b'))
    const r = await run(['ingest', 'logs', logs, '--db', db, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as Ingest
    const changed = out.per_file.find((f) => f.path.endsWith('app.jsonl'))!
    expect(changed.continues).toBeUndefined()
    expect(changed.changed_from?.sha256).toBe(was.sha256)
    expect(out.warnings.some((w) => w.includes('app.jsonl') && w.includes('CHANGED'))).toBe(true)
    expect(r.stderr).toContain('CHANGED')
    // Read whole as a file of its own: its request ids already in the case are duplicates, r-4 a record.
    expect([changed.records, changed.duplicates, changed.bad_lines]).toEqual([1, 4, 1])
    const after = await runJson<Status>(['status', '--db', db])
    expect([after.files, after.earlier_versions, after.records]).toEqual([4, 0, 7])
  }, 120_000)

  it('status and the gate name an original rotated to a longer file as changed, not as appended to', async () => {
    const {logs, app, db, canaries} = logDir()
    await runJson<Ingest>(['ingest', 'logs', logs, '--db', db])
    await run(['ingest', 'canaries', canaries, '--db', db])
    const appended = join(logs, 'web.jsonl')
    // web.jsonl appended to; app.jsonl replaced (logrotate) by a new, longer file
    appendFileSync(appended, line(21, 'tn-c', 's-c'))
    writeFileSync(app, line(30, 'tn-b', 's-b') + line(31, 'tn-b', 's-b') + line(32, 'tn-b', 's-b') + line(33, 'tn-b', 's-b') + line(34, 'tn-b', 's-b'))
    const status = await runJson<{originals_grown: Array<{path: string; head: string; bytes_now: number}>}>(['status', '--db', db])
    expect(status.originals_grown.map((g) => [g.path.replace(/^.*\//, ''), g.head, g.bytes_now])).toEqual([
      ['app.jsonl', 'changed', statSync(app).size],
      ['web.jsonl', 'as_ingested', statSync(appended).size],
    ])
    const lines = (await run(['status', '--db', db])).stdout.split('\n').filter((l) => l.includes('NOT JUDGED'))
    const rotated = lines.find((l) => l.includes('app.jsonl'))!
    expect(rotated).toContain('no longer the file ingested')
    expect(rotated).toContain('never merged')
    expect(rotated).not.toContain('appended since')
    expect(lines.find((l) => l.includes('web.jsonl'))).toContain('appended since')
    const gate = await run(['scan', '--fail-on-leak', '--db', db])
    expect(gate.code).not.toBe(0)
    expect(gate.stderr).toMatch(/app\.jsonl \(another file now: its first bytes changed/)
  }, 120_000)

  it('the same records given again under another --source are said loudly (source and count), and a grown copy so given is not said to count them as duplicates', async () => {
    const {dir, logs, app, db} = logDir()
    await runJson<Ingest>(['ingest', 'logs', logs, '--db', db])
    // a rotated copy of app.jsonl (same lines, gzip) under a label given now
    const rotated = join(dir, 'app.jsonl.1.gz')
    writeFileSync(rotated, gzipSync(readFileSync(app)))
    const again = await runJson<Ingest>(['ingest', 'logs', rotated, '--source', 'gw-1', '--db', db])
    const same = again.warnings.filter((w) => w.includes('SAME RECORDS'))
    expect(same).toHaveLength(1)
    expect(same[0]).toContain('3 of its 3 records repeat line for line a record already in the case under --source "default"')
    expect(same[0]).toContain('every figure counts them twice')
    // a grown copy under another label: its first lines are stored again, never "duplicates"
    const grown = join(dir, 'copy.jsonl')
    writeFileSync(grown, readFileSync(join(logs, 'api.jsonl'), 'utf8') + line(12, 'tn-c', 's-c'))
    const copy = await runJson<Ingest>(['ingest', 'logs', grown, '--source', 'gw-2', '--db', db])
    expect(copy.duplicates).toBe(0)
    const begins = copy.warnings.find((w) => w.includes('begins with the bytes of'))!
    expect(begins).not.toContain('the repeated ones count as duplicates')
    expect(begins).toContain('not counted as duplicates')
    expect(copy.warnings.find((w) => w.includes('SAME RECORDS'))).toContain('2 of its 3 records')
    // status names both files as counted twice
    const status = await runJson<{same_records_other_source: Array<{path: string; note: string}>}>(['status', '--db', db])
    expect(status.same_records_other_source.map((d) => [d.path.replace(/^.*\//, ''), /(\d+) of its/.exec(d.note)?.[1]])).toEqual([['app.jsonl.1.gz', '3'], ['copy.jsonl', '2']])
    expect((await run(['status', '--db', db])).stdout).toMatch(/COUNTED TWICE +\S*app\.jsonl\.1\.gz: SAME RECORDS/)
  }, 120_000)

  it('an empty file is the earlier version only of what its own path holds later', async () => {
    const {dir, logs, db} = logDir()
    const empty = join(logs, 'empty.jsonl')
    writeFileSync(empty, '')
    await runJson(['ingest', 'logs', logs, '--db', db])
    const other = join(dir, 'other.jsonl')
    writeFileSync(other, line(30, 'tn-d', 's-d'))
    const r = await runJson<Ingest>(['ingest', 'logs', other, '--db', db])
    expect(r.per_file[0]!.continues).toBeUndefined()
    expect(counts(await runJson<Status>(['status', '--db', db]))).toEqual({files: 5, records: 7, duplicates: 1, bad_lines: 1})
    writeFileSync(empty, line(31, 'tn-d', 's-d'))
    const grew = await runJson<Ingest>(['ingest', 'logs', logs, '--db', db])
    const e = grew.per_file.find((f) => f.path.endsWith('empty.jsonl'))!
    expect([e.continues?.size, e.changed_from, e.records]).toEqual([0, undefined, 1])
    expect(counts(await runJson<Status>(['status', '--db', db]))).toEqual({files: 5, records: 8, duplicates: 1, bad_lines: 1})
  }, 120_000)

  it('drop refuses the earlier version alone, and takes both together', async () => {
    const {logs, app, db} = logDir()
    const first = await runJson<Ingest>(['ingest', 'logs', logs, '--db', db])
    appendFileSync(app, line(4, 'tn-b', 's-b'))
    const second = await runJson<Ingest>(['ingest', 'logs', logs, '--db', db])
    const v1 = first.per_file.find((f) => f.path.endsWith('app.jsonl'))!.sha256
    const v2 = second.per_file.find((f) => f.path.endsWith('app.jsonl'))!.sha256
    const alone = await run(['drop', v1.slice(0, 12), '--db', db, '--reason', 'test'])
    expect(alone.code).toBe(1)
    expect(alone.stderr).toContain('longer version')
    expect(alone.stderr).toContain(v2.slice(0, 12))
    const both = await run(['drop', v1.slice(0, 12), v2.slice(0, 12), '--db', db, '--reason', 'test'])
    expect(both.code, both.stderr).toBe(0)
    expect(counts(await runJson<Status>(['status', '--db', db]))).toEqual({files: 2, records: 3, duplicates: 0, bad_lines: 0})
  }, 120_000)
})
