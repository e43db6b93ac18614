import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// "None" is a finding only over what detection examined. QA (contract #1, #2): where the only leak
// was a retry (a repeated request_id whose answer carried another tenant's marker), the Article 33
// draft said "First affected response: none", "Categories of data subjects: none", sessions and
// customers 0 and "at least 0", the register "at least 0", each processor notice "your markers seen
// elsewhere: none" and "your sessions that received them: none", and assess scored confidentiality 0.
// Where data was never examined (an answer with no text, a quarantined line, a differing retry not
// read again) the draft said the same "none"s, and the case page counted the records without text
// among those examined.

const A = 'CANARY-aaaaaaaaaaaaaaaaaaaa'
const B = 'CANARY-bbbbbbbbbbbbbbbbbbbb'
const REGISTRY = `marker,tenant_id,session_id,issued_at\n${A},tA,sA,2026-11-01T00:00:00Z\n${B},tB,sB,2026-11-01T00:00:00Z\n`

function rec(i: number, tenant: string, session: string, prompt: string, answer: string | null): string {
  return JSON.stringify({
    ts: `2026-11-01T10:00:0${i}Z`, request_id: `r${i}`, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10,
    request: {messages: [{role: 'user', content: prompt}]},
    response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

/** Writes the logs and the registry, triages them (the gate's exit code returned), and opens the incident. */
async function caseOf(files: Record<string, string[]>, role: 'controller' | 'processor' = 'controller'): Promise<{db: string; gate: number}> {
  const dir = tempDir()
  const registry = join(dir, 'reg.csv')
  writeFileSync(registry, REGISTRY)
  const paths = Object.entries(files).map(([name, lines]) => {
    const path = join(dir, name)
    writeFileSync(path, lines.join('\n') + '\n')
    return path
  })
  const db = join(dir, 'case.db')
  const gate = (await run(['triage', ...paths, '--canaries', registry, '--db', db, '--fail-on-leak'])).code
  const open = await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-01T12:00:00Z', '--role', role])
  expect(open.code, open.stderr).toBe(0)
  return {db, gate}
}

const lineOf = (md: string, label: string): string => md.split('\n').find((l) => l.includes(label)) ?? `(no line "${label}")`

describe('a leak in a retry only: no draft, notice or assessment says none or 0 unqualified', () => {
  it('the Article 33 draft, the register, both processor notices and assess', async () => {
    // r3 is logged twice: its record is clean, its retry (d2.jsonl:1) served sA's marker to tB.
    const {db, gate} = await caseOf({
      'd1.jsonl': [rec(1, 'tA', 'sA', `hi ${A}`, 'hello'), rec(3, 'tB', 'sB', `hi ${B}`, 'all fine')],
      'd2.jsonl': [rec(3, 'tB', 'sB', `hi ${B}`, `leaked ${A}`)],
    })
    expect(gate).toBe(3)
    const md = (await run(['report', 'article33', '--db', db])).stdout
    for (const label of ['| First affected response in the logs |', '| Last affected response in the logs |']) {
      expect(lineOf(md, label)).not.toMatch(/\| none \|/)
      expect(lineOf(md, label)).toMatch(/not counted: 1 retry/)
    }
    for (const label of ['| Sessions whose data reached someone else |', '| Customers whose data reached someone else |', "| Customers that received someone else's data |"]) {
      expect(lineOf(md, label)).toMatch(/\| 0 \(not counting 1 retry/)
    }
    expect(lineOf(md, '- Categories of data subjects:')).not.toMatch(/: none$/)
    expect(lineOf(md, '- Categories of data subjects:')).toMatch(/to be completed: .*d2\.jsonl:1/)
    expect(lineOf(md, '- Approximate number of data subjects:')).toMatch(/at least 0 .*not counting 1 retry/)
    expect(lineOf(md, '- Approximate number of personal data records:')).toMatch(/at least 0 .*not counting 1 retry/)

    const register = (await run(['report', 'register', '--db', db])).stdout
    expect(lineOf(register, '| Data subjects |')).toMatch(/at least 0 .*not counting 1 retry/)
    expect(lineOf(register, '| Records |')).toMatch(/at least 0 .*not counting 1 retry/)

    const assess = JSON.parse((await run(['assess', '--db', db, '--json'])).stdout) as {inputs: Array<{name: string; value: unknown; why: string}>; suggested: string}
    const confidentiality = assess.inputs.find((i) => i.name === 'cb_confidentiality')!
    expect(confidentiality.value).toBe(0.25)
    expect(confidentiality.why).toMatch(/1 retry .* carried another session's canary marker and was served/)

    // The same case as the provider: tA's notice (its marker reached tB) and tB's (its session received it).
    expect((await run(['incident', 'set', '--db', db, '--role', 'processor', '--reason', 'we are the provider'])).code).toBe(0)
    const toA = (await run(['report', 'processor-notice', '--db', db, '--tenant', 'tA'])).stdout
    for (const label of ['- Your canary markers seen elsewhere (truncated):', "- Your sessions whose data appeared in another session's response:", '- Time window (UTC):']) {
      expect(lineOf(toA, label)).not.toMatch(/: none$/)
      expect(lineOf(toA, label)).toMatch(/not counted: 1 retry/)
    }
    expect(lineOf(toA, '- Responses that carried your data:')).toMatch(/\*\*0 \(not counting 1 retry/)
    const toB = (await run(['report', 'processor-notice', '--db', db, '--tenant', 'tB'])).stdout
    expect(lineOf(toB, '- Your sessions that received them:')).toMatch(/not counted: 1 retry/)
    expect(lineOf(toB, "- Responses your users received that carried another session's data:")).toMatch(/\*\*0 \(not counting 1 retry/)
  }, 120_000)
})

describe('data never examined: the Article 33 draft says not known, never none', () => {
  const unexamined = async (db: string): Promise<string> => {
    const md = (await run(['report', 'article33', '--db', db])).stdout
    for (const label of ['| First affected response in the logs |', '| Last affected response in the logs |']) {
      expect(lineOf(md, label)).toMatch(/\| not known: not everything was examined \(see the open items\) \|/)
    }
    const categories = lineOf(md, '- Categories of data subjects:')
    expect(categories).toMatch(/: to be completed: /)
    // The draft agrees with its own authority-form row for the same field.
    const form = lineOf(md, '| Categories of data subjects |').split(' | ')[2]!
    expect(categories).toContain(form.replace(/ \|$/, ''))
    expect(lineOf(md, '- Approximate number of data subjects:')).toMatch(/in what was examined \(not everything was/)
    return md
  }

  it('an answer with no text: the draft, and the case page counts only the records with text', async () => {
    const {db, gate} = await caseOf({'notext.jsonl': [rec(1, 'tA', 'sA', `hi ${A}`, 'hello'), rec(2, 'tB', 'sB', `hi ${B}`, 'fine'), rec(3, 'tB', 'sB', `hi ${B}`, null)]})
    expect(gate).toBe(1)
    await unexamined(db)
    const page = join(db, '..', 'page.html')
    expect((await run(['report', 'case', '--db', db, '--format', 'html', '--out', page])).code).toBe(0)
    expect(readFileSync(page, 'utf8')).toContain('No response among the 2 records with text carried')
  }, 60_000)

  it('a quarantined line (here holding tA\'s marker in an answer to tB)', async () => {
    const cut = `{"ts":"2026-11-01T10:00:09Z","request_id":"r9","tenant_id":"tB","session_id":"sB","response":"leaked ${A}`
    const {db, gate} = await caseOf({'cut.jsonl': [rec(1, 'tA', 'sA', `hi ${A}`, 'hello'), rec(2, 'tB', 'sB', `hi ${B}`, 'fine'), cut]})
    expect(gate).toBe(1)
    const md = await unexamined(db)
    expect(md).toMatch(/found no response carrying another session's data\. 1 quarantined log line could not be read and was never judged/)
  }, 60_000)

  it('a retry whose differing answer could not be read again', async () => {
    const {db, gate} = await caseOf({'dup1.jsonl': [rec(1, 'tA', 'sA', `hi ${A}`, 'hello'), rec(3, 'tB', 'sB', `hi ${B}`, 'fine')], 'dup2.jsonl': [rec(3, 'tB', 'sB', `hi ${B}`, null)]})
    expect(gate).toBe(1)
    const md = await unexamined(db)
    expect(md).toMatch(/found no response carrying another session's data\. 1 further response logged under the request id of a response already counted \(a retry\) differs from it and could not be read again/)
  }, 60_000)

  it('a source dismissed unread: none is said of what was searched only', async () => {
    const dir = tempDir()
    const [registry, logs, junk, db] = ['reg.csv', 'logs.jsonl', 'junk.jsonl', 'case.db'].map((n) => join(dir, n)) as [string, string, string, string]
    writeFileSync(registry, REGISTRY)
    writeFileSync(logs, [rec(1, 'tA', 'sA', `hi ${A}`, 'hello'), rec(2, 'tB', 'sB', `hi ${B}`, 'fine')].join('\n') + '\n')
    writeFileSync(junk, 'not json\n[1,2]\n')
    await run(['ingest', 'canaries', registry, '--db', db])
    await run(['ingest', 'logs', logs, junk, '--db', db])
    expect((await run(['ingest', 'dismiss', junk, '--reason', 'not a log', '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db, '--fail-on-leak'])).code).toBe(0)
    expect((await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-01T12:00:00Z', '--role', 'controller'])).code).toBe(0)
    const md = (await run(['report', 'article33', '--db', db])).stdout
    expect(lineOf(md, '| First affected response in the logs |')).toMatch(/\| none found in what was searched \(1 log source dismissed unread was not searched\) \|/)
    expect(lineOf(md, '- Categories of data subjects:')).toMatch(/: none found in what was searched: .*junk\.jsonl/)
  }, 60_000)

  it('where everything was examined, none is still said', async () => {
    const {db, gate} = await caseOf({'clean.jsonl': [rec(1, 'tA', 'sA', `hi ${A}`, 'hello'), rec(2, 'tB', 'sB', `hi ${B}`, 'fine')]})
    expect(gate).toBe(0)
    const md = (await run(['report', 'article33', '--db', db])).stdout
    expect(lineOf(md, '| First affected response in the logs |')).toMatch(/\| none \|/)
    expect(lineOf(md, '- Categories of data subjects:')).toMatch(/: none$/)
  }, 60_000)
})
