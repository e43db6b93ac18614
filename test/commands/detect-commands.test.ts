import fs from 'node:fs'
import path from 'node:path'
import {run, runJson} from '../helpers/commands.js'
import {describe, expect, it} from 'vitest'
import {makeCase} from '../helpers/case-builder.js'


const A = 'CANARY-3f9a1c2b4d5e6f70'
const B = 'CANARY-c0ffee00deadbeef'

async function incidentCase(): Promise<string> {
  const c = makeCase()
  await c.addCanary(A, 'tA', 'sA')
  await c.addCanary(B, 'tB', 'sB')
  await c.addFile([
    {request_id: 'r-own', tenant_id: 'tA', session_id: 'sA', request_text: 'hi', response_text: `ok ${A}`},
    {request_id: 'r-leak', tenant_id: 'tB', session_id: 'sB', request_text: 'hi', response_text: `oops ${A} \u001b[31mred`, prompt_tokens: 9000},
  ])
  c.close()
  return c.path
}

describe('crosstalk scan / sightings', () => {
  it('scan --json reports counts; --fail-on-leak exits 3', async () => {
    const db = await incidentCase()
    const gate = await run(['scan', '--db', db, '--fail-on-leak', '--json', '--pool-tokens', '8192'])
    expect(gate.code).toBe(3)
    // The gate prints the result (not an error object) and says why on stderr, in one line.
    expect(JSON.parse(gate.stdout)).toMatchObject({records_total: 2, records_new: 2, contaminated_responses: 1, cross_tenant_responses: 1})
    expect(gate.stderr.trim().split('\n')).toHaveLength(1)
    expect(gate.stderr).toMatch(/contamination found: 1 response \(1 cross-tenant, 0 cross-session\)/)
    const human = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(human.code).toBe(3)
    expect(human.stdout).toMatch(/contaminat/i)
    const again = await run(['scan', '--db', db, '--json'])
    expect(again.code).toBe(0)
    const result = JSON.parse(again.stdout)
    expect(result).toMatchObject({records_total: 2, records_scanned: 0, contaminated_responses: 1, at_risk: 1, sightings_by_class: {own: 1, cross_tenant: 1}})
  })

  it('sightings --json follows the contract (full markers: scripts join them with the registry); the table shortens them unless --show-markers', async () => {
    const db = await incidentCase()
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const json = await run(['sightings', '--db', db, '--json', '--class', 'cross_tenant,cross_session'])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual([
      {
        request_id: 'r-leak',
        ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        class: 'cross_tenant',
        marker: A,
        partial: false,
        recipient_session: 'sB',
        recipient_tenant: 'tB',
        source_session: 'sA',
        source_tenant: 'tA',
        // added: the log source of the response (a request id is unique within one source)
        log_source: expect.any(String),
        // added (sighting rules 5): the candidate owners of a token cut short of several sessions' markers; none here
        possible_sources: [],
      },
    ])
    const table = await run(['sightings', '--db', db])
    expect(table.code).toBe(0)
    expect(table.stdout).toContain('CANARY-3f9a…')
    expect(table.stdout).not.toContain(A)
    expect((await run(['sightings', '--db', db, '--show-markers'])).stdout).toContain(A)
    const csv = await run(['sightings', '--db', db, '--csv'])
    expect(csv.stdout.split('\r\n')[0]).toBe('request_id,ts,class,marker,partial,recipient_session,recipient_tenant,source_session,source_tenant,log_source')
    const bad = await run(['sightings', '--db', db, '--class', 'nope'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/nope/)
  })

  it('provenance and pii list as JSON arrays', async () => {
    const db = await incidentCase()
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const prov = await run(['provenance', '--db', db, '--json'])
    expect(prov.code).toBe(0)
    expect(JSON.parse(prov.stdout)).toEqual([])
    const pii = await run(['pii', '--db', db, '--json'])
    expect(pii.code).toBe(0)
    expect(JSON.parse(pii.stdout)).toEqual([])
  })

  it('pii and provenance --csv: references by default, values only when asked, formulas guarded', async () => {
    const c = makeCase()
    const secret = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'
    await c.addFile([
      {request_id: 'src', tenant_id: 'tA', session_id: 'sA', request_text: `${secret} call me on +49 30 1234567`, response_text: 'noted'},
      {request_id: 'leak', tenant_id: 'tB', session_id: 'sB', request_text: 'hi', response_text: `${secret} call me on +49 30 1234567`},
    ])
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const pii = await run(['pii', '--db', c.path, '--csv'])
    expect(pii.code).toBe(0)
    const [header, row] = pii.stdout.split('\r\n')
    expect(header).toBe('request_id,ts,kind,value_ref,recipient_session,recipient_tenant,source_request_id,source_session,source_tenant')
    expect(row).toMatch(/^leak,[^,]+,phone,[0-9a-f]{16},sB,tB,src,sA,tA$/)
    expect(pii.stdout).not.toContain('1234567')
    const shown = (await run(['pii', '--db', c.path, '--csv', '--show-values'])).stdout.split('\r\n')
    expect(shown[0]!.endsWith(',value,value_sha256')).toBe(true)
    // A phone number's value is its national significant number (no +, no trunk 0), as findPii gives it.
    expect(shown[1]).toContain(',301234567,')
    const prov = await run(['provenance', '--db', c.path, '--csv'])
    expect(prov.code).toBe(0)
    const lines = prov.stdout.split('\r\n')
    expect(lines[0]).toBe('request_id,ts,recipient_session,recipient_tenant,source_request_id,source_ts,source_session,source_tenant,overlap_words,overlap_sha256,matched,candidates')
    expect(lines[1]).toMatch(/^leak,.*,src,.*,sA,tA,\d+,[0-9a-f]{64},prompt,\d+$/)
    expect(prov.stdout).not.toContain('alpha')
    expect((await run(['provenance', '--db', c.path, '--csv', '--show-text'])).stdout).toContain('alpha bravo')
    expect((await run(['pii', '--db', c.path, '--csv', '--json'])).code).toBe(2)
  })
})

describe('pii over answers that could not be read (QA prov #10)', () => {
  it('says how many answers were not examined, never the flat all-clear', async () => {
    const c = makeCase()
    await c.addFile([
      {request_id: 'a1', tenant_id: 'tA', session_id: 'sA', request_text: 'My email is ola@example.no', response_text: 'ok'},
      {request_id: 'b1', tenant_id: 'tB', session_id: 'sB', request_text: 'hi', response_raw: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: null}}]}},
      {request_id: 'b2', tenant_id: 'tB', session_id: 'sB2', request_text: 'hi', response_raw: 'redacted-by-litellm'},
    ])
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const pii = await run(['pii', '--db', c.path])
    expect(pii.code).toBe(0)
    expect(pii.stdout).not.toMatch(/^No personal data that a session never sent\.$/m)
    expect(pii.stdout).toMatch(/No personal data that a session never sent in the 1 response that had text; 2 responses of 3 had no response text and were not examined/)
    // --json keeps the contract's array; the caveat goes to stderr.
    const json = await run(['pii', '--db', c.path, '--json'])
    expect(JSON.parse(json.stdout)).toEqual([])
    expect(json.stderr).toMatch(/2 responses of 3 had no response text and were not examined/)
  })
})

describe('scan --fail-on-leak over quarantined lines', () => {
  it('does not pass over a line it could not read (it may be the one carrying a leak): exit 1 naming the file, unless --accept-bad-lines', async () => {
    const c = makeCase()
    await c.addCanary(A, 'tA', 'sA')
    // the second line's time has no zone: quarantined, and it is the one that carried tenant A's marker to tenant B
    const file = await c.addFile([{request_id: 'r-ok', tenant_id: 'tB', session_id: 'sB', request_text: 'hi', response_text: 'fine'}])
    const raw = path.join(path.dirname(file), 'zoneless.jsonl')
    fs.writeFileSync(raw, JSON.stringify({ts: '2026-11-02 06:00:00', request_id: 'r-leak', tenant_id: 'tB', session_id: 'sB', response: `oops ${A}`}) + '\n' + JSON.stringify({ts: '2026-11-02T06:00:01Z', request_id: 'r-2', tenant_id: 'tB', session_id: 'sB', response: 'fine'}) + '\n')
    c.close()
    expect((await runJson<{bad_lines: number}>(['ingest', 'logs', raw, '--db', c.path])).bad_lines).toBe(1)
    const gate = await run(['scan', '--db', c.path, '--fail-on-leak'])
    expect(gate.code).toBe(1)
    expect(gate.stderr.trim().split('\n')).toHaveLength(1)
    expect(gate.stderr).toMatch(/--fail-on-leak cannot pass: 1 log file could not be judged: .*zoneless\.jsonl \(1 quarantined line never judged/)
    expect((await run(['scan', '--db', c.path, '--fail-on-leak', '--accept-bad-lines'])).code).toBe(0)
    expect((await run(['scan', '--db', c.path, '--accept-bad-lines'])).code).toBe(2) // only with the gate
  })
})
