import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// `show` on one record says what detection found about it, as recipient and as source, and
// says "not known" (null in --json) wherever detection has not covered what the answer
// depends on: never "none" for a case that was not scanned.

interface Findings {
  detection: 'complete' | 'incomplete'
  gap: string | null
  sightings: Array<{class: string; marker: string; partial: boolean; source_session: string | null; source_tenant: string | null}> | null
  provenance: {source_request_id: string; source_session: string; source_tenant: string; matched: string; overlap_words: number} | null
  provenance_known: boolean
  copied_by: {responses: number; first: Array<{request_id: string}>} | null
  personal_data: Array<{kind: string; value_ref: string; source_request_id: string | null; source_tenant: string | null}> | null
  session_marker_sightings: number | null
  at_risk: boolean | null
  at_risk_basis: string
}

const MARKER = 'CANARY-7f3a9c2e5b1d4a6f8e0c2b4d6a8f1e3c'
const SHARED = 'the quarterly audit of the Lisbon warehouse found seventeen damaged pallets and a missing invoice for the March delivery'

function setup(): {dir: string; db: string} {
  const dir = tempDir()
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${MARKER},tenant-a,sess-a,2026-11-02T06:00:00Z\n`)
  const lines = [
    // The source: tenant A's prompt carries its canary, a long sentence and an e-mail address.
    chatLine({ts: '2026-11-02T07:00:00Z', request_id: 'src', tenant_id: 'tenant-a', session_id: 'sess-a', prompt: `${MARKER} ${SHARED}. Write to lena.schmidt@example.org about it.`, prompt_tokens: 900}),
    // The leak: tenant B's answer repeats A's marker, sentence and address; its prompt was over the pool.
    chatLine({ts: '2026-11-02T07:05:00Z', request_id: 'leak', tenant_id: 'tenant-b', session_id: 'sess-b', prompt: 'summarise my notes', answer: `Sure: ${MARKER} ${SHARED}. Contact lena.schmidt@example.org.`, prompt_tokens: 5000}),
    chatLine({ts: '2026-11-02T07:06:00Z', request_id: 'quiet', tenant_id: 'tenant-c', session_id: 'sess-c', prompt: 'what is the capital of Peru', answer: 'Lima.', prompt_tokens: 12, status: 500}),
  ]
  writeFileSync(join(dir, 'logs.jsonl'), lines.join('\n') + '\n')
  return {dir, db: join(dir, 'case.db')}
}

const findings = async (db: string, id: string): Promise<Findings> => (await runJson<{findings: Findings}>(['show', id, '--db', db])).findings

describe('crosstalk show: the record\'s findings', () => {
  it('never scanned: every finding is not known, in --json (null) and on the console', async () => {
    const {dir, db} = setup()
    await runJson(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])
    await runJson(['ingest', 'logs', join(dir, 'logs.jsonl'), '--db', db])
    const f = await findings(db, 'leak')
    expect(f).toMatchObject({detection: 'incomplete', sightings: null, provenance: null, provenance_known: false, copied_by: null, personal_data: null, session_marker_sightings: null, at_risk: null})
    expect(f.gap).toMatch(/never scanned/)
    expect(f.at_risk_basis).toMatch(/no KV pool size is recorded/)
    const text = (await run(['show', 'leak', '--db', db])).stdout
    expect(text).toMatch(/detection\s+incomplete: the case was never scanned/)
    expect(text).toMatch(/sightings\s+not known until `crosstalk scan` covers the case/)
    expect(text).not.toMatch(/no marker in this response|repeats no|no later response|no value/)
    // What the registry says needs no scan: tenant-b registered no marker.
    expect(text).toMatch(/its markers +no marker is registered for this session/)
  })

  it('scanned: what the response received and from whom, what the source gave away, and the at-risk test', async () => {
    const {dir, db} = setup()
    await runJson(['triage', join(dir, 'logs.jsonl'), '--canaries', join(dir, 'canaries.csv'), '--pool-tokens', '4096', '--db', db])
    const leak = await findings(db, 'leak')
    expect(leak.detection).toBe('complete')
    expect(leak.sightings).toEqual([{class: 'cross_tenant', marker: 'CANARY-7f3a…', partial: false, source_session: 'sess-a', source_tenant: 'tenant-a'}])
    expect(leak.provenance).toMatchObject({source_request_id: 'src', source_tenant: 'tenant-a', matched: 'prompt'})
    expect(leak.provenance!.overlap_words).toBeGreaterThanOrEqual(12)
    expect(leak.personal_data).toEqual([expect.objectContaining({kind: 'email', source_request_id: 'src', source_tenant: 'tenant-a'})])
    expect(leak.personal_data![0]!.value_ref).toMatch(/^[0-9a-f]{16}$/)
    expect(leak).toMatchObject({at_risk: true, copied_by: {responses: 0, first: []}, session_marker_sightings: 0})
    // The full marker only when asked for.
    const full = (await runJson<{findings: Findings}>(['show', 'leak', '--db', db, '--show-markers'])).findings
    expect(full.sightings![0]!.marker).toBe(MARKER)

    const src = await findings(db, 'src')
    expect(src).toMatchObject({sightings: [], provenance: null, provenance_known: true, personal_data: [], session_marker_sightings: 1, at_risk: false})
    expect(src.copied_by).toEqual({responses: 1, first: [{request_id: 'leak', tenant_id: 'tenant-b', session_id: 'sess-b'}]})
    expect(src.at_risk_basis).toMatch(/900 tokens, under the 4096-token pool/)
    expect(src).toMatchObject({session_markers_registered: 1})
    // tenant-b registered no marker: nothing of its could be seen anywhere, and the view says so.
    expect(leak).toMatchObject({session_markers_registered: 0})
    expect((await run(['show', 'leak', '--db', db])).stdout).toMatch(/its markers +no marker is registered for this session\n/)
    expect((await findings(db, 'quiet')).at_risk_basis).toBe('status 500, not 200')

    const text = (await run(['show', 'leak', '--db', db])).stdout
    expect(text).toMatch(/sightings\s+cross_tenant marker of tenant-a\/sess-a\n/)
    expect(text).not.toContain('CANARY-7f3a')
    expect((await run(['show', 'leak', '--db', db, '--show-markers'])).stdout).toMatch(new RegExp(`sightings\\s+cross_tenant ${MARKER} marker of tenant-a/sess-a\\n`))
    expect(text).toMatch(/provenance\s+repeats \d+ words of the prompt of src \(tenant-a\/sess-a, 2026-11-02T07:00:00.000Z\)/)
    expect(text).toMatch(/personal data email ref:[0-9a-f]{16} from tenant-a\/sess-a/)
    expect(text).toMatch(/at risk\s+yes: status 200 and a prompt of 5000 tokens, at or over the 4096-token pool/)
    expect(text).not.toContain('lena.schmidt')
    const source = (await run(['show', 'src', '--db', db])).stdout
    expect(source).toMatch(/copied by\s+1 later response: leak \(tenant-b\/sess-b\)/)
    expect(source).toMatch(/its markers\s+this session's markers were seen in 1 other session's response/)
  })

  it('a file ingested after the scan: the scanned record keeps its sightings, what depends on the whole case is not known', async () => {
    const {dir, db} = setup()
    await runJson(['triage', join(dir, 'logs.jsonl'), '--canaries', join(dir, 'canaries.csv'), '--pool-tokens', '4096', '--db', db])
    const late = join(dir, 'late.jsonl')
    writeFileSync(late, chatLine({ts: '2026-11-02T06:30:00Z', request_id: 'late', tenant_id: 'tenant-d', session_id: 'sess-d', prompt: SHARED}) + '\n')
    await runJson(['ingest', 'logs', late, '--db', db])
    const leak = await findings(db, 'leak')
    expect(leak.detection).toBe('incomplete')
    expect(leak.gap).toMatch(/ingested since the last scan/)
    expect(leak.sightings).toHaveLength(1)
    expect(leak).toMatchObject({provenance: null, provenance_known: false, copied_by: null, personal_data: null, session_marker_sightings: null, at_risk: true})
    expect((await findings(db, 'late')).sightings).toBeNull()
  })
})

describe('crosstalk status: provenance, personal data and the pool, or why they are unknown', () => {
  interface StatusJson {provenance_attributed: number | null; personal_data: {findings: number; attributed: number} | null; pool_tokens: number | null}

  it('never scanned: unknown, never 0', async () => {
    const {dir, db} = setup()
    await runJson(['ingest', 'logs', join(dir, 'logs.jsonl'), '--db', db])
    expect(await runJson<StatusJson>(['status', '--db', db])).toMatchObject({provenance_attributed: null, personal_data: null, pool_tokens: null})
    const text = (await run(['status', '--db', db])).stdout
    expect(text).toMatch(/provenance +unknown: canary-less provenance has not run/)
    expect(text).toMatch(/personal data +unknown: the case was never scanned/)
    expect(text).toMatch(/KV pool +not recorded: at-risk counts are unknown/)
    expect(text).toMatch(/canaries +0 {2}\(no canary registry: no marker can be attributed to a session, so every marker found is an orphan; crosstalk ingest canaries FILE\)/)
  })

  it('scanned: the counts, and provenance unknown again once skipped', async () => {
    const {dir, db} = setup()
    await runJson(['triage', join(dir, 'logs.jsonl'), '--canaries', join(dir, 'canaries.csv'), '--pool-tokens', '4096', '--db', db])
    expect(await runJson<StatusJson>(['status', '--db', db])).toMatchObject({provenance_attributed: 1, personal_data: {findings: 1, attributed: 1}, pool_tokens: 4096})
    const text = (await run(['status', '--db', db])).stdout
    expect(text).toMatch(/provenance +1 response repeats an earlier other session's text/)
    expect(text).toMatch(/personal data +1 finding: values in responses that their session never sent \(1 sent first by another session\)/)
    expect(text).toMatch(/KV pool +4096 tokens/)
    const late = join(dir, 'late.jsonl')
    writeFileSync(late, chatLine({ts: '2026-11-02T08:00:00Z', request_id: 'late', tenant_id: 'tenant-d', session_id: 'sess-d'}) + '\n')
    await runJson(['ingest', 'logs', late, '--db', db])
    await runJson(['scan', '--db', db, '--no-provenance'])
    expect((await runJson<StatusJson>(['status', '--db', db])).provenance_attributed).toBeNull()
    const after = (await run(['status', '--db', db])).stdout
    expect(after).toMatch(/provenance +unknown: canary-less provenance does not cover the case as it is/)
    // Counted by the last scan, over a detection that is incomplete: said with the number.
    expect(after).toMatch(/personal data +1 finding: .*; as of the last scan, detection incomplete {2}\(crosstalk scan\)/)
  })
})

describe('crosstalk scope --tenant: both kinds of evidence first, and marker-only times said as such', () => {
  it('counts verbatim-only leaks in the tenant\'s figures, and labels first/last seen by markers', async () => {
    const {dir, db} = setup()
    // A third customer's answer repeats tenant A's sentence without the marker (verbatim text only).
    const more = join(dir, 'more.jsonl')
    writeFileSync(more, chatLine({ts: '2026-11-02T07:10:00Z', request_id: 'copy', tenant_id: 'tenant-c', session_id: 'sess-c2', prompt: 'tell me a story', answer: `Here: ${SHARED}.`}) + '\n')
    await runJson(['triage', join(dir, 'logs.jsonl'), more, '--canaries', join(dir, 'canaries.csv'), '--db', db])
    const view = await runJson<{leaked: {responses: number; exposure: {responses: number; by_canary: number; by_text_only: number; other_tenants: number}}}>(['scope', '--db', db, '--tenant', 'tenant-a'])
    expect(view.leaked.responses).toBe(1)
    expect(view.leaked.exposure).toMatchObject({responses: 2, by_canary: 1, by_text_only: 1, other_tenants: 2})
    const text = (await run(['scope', '--db', db, '--tenant', 'tenant-a'])).stdout
    const reached = text.slice(text.indexOf('Reached others'))
    expect(reached).toMatch(/responses \(marker or verbatim text\) +2\n/)
    expect(reached).toMatch(/ {2}verbatim text only +1\n/)
    expect(reached).toMatch(/\nother tenants +2\n/)
    expect(reached).toMatch(/ {2}other tenants \(marker\) +1\n/)
    expect(reached).toMatch(/first seen \(marker\) +2026-11-02T07:05:00.000Z/)
    expect(reached).toMatch(/first \(marker\) +last \(marker\)/)
    // The counterpart reached by verbatim text only: one response, no marker time.
    expect(reached).toMatch(/tenant#2 +1 +0 +1 +1 +- +-/)
    // The whole case: the flows by either kind of evidence, the verbatim-only pair included.
    const whole = (await run(['scope', '--db', db])).stdout
    expect(whole).toMatch(/Flows \(marker or verbatim text\): 2 tenant pairs among 3 tenants/)
    expect(whole).toMatch(/tenant-a +tenant-b +1 +1\n/)
    expect(whole).toMatch(/tenant-a +tenant-c +1 +0\n/)
    const csv = (await run(['scope', '--db', db, '--csv', '--table', 'exposure'])).stdout
    expect(csv.trim().split(/\r?\n/)).toEqual(['source_tenant,recipient_tenant,responses,with_marker', 'tenant-a,tenant-b,1,1', 'tenant-a,tenant-c,1,0'])
  })
})

describe('crosstalk scan and triage on a case with no canary registry', () => {
  it('count every marker as an orphan and give the other classes and the contamination counts as not known (null), never 0', async () => {
    const {dir, db} = setup()
    await runJson(['ingest', 'logs', join(dir, 'logs.jsonl'), '--db', db])
    const scan = await runJson<Record<string, unknown>>(['scan', '--db', db])
    // One sighting: markers are looked for in responses, and only the leak's answer holds one.
    expect(scan).toMatchObject({canaries: 0, sightings: 1, sightings_by_class: {own: null, echo: null, cross_session: null, cross_tenant: null, orphan: 1}})
    expect(scan).toMatchObject({contaminated_responses: null, cross_session_responses: null, cross_tenant_responses: null})
    const text = (await run(['scan', '--db', db])).stdout
    expect(text).toContain('Sightings: 1, every one an orphan: a marker-shaped token registered to nobody, since the case holds no canary registry (own, echo, cross_session and cross_tenant not known).')
    expect(text).not.toMatch(/cross_tenant 0/)
    const fresh = setup()
    const triage = await runJson<{scan: Record<string, unknown>}>(['triage', join(fresh.dir, 'logs.jsonl'), '--db', fresh.db])
    expect(triage.scan).toMatchObject({sightings_by_class: {own: null, cross_tenant: null, orphan: 1}, contaminated_responses: null})
    // With the registry the same case counts the leak as cross-tenant.
    await runJson(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])
    expect(await runJson<Record<string, unknown>>(['scan', '--db', db])).toMatchObject({canaries: 1, sightings_by_class: {cross_tenant: 1, orphan: 0}, contaminated_responses: 1})
  })
})
