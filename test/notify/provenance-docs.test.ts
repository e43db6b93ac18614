import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA provenance #6, #7, #8, #9, #12: what the documents and status said over evidence that
// canary-less detection found by value, could not compare, or had nothing to compare with.
// #6: another customer's phone number in an answer (a personal-data finding attributed to t3)
//     while every draft said no response carried another session's data.
// #7: a whole Chinese prompt repeated in another answer: one "word", never compared, yet the
//     drafts said verbatim text was searched and none found.
// #8: logs without prompts: nothing to compare with, never said.
// #9: Article 34 said "at least 0 conversations" where the source of the text is ambiguous.
// #12: a case with no record: status gave provenance_attributed 0 beside personal_data null.

type Line = {ts: string; rid: string; tenant: string; session: string; prompt?: string; answer: string}

function jsonl(lines: Line[]): string {
  return lines
    .map((l) =>
      JSON.stringify({
        ts: l.ts, request_id: l.rid, tenant_id: l.tenant, session_id: l.session, status: 200,
        ...(l.prompt === undefined ? {} : {request: {messages: [{role: 'user', content: l.prompt}]}}),
        response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: l.answer}}]},
      }),
    )
    .join('\n') + '\n'
}

async function ok(args: string[]): Promise<string> {
  const r = await run(args)
  expect(r.code, r.stderr).toBe(0)
  return r.stdout
}

/** A scanned case with a canary registry (markers of the given sessions, none in the text) and an incident open. */
async function scannedCase(lines: Line[], role: 'controller' | 'processor' = 'controller'): Promise<{db: string; dir: string; scan: string}> {
  const dir = tempDir()
  const db = join(dir, 'case.db')
  writeFileSync(join(dir, 'log.jsonl'), jsonl(lines))
  const sessions = [...new Map(lines.map((l) => [`${l.tenant}/${l.session}`, l])).values()]
  writeFileSync(join(dir, 'reg.csv'), 'marker,tenant_id,session_id,issued_at\n' + sessions.map((l, i) => `CANARY-00112233445566778${i.toString(16)}aa,${l.tenant},${l.session},2026-11-30T00:00:00Z`).join('\n') + '\n')
  await ok(['ingest', 'logs', join(dir, 'log.jsonl'), '--db', db])
  await ok(['ingest', 'canaries', join(dir, 'reg.csv'), '--db', db])
  const scan = await ok(['scan', '--db', db])
  await ok(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-12-07T06:00:00Z', '--role', role])
  return {db, dir, scan}
}

const NO_DATA_FOUND = /found no response carrying another session's data(?! there)/
const A34_NOTHING = /found no answer that showed text from another person's conversation/
const FR_NOTHING = /n'a trouvé aucune réponse contenant des données d'une autre session/

describe('#6 personal data attributed to another session, with no marker or verbatim text', () => {
  it('is never under "none found": drafts, case page, assess and processor notice say it', async () => {
    const {db} = await scannedCase([
      {ts: '2026-11-30T10:00:01Z', rid: 'r1', tenant: 't3', session: 's3', prompt: 'Please ring me on +44 7700 900123 after five', answer: 'Noted.'},
      {ts: '2026-11-30T10:00:02Z', rid: 'r2', tenant: 't4', session: 's4', prompt: 'hi', answer: 'Please ring me on +44 7700 900123'},
    ])
    const scope = await runJson<{exposure: {responses: number}; pii_attributed_only_responses: number; pii_attributed_only_flows: Array<{source_tenant: string; recipient_tenant: string; responses: number}>}>(['scope', '--db', db, '--json'])
    expect(scope.exposure.responses).toBe(0)
    expect(scope.pii_attributed_only_responses).toBe(1)
    expect(scope.pii_attributed_only_flows).toEqual([{source_tenant: 't3', recipient_tenant: 't4', responses: 1}])
    // Each customer's own view counts it too, never a bare 0 (QA prov #8).
    type Side = {exposure: {responses: number}; pii_attributed_only_responses: number | null}
    const t4 = await runJson<{received: Side; leaked: Side}>(['scope', '--db', db, '--tenant', 't4', '--json'])
    expect(t4.received.exposure.responses).toBe(0)
    expect(t4.received.pii_attributed_only_responses).toBe(1)
    expect(t4.leaked.pii_attributed_only_responses).toBe(0)
    const t3 = await runJson<{received: Side; leaked: Side}>(['scope', '--db', db, '--tenant', 't3', '--json'])
    expect(t3.leaked.pii_attributed_only_responses).toBe(1)
    const t4Console = await ok(['scope', '--db', db, '--tenant', 't4'])
    expect(t4Console).toMatch(/further responses with another session's personal data \(matched by value only; not counted above\) +1/)
    expect(t4Console).toMatch(/1 response served to this tenant carried personal data another session sent first .*lower bound until it is\s+reviewed/s)
    const t4Csv = await run(['scope', '--db', db, '--tenant', 't4', '--csv'])
    expect(t4Csv.stderr).toMatch(/1 response served to this tenant carried personal data another session sent first/)

    const a33 = await ok(['report', 'article33', '--db', db, '--lang', 'en'])
    expect(a33).not.toMatch(NO_DATA_FOUND)
    expect(a33).not.toMatch(/\| none: /)
    expect(a33).toMatch(/1 response carried personal data .* another session had sent earlier .*lower bound/)
    expect(a33).toMatch(/to be completed: 1 response carried personal data first sent by another session/)
    // Nothing is established as leaked: the categories are not headed "leaked content" (QA prov #7).
    expect(a33).toMatch(/Categories of personal data matched by value in responses, not established as leaked/)
    expect(a33).not.toMatch(/in the leaked content/)
    const fr = await ok(['report', 'article33', '--db', db, '--lang', 'fr'])
    expect(fr).not.toMatch(FR_NOTHING)
    expect(fr).toMatch(/retrouvées par leur valeur dans des réponses, sans divulgation établie/)
    expect(fr).not.toMatch(/dans le contenu divulgué/)
    expect(fr).toMatch(/1 réponse contenait des données personnelles/)
    const a34 = await ok(['report', 'article34', '--db', db, '--lang', 'en'])
    expect(a34).not.toMatch(A34_NOTHING)
    expect(a34).toMatch(/to be completed: 1 response carried personal data first sent by another session/)
    const register = await ok(['report', 'register', '--db', db, '--lang', 'en'])
    expect(register).not.toMatch(/detection over every log found no response/i)

    const html = join(db, '..', 'page.html')
    await ok(['report', 'case', '--db', db, '--format', 'html', '--out', html])
    const page = readFileSync(html, 'utf8')
    expect(page).not.toMatch(/<strong>No leak found/)
    expect(page).toMatch(/Leak indicated by personal data/)

    // ei 1 (a phone number in leaked content) and cb_confidentiality 0 (none leaked) cannot both stand.
    const assess = await ok(['assess', '--db', db])
    expect(assess).toMatch(/^ei +1 /m)
    expect(assess).toMatch(/^cb_confidentiality +0\.25 /m)
    expect(assess).not.toMatch(/no response carrying another session's data found: 0/)

    await ok(['incident', 'set', '--db', db, '--role', 'processor', '--reason', 'test'])
    const notice = await run(['report', 'processor-notice', '--db', db, '--tenant', 't3'])
    expect(notice.code).toBe(1)
    expect(notice.stderr).not.toMatch(/has no exposure/)
    expect(notice.stderr).toMatch(/1 response of other sessions carried personal data its sessions sent first/)
  }, 120_000)
})

describe('#6 beside a leak found by verbatim text', () => {
  it('the personal data matched by value stays an open item in Article 33 and Article 34', async () => {
    const S = 'Confidential roadmap says project Nightjar launches in Lisbon with three hundred engineers and a budget of forty million euros next spring'
    const {db} = await scannedCase([
      {ts: '2026-11-30T10:00:01Z', rid: 'r1', tenant: 't1', session: 's1', prompt: S, answer: 'ok'},
      {ts: '2026-11-30T10:00:02Z', rid: 'r2', tenant: 't2', session: 's2', prompt: 'hi', answer: S},
      {ts: '2026-11-30T10:00:03Z', rid: 'r3', tenant: 't3', session: 's3', prompt: 'Please ring me on +44 7700 900123 after five', answer: 'Noted.'},
      {ts: '2026-11-30T10:00:04Z', rid: 'r4', tenant: 't4', session: 's4', prompt: 'hi', answer: 'Please ring me on +44 7700 900123'},
    ])
    const scope = await runJson<{exposure: {responses: number}; pii_attributed_only_responses: number}>(['scope', '--db', db, '--json'])
    expect(scope.exposure.responses).toBe(1)
    expect(scope.pii_attributed_only_responses).toBe(1)
    for (const report of ['article33', 'article34']) {
      expect(await ok(['report', report, '--db', db, '--lang', 'en'])).toMatch(/to be completed: 1 response carried personal data first sent by another session/)
    }
    // A leak is established: its categories keep their heading.
    expect(await ok(['report', 'article33', '--db', db, '--lang', 'en'])).toMatch(/Categories of personal data in the leaked content/)
  }, 120_000)
})

describe('#7 texts in a script written without spaces', () => {
  it('are counted at scan time and named as not compared in scan, status and every draft', async () => {
    const zh = '患者王小明的诊断结果是二期淋巴瘤，他的保险单号码是一二三四五六，住在北京市朝阳区建国路八十八号'
    const {db, scan} = await scannedCase([
      {ts: '2026-11-30T10:00:01Z', rid: 'r1', tenant: 't1', session: 's1', prompt: zh, answer: '好的'},
      {ts: '2026-11-30T10:00:02Z', rid: 'r2', tenant: 't2', session: 's2', prompt: '你好', answer: `好的：${zh}`},
    ])
    expect(scan).toMatch(/1 response in a script written without spaces .* could not be compared/)
    const status = await runJson<{detection: {provenance_not_comparable_responses: number | null}}>(['status', '--db', db, '--json'])
    expect(status.detection.provenance_not_comparable_responses).toBe(1)
    expect(await ok(['status', '--db', db])).toMatch(/1 response in a script written without spaces .* could not be compared/)

    const a33 = await ok(['report', 'article33', '--db', db, '--lang', 'en'])
    expect(a33).not.toMatch(/\| none: /)
    expect(a33).toMatch(/1 response holds text in a script written without spaces between words/)
    expect(a33).toMatch(/to be completed: 1 response in a script written without spaces/)
    const a34 = await ok(['report', 'article34', '--db', db, '--lang', 'en'])
    expect(a34).not.toMatch(A34_NOTHING)
    const a34fr = await ok(['report', 'article34', '--db', db, '--lang', 'fr'])
    expect(a34fr).toMatch(/écriture sans espaces/)
    const html = join(db, '..', 'page.html')
    await ok(['report', 'case', '--db', db, '--format', 'html', '--out', html])
    expect(readFileSync(html, 'utf8')).not.toMatch(/<strong>No leak found<\/strong>/)
  }, 120_000)
})

describe('#8 logs without prompts', () => {
  it('say that leaked prompts could not be looked for, as an open item, never an all-clear', async () => {
    const {db, scan} = await scannedCase([
      {ts: '2026-11-30T10:00:01Z', rid: 'r1', tenant: 't1', session: 's1', answer: 'Hello there, how can I help?'},
      {ts: '2026-11-30T10:00:02Z', rid: 'r2', tenant: 't2', session: 's2', answer: 'My patient Hannelore Brueckner at Lindenweg 14 was diagnosed with stage two lymphoma'},
    ])
    expect(scan).toMatch(/no prompt was logged, so no leaked prompt could be looked for/)
    const a33 = await ok(['report', 'article33', '--db', db, '--lang', 'en'])
    expect(a33).not.toMatch(/\| none: /)
    expect(a33).toMatch(/No prompt was logged \(none of the 2 records has request text\)/)
    expect(a33).toMatch(/to be completed: no prompt was logged/)
    const a34 = await ok(['report', 'article34', '--db', db, '--lang', 'en'])
    expect(a34).not.toMatch(A34_NOTHING)
    expect(a34).toMatch(/to be completed: no prompt was logged/)
    expect(await ok(['status', '--db', db])).toMatch(/no prompt was logged, so no leaked prompt could be looked for/)
  }, 120_000)
})

describe('#9 Article 34 where the source of the text is ambiguous', () => {
  it('states the data subjects\' low bound as Article 33 does, never "at least 0"', async () => {
    const S = 'Confidential roadmap says project Nightjar launches in Lisbon with three hundred engineers and a budget of forty million euros next spring'
    const {db} = await scannedCase([
      {ts: '2026-11-30T10:00:01Z', rid: 'r1', tenant: 't1', session: 's1', prompt: S, answer: 'ok'},
      {ts: '2026-11-30T10:00:02Z', rid: 'r2', tenant: 't2', session: 's2', prompt: S, answer: 'ok'},
      {ts: '2026-11-30T10:00:03Z', rid: 'r3', tenant: 't3', session: 's3', prompt: 'hi', answer: S},
    ])
    const scope = await runJson<{exposure: {sessions: number}; data_subjects: {low: number}}>(['scope', '--db', db, '--json'])
    expect(scope.exposure.sessions).toBe(0)
    expect(scope.data_subjects.low).toBe(1)
    const en = await ok(['report', 'article34', '--db', db, '--lang', 'en'])
    expect(en).not.toMatch(/at least 0 conversations/)
    expect(en).toMatch(/at least 1 conversation was affected/)
    const fr = await ok(['report', 'article34', '--db', db, '--lang', 'fr'])
    expect(fr).not.toMatch(/au moins 0 conversation/)
    expect(fr).toMatch(/au moins 1 conversation est concernée/)
  }, 120_000)
})

describe('#12 a case with no record', () => {
  it('gives provenance and personal data as not known, in scan, status and status --json', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'log.jsonl'), [
      JSON.stringify({ts: '2026-11-30T10:00:01Z', request_id: 'r1', tenant_id: 't1', session_id: 's1', status: 200, request: {messages: [{role: 'user', content: 'hi'}]}, response: {object: 'chat.completion', choices: []}}),
      JSON.stringify({ts: '2026-11-30T10:00:02Z', request_id: 'r2', tenant_id: 't2', session_id: 's2', status: 200, request: {messages: [{role: 'user', content: 'hi'}]}, response: {weird: 'x'}}),
    ].join('\n') + '\n')
    await run(['ingest', 'logs', join(dir, 'log.jsonl'), '--db', db])
    const scan = await run(['scan', '--db', db])
    expect(scan.stdout).toMatch(/^Provenance: not known: no record was examined\.$/m)
    expect(scan.stdout).toMatch(/^PII never sent by the recipient: not known: no record was examined\.$/m)
    const json = await runJson<{records: number; provenance_attributed: number | null; personal_data: unknown}>(['status', '--db', db, '--json'])
    expect(json.records).toBe(0)
    expect(json.provenance_attributed).toBeNull()
    expect(json.personal_data).toBeNull()
    const status = await run(['status', '--db', db])
    expect(status.stdout).not.toMatch(/provenance +0 /)
    expect(status.stdout).not.toMatch(/never scanned/)
    expect(status.stdout).toMatch(/personal data +unknown: the case holds no log record/)
  }, 120_000)
})
