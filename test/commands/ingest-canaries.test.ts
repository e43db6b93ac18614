import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {run, runJson} from '../helpers/commands.js'
import {tempDir} from '../helpers/cli.js'
import {nativeLine} from '../helpers/case-builder.js'

interface Result {
  status: string
  entries: number
  added: number
  already_registered: number
}

const HEADER = 'marker,tenant_id,session_id,issued_at'
const M1 = 'CANARY-0123456789abcdef0123'
const M2 = 'CANARY-fedcba98765432100000'

function setup(name: string, body: string) {
  const dir = tempDir()
  const file = join(dir, name)
  writeFileSync(file, body)
  return {dir, file, db: join(dir, 'case.db')}
}

describe('crosstalk ingest canaries', () => {
  it('reads CSV (quoted fields, CRLF, BOM) and is idempotent', async () => {
    const {dir, file, db} = setup('c.csv', `\ufeff${HEADER}\r\n${M1},t1,s1,2026-10-30T00:00:00Z\r\n"${M2}","tenant, with comma","s""2",\r\n`)
    expect(await runJson<Result>(['ingest', 'canaries', file, '--db', db])).toMatchObject({status: 'ingested', entries: 2, added: 2})
    expect(await runJson<Result>(['ingest', 'canaries', file, '--db', db])).toMatchObject({status: 'already_present', added: 0})
    // Another file with the same registrations adds nothing either.
    const copy = join(dir, 'again.jsonl')
    writeFileSync(copy, JSON.stringify({marker: M1.toUpperCase().replace('CANARY', 'CANARY'), tenant_id: 't1', session_id: 's1', issued_at: null}) + '\n')
    expect(await runJson<Result>(['ingest', 'canaries', copy, '--db', db])).toMatchObject({status: 'ingested', entries: 1, added: 0, already_registered: 1})
    expect((await runJson<{canaries: number}>(['status', '--db', db])).canaries).toBe(2)
  })

  it('a marker given to two sessions in one file is an error listing both lines, and nothing is stored', async () => {
    const {file, db} = setup('c.csv', `${HEADER}\n${M1},t1,s1,\n${M2},t1,s2,\n${M1.replace('abcdef', 'ABCDEF')},t2,s9,\n`)
    const r = await run(['ingest', 'canaries', file, '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/registered to tenant "t1" session "s1" \(line 2\) and tenant "t2" session "s9" \(line 4\)/)
    // The case this command would have created holds nothing: no empty case is left behind.
    expect(existsSync(db)).toBe(false)
  })

  it('a marker already registered to another session in the case is an error', async () => {
    const {dir, file, db} = setup('a.csv', `${HEADER}\n${M1},t1,s1,\n`)
    await runJson(['ingest', 'canaries', file, '--db', db])
    const other = join(dir, 'b.jsonl')
    writeFileSync(other, `${JSON.stringify({marker: M2, tenant_id: 't1', session_id: 's2'})}\n${JSON.stringify({marker: M1, tenant_id: 't3', session_id: 's3'})}\n`)
    const r = await run(['ingest', 'canaries', other, '--db', db, '--json'])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).error).toMatchObject({code: 'E_CANARY_CONFLICT', message: expect.stringMatching(/line 2\) is already registered to session s1 of tenant t1/)})
    expect((await runJson<{canaries: number}>(['status', '--db', db])).canaries).toBe(1)
  })

  it('an invalid row names the file, line and field', async () => {
    const {file, db} = setup('c.csv', `${HEADER}\n${M1},t1,s1,\n${M2},t1,,\n`)
    const r = await run(['ingest', 'canaries', file, '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/c\.csv:3: session_id: session_id is empty/)
    const bad = setup('h.csv', `marker,tenant\n${M1},t1\n`)
    expect((await run(['ingest', 'canaries', bad.file, '--db', bad.db])).stderr).toMatch(/h\.csv:1: header must be .* \(missing tenant_id\)/)
  })
})

describe('crosstalk ingest canaries keeps ids exactly as written (issue 16)', () => {
  /** One log line whose response carries the marker, from the given tenant and session. */
  const logLine = (tenant: string, session: string, marker: string): string =>
    JSON.stringify({
      ts: '2026-11-02T06:48:30.289Z', request_id: 'r1', tenant_id: tenant, session_id: session, status: 200,
      request: {messages: [{role: 'user', content: 'hello'}]},
      response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: `note ${marker} here`}}]},
    })

  async function classOf(registry: string, name: string, tenant: string, session: string, marker: string): Promise<string[]> {
    const {dir, file, db} = setup(name, registry)
    expect((await run(['ingest', 'canaries', file, '--db', db])).code).toBe(0)
    const log = join(dir, 'l.jsonl')
    writeFileSync(log, `${logLine(tenant, session, marker)}\n`)
    await runJson(['ingest', 'logs', log, '--db', db])
    await runJson(['scan', '--db', db])
    return (await runJson<Array<{class: string}>>(['sightings', '--db', db])).map((s) => s.class)
  }

  it('leading and trailing white space in tenant and session ids is part of the id', async () => {
    const classes = await classOf(`${HEADER}\n${M1}," t1 ","s1 ",\n`, 'w.csv', ' t1 ', 's1 ', M1)
    expect(classes).toEqual(['own'])
  })

  it('refuses an unquoted id or marker with white space at its edges (a space after a comma), naming the line, field and value', async () => {
    for (const [row, field, value] of [
      [`${M1}, t1, s1,`, 'tenant_id', ' t1'],
      [`${M1},t1,s1 ,`, 'session_id', 's1 '],
      [` ${M1},t1,s1,`, 'marker', ` ${M1}`],
    ] as const) {
      const {file, db} = setup('padded.csv', `${HEADER}\n${M1.slice(0, -1)}9,t0,s0,\n${row}\n`)
      const r = await run(['ingest', 'canaries', file, '--db', db])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(`padded.csv:3: ${field} ${JSON.stringify(value)} begins or ends with white space (a space after a comma?)`)
    }
    // A quote after the space does not open a quoted field: refused as a stray quote, naming the space.
    const quotedAfterSpace = setup('padded.csv', `${HEADER}\n${M1.slice(0, -1)}9,t0,s0,\n${M1}, "t1",s1,\n`)
    const q = await run(['ingest', 'canaries', quotedAfterSpace.file, '--db', quotedAfterSpace.db])
    expect(q.code).toBe(1)
    expect(q.stderr).toContain('padded.csv:3: a double quote inside an unquoted field (or after a closing quote) (white space before it: a space after a comma?)')
    // The header may be padded: its names are trimmed.
    const ok = setup('header.csv', `marker, tenant_id, session_id, issued_at\n${M1},t1,s1,\n`)
    expect(await runJson<Result>(['ingest', 'canaries', ok.file, '--db', ok.db])).toMatchObject({added: 1})
  })

  it('a CRLF inside a quoted field stays CRLF', async () => {
    const classes = await classOf(`${HEADER}\r\n${M1},t1,"s\r\n1",\r\n`, 'crlf.csv', 't1', 's\r\n1', M1)
    expect(classes).toEqual(['own'])
  })

  it('refuses markers outside the convention shorter than 8 characters, naming the line', async () => {
    for (const marker of ['a', 'the', 'ABC1234']) {
      const {file, db} = setup('short.csv', `${HEADER}\n${M1},t1,s1,\n${marker},t1,s2,\n`)
      const r = await run(['ingest', 'canaries', file, '--db', db])
      expect(r.code).toBe(1)
      expect(r.stderr).toContain(`short.csv:3: marker "${marker}" is too short: a marker outside the CANARY-<hex> convention needs at least 8 characters`)
    }
    const ok = setup('eight.csv', `${HEADER}\nABCD1234,t1,s1,\n`)
    expect(await runJson<Result>(['ingest', 'canaries', ok.file, '--db', ok.db])).toMatchObject({added: 1})
  })

  it('refuses CANARY- markers of fewer than 8 hex digits, naming the line, in CSV and JSON Lines (QA registry #3)', async () => {
    // Shorter than a marker-shaped token, such a marker was matched as text inside every longer
    // marker and token starting with it: a false cross_tenant leak each time.
    for (const marker of ['CANARY-b', 'CANARY-abc', 'CANARY-0123456', 'CANARY-ABCDEF']) {
      const {file, db} = setup('short.csv', `${HEADER}\n${M1},t1,s1,\n${marker},t1,s2,\n`)
      const r = await run(['ingest', 'canaries', file, '--db', db])
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toContain(`short.csv:3: marker "${marker}" is too short: a CANARY- marker needs at least 8 hex digits`)
      const j = setup('short.jsonl', `${JSON.stringify({marker: M1, tenant_id: 't1', session_id: 's1'})}\n${JSON.stringify({marker, tenant_id: 't1', session_id: 's2'})}\n`)
      const rj = await run(['ingest', 'canaries', j.file, '--db', j.db])
      expect(rj.code, rj.stderr).toBe(1)
      expect(rj.stderr).toContain(`short.jsonl:2: marker "${marker}" is too short`)
    }
    const ok = setup('eight.csv', `${HEADER}\nCANARY-0123abcd,t1,s1,\n`)
    expect(await runJson<Result>(['ingest', 'canaries', ok.file, '--db', ok.db])).toMatchObject({added: 1})
  })

  it('refuses a marker holding an invisible character, naming the line and the code point, in ingest canaries and in triage (QA spoof #3)', async () => {
    // Answers are searched with invisible characters folded out of markers: registered with one
    // (a zero width space a copy left), the marker never matched, and its leak read as an orphan.
    const logs = join(tempDir(), 'logs.jsonl')
    writeFileSync(logs, `${JSON.stringify(nativeLine({request_id: 'r1', tenant_id: 't2', session_id: 's2', request_text: 'hi', response_text: `code ${M1}`}, Date.parse('2026-11-01T00:00:00Z')))}\n`)
    for (const [marker, u] of [[`CANARY-0123\u200b456789abcdef0123`, 'U+200B'], [`CANARY-0123456789\u{e0020}abcdef0123`, 'U+E0020'], ['SECRET\u200eMARKER-1', 'U+200E']] as const) {
      const {file, db} = setup('inv.csv', `${HEADER}\nCANARY-ffff0000ffff0000,t1,s1,\n${marker},t1,s2,\n`)
      const r = await run(['ingest', 'canaries', file, '--db', db])
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toContain(`inv.csv:3: marker`)
      expect(r.stderr).toContain(`holds ${u}, an invisible character`)
      // triage reads a registry of ordinary size natively first: the same refusal, nothing stored.
      const t = await run(['triage', logs, '--canaries', file, '--db', join(tempDir(), 'case.db')])
      expect(t.code, t.stderr).toBe(1)
      expect(t.stderr).toContain(`holds ${u}, an invisible character`)
    }
  })

  it('refuses ids that are only white space', async () => {
    for (const [row, field] of [[`${M1},"   ",s1,`, 'tenant_id'], [`${M1},t1,"\t",`, 'session_id'], [`"  ",t1,s1,`, 'marker']] as const) {
      const {file, db} = setup('blank.csv', `${HEADER}\n${row}\n`)
      const r = await run(['ingest', 'canaries', file, '--db', db])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`blank\\.csv:2: ${field}: ${field} is empty or only white space`))
    }
  })
})
