import Database from 'better-sqlite3'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {unreadRequestNote} from '../../src/extract/parse-record.js'
import {PRIOR_EXTRACT_SCHEMES} from '../../src/extract/extract.js'

// A request holding a member no reader knows: the prompt was read in part, so a marker absent from
// what was read is not ruled an echo (the user may have sent it there) nor ruled out as one: it is
// counted, the gate fails closed, and every output that counts it says the echo check read only part
// of the prompt, naming the member and the line (as for a contaminated response whose logs hold no
// prompt: echo-without-prompt.test.ts). The shapes that are read: echo-request-shapes.test.ts.

const marker = 'CANARY-00112233445566778899'
const answer = (text: string) => ({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: text}}]})

const line = (requestId: string, session: string, request: unknown, response: unknown): string =>
  JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id: requestId, tenant_id: 'tenant-a', session_id: session, status: 200, request, response})

function caseDir(): {canaries: string; logs: string; db: string} {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${marker},tenant-b,sess-b,2026-10-01T00:00:00Z\n`)
  return {canaries, logs: join(dir, 'logs.jsonl'), db: join(dir, 'case.db')}
}

describe('a contaminated response whose prompt was read in part', () => {
  it('counts a marker absent from a prompt read in part as contamination, says the echo is not ruled out, and fails the gate', async () => {
    const {canaries, logs, db} = caseDir()
    const partial = {model: 'm', messages: [{role: 'user', content: 'hello'}], x_future_context: {note: `pasted ${marker}`}}
    const whole = {model: 'm', messages: [{role: 'user', content: 'hello'}]}
    writeFileSync(logs, [line('r-partial', 'sess-1', partial, answer(`see ${marker}`)), line('r-whole', 'sess-2', whole, answer(`also ${marker}`))].join('\n') + '\n')
    const triage = await run(['triage', logs, '--canaries', canaries, '--db', db, '--fail-on-leak'])
    // Fails closed: the marker may be the user's own, but nothing says so.
    expect(triage.code, triage.stderr).toBe(3)
    const sightings = await runJson<Array<{request_id: string; class: string}>>(['sightings', '--db', db, '--json'])
    expect(Object.fromEntries(sightings.map((s) => [s.request_id, s.class]))).toEqual({'r-partial': 'cross_tenant', 'r-whole': 'cross_tenant'})
    const scope = await runJson<{contaminated_responses: number; contaminated_prompt_in_part: number; prompt_in_part: unknown}>(['scope', '--db', db])
    expect(scope).toMatchObject({contaminated_responses: 2, contaminated_prompt_in_part: 1, prompt_in_part: {members: ['request body member "x_future_context"'], first: {line: 1}}})
    const console = (await run(['scope', '--db', db])).stdout
    expect(console).toMatch(/^ {2}prompt read in part \(echo not ruled out\) +1$/m)
    expect(console).toMatch(/request body member "x_future_context"\), the first on line 1 of\s+log file #\d+/)
    // The file's notes count the record, naming the member (ingest's note, which scope finds it by).
    const sql = new Database(db, {readonly: true})
    const notes = JSON.parse(sql.prepare("SELECT notes FROM files WHERE kind = 'log'").pluck().get() as string) as string[]
    sql.close()
    expect(notes).toContain(`1 record: ${unreadRequestNote(['request body member "x_future_context"'])}`)
    await run(['incident', 'open', '--db', db, '--title', 'T', '--role', 'controller', '--aware-at', '2026-11-02T08:00:00Z'])
    // Markdown: the member's underscores escaped.
    const a33 = (await run(['report', 'article33', '--db', db])).stdout
    expect(a33).toContain('For 1 response carrying another session\'s canary marker the request body holds what this release does not read (request body member "x\\_future\\_context"), so the prompt was read only in part')
    const register = await runJson<{facts: string}>(['report', 'register', '--db', db, '--format', 'json'])
    expect(register.facts).toMatch(/the prompt was read only in part/)
  })

  it('is found again in a case extracted under an earlier scheme, whose next scan reads its records again', async () => {
    const {canaries, logs, db} = caseDir()
    const partial = {model: 'm', messages: [{role: 'user', content: 'hello'}], x_future_context: 'more'}
    writeFileSync(logs, line('r-partial', 'sess-1', partial, answer(`see ${marker}`)) + '\n')
    await run(['triage', logs, '--canaries', canaries, '--db', db])
    // What an earlier scheme left: no note on the file, so scope would not look for such records.
    const sql = new Database(db)
    sql.prepare(`UPDATE files SET extract_scheme = ?, notes = NULL WHERE kind = 'log'`).run(PRIOR_EXTRACT_SCHEMES.at(-1))
    sql.close()
    const scan = await run(['scan', '--db', db])
    expect(scan.code, scan.stderr).toBe(0)
    expect(await runJson<{contaminated_prompt_in_part: number}>(['scope', '--db', db])).toMatchObject({contaminated_prompt_in_part: 1})
  })
})
