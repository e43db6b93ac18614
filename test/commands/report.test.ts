import {execFileSync} from 'node:child_process'
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {buildNotifyCase, HOSTILE_NODE, HOSTILE_TENANT, LEAKED_EMAIL, LEAKED_IBAN, MARKERS} from '../helpers/notify-case.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// Aware 2026-10-23T08:00Z -> deadline 2026-10-26T08:00Z.
const IN_TIME = '2026-10-25T12:00:00+01:00'
const LATE = '2026-10-27T09:00:00Z'

/** Nothing leaked or hostile may appear raw in any output. */
function expectInert(text: string): void {
  for (const m of Object.values(MARKERS)) expect(text).not.toContain(m)
  expect(text).not.toContain(LEAKED_EMAIL)
  expect(text).not.toContain(LEAKED_IBAN)
  expect(text).not.toContain('Sure!')
  expect(text).not.toContain('\u001b')
  expect(text).not.toContain('\u0007')
}

/** Markdown: no live HTML tag and no link, image or heading built from log text. */
function expectInertMarkdown(md: string): void {
  expectInert(md)
  expect(md).not.toContain('<img')
  expect(md).not.toContain('<b>')
  expect(md).not.toContain('<script')
  expect(md).not.toMatch(/(?<!\\)\]\(javascript/)
}

describe('crosstalk report (article33 / article34 / processor-notice / register) and assess', () => {
  let dir: string
  let db: string
  /** The same case with the incident opened as processor: what processor notices are drafted from. */
  let processorDb: string
  let logSha256: string
  beforeAll(async () => {
    dir = tempDir()
    ;({db, logSha256} = await buildNotifyCase())
    const r = await run(['incident', 'open', '--db', db, '--title', 'KV-cache cross-tenant leak', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'controller', '--dpo-contact', 'dpo@provider.example'])
    expect(r.code, r.stderr).toBe(0)
    ;({db: processorDb} = await buildNotifyCase())
    const p = await run(['incident', 'open', '--db', processorDb, '--title', 'KV-cache cross-tenant leak', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'processor', '--dpo-contact', 'dpo@provider.example'])
    expect(p.code, p.stderr).toBe(0)
  })

  it('article33 Markdown: Art. 33(3)(a)-(d) sections, scope numbers, open items, nothing leaked or live', async () => {
    const r = await run(['report', 'article33', '--db', db, '--now', IN_TIME])
    expect(r.code, r.stderr).toBe(0)
    const md = r.stdout
    for (const s of ['Art. 33(3)(a)', 'Art. 33(3)(b)', 'Art. 33(3)(c)', 'Art. 33(3)(d)', 'Art. 33(4)', '2026-10-26T08:00:00.000Z', 'DUE SOON']) expect(md).toContain(s)
    expect(md).toMatch(/\| Responses carrying another session's data \| 5 \|/)
    expect(md).toMatch(/\| Responses with a marker of another customer \(cross-tenant\) \| 4 \|/)
    expect(md).toContain('**at least 4 (upper bound not yet known)**')
    expect(md).toContain('to be completed: controller name and contact details')
    expect(md).toContain(logSha256)
    expectInertMarkdown(md)
    // The hostile node name and tenant id are there, but escaped.
    expect(md).toContain('node-2&lt;img src=x onerror=alert(1)&gt;')
    expect(md).toContain('evil\\_\\[x\\](javascript:alert(1))&lt;b&gt;\\\\x1b\\[2J')
  })

  it('article33 JSON is the draft object, with the same numbers', async () => {
    const r = await run(['report', 'article33', '--db', db, '--now', IN_TIME, '--format', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const d = JSON.parse(r.stdout)
    expect(d.kind).toBe('article33')
    expect(d.scope).toMatchObject({contaminated_responses: 5, cross_tenant_responses: 4, cross_session_responses: 1, exposed_sessions: 4, exposed_tenants: 3, recipient_tenants: 3})
    expect(d.clock).toMatchObject({deadline: '2026-10-26T08:00:00.000Z', status: 'due_soon', remaining_seconds: 75600, late: false})
    expect(d.scope.exposure).toMatchObject({responses: 5, by_canary: 5, by_text_only: 0, sessions: 4})
    // every statement says what it rests on
    expect(d.statements.every((st: {rests_on: string[]}) => st.rests_on.length > 0)).toBe(true)
    expect(d.open_items.length).toBeGreaterThan(3)
    // JSON carries log-derived ids as data (HTML escaping is the consumer's job) but never a raw control.
    expectInert(r.stdout)
    expect(d.scope.flows.map((f: {recipient_tenant: string}) => f.recipient_tenant)).toContain('evil_[x](javascript:alert(1))<b>\\x1b[2J')
  })

  it('an overdue draft lists the reasons for the delay as an open item; --final refuses without them and prints them with them', async () => {
    const draft = await run(['report', 'article33', '--db', db, '--now', LATE])
    expect(draft.code, draft.stderr).toBe(0)
    expect(draft.stdout).toContain('to be completed: reasons for the delay')
    const refused = await run(['report', 'article33', '--db', db, '--now', LATE, '--final'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/deadline passed at 2026-10-26T08:00:00.000Z.*--delay-reason/)
    expect(refused.stdout).toBe('')
    // (the draft's other open items are accepted by name: --final alone refuses them)
    const ok = await run(['report', 'article33', '--db', db, '--now', LATE, '--final', '--delay-reason', 'log recovery from the decode nodes took 40 hours', '--accept-open-items', 'DPO'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toContain('# FINAL')
    expect(ok.stdout).toContain('Reasons for the delay')
    expect(ok.stdout).toContain('log recovery from the decode nodes took 40 hours')
    expect(ok.stdout).toContain('OVERDUE')
  })

  it('CNIL flavour is in French (and says so), maps the facts onto its fields; --lang overrides', async () => {
    const r = await run(['report', 'article33', '--db', db, '--now', IN_TIME, '--authority', 'cnil'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/--authority cnil: written in French.*--lang en/)
    expect(r.stdout).toContain('Catégories et nombre approximatif de personnes concernées')
    expect(r.stdout).toContain('au moins 4 (borne haute non connue)')
    const en = await run(['report', 'article33', '--db', db, '--now', IN_TIME, '--authority', 'cnil', '--lang', 'en', '--format', 'json'])
    expect(JSON.parse(en.stdout)).toMatchObject({language: 'en', language_basis: 'given', authority: 'cnil'})
    const fr = JSON.parse((await run(['report', 'article33', '--db', db, '--now', IN_TIME, '--lang', 'fr', '--format', 'json'])).stdout)
    expect(fr).toMatchObject({language: 'fr', language_basis: 'given', authority: 'edpb'})
    for (const a of ['ico', 'dpc']) expect((await run(['report', 'article33', '--db', db, '--now', IN_TIME, '--authority', a])).code).toBe(0)
  })

  it('article33 PDF: text has the numbers, deadline, charts and evidence annex; a page renders non-blank', async () => {
    const out = path.join(dir, 'a33.pdf')
    const r = await run(['report', 'article33', '--db', db, '--now', IN_TIME, '--format', 'pdf', '--out', out, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({report: 'article33', format: 'pdf', out})
    expect(fs.readFileSync(out).subarray(0, 5).toString()).toBe('%PDF-')
    const text = execFileSync('pdftotext', ['-layout', out, '-'], {encoding: 'utf8'})
    for (const s of ['2026-10-26T08:00:00.000Z', 'DUE SOON', "Responses carrying another session's data per hour (UTC)", 'Tenant-to-tenant flows', 'Annex: evidence manifest', logSha256.slice(0, 24), 'Page 1 of', 'DRAFT']) {
      expect(text).toContain(s)
    }
    expect(text).toMatch(/Responses carrying another session's data\s+5/)
    expect(text).toMatch(/cross-tenant\)\s+4/)
    expectInert(text)
    // Render page 2 (the charts) to a greyscale image and count ink.
    const prefix = path.join(dir, 'page')
    execFileSync('pdftoppm', ['-gray', '-r', '40', '-f', '1', '-l', '2', out, prefix])
    const pgm = fs.readdirSync(dir).filter((f) => f.startsWith('page') && f.endsWith('.pgm')).sort()
    expect(pgm.length).toBe(2)
    for (const f of pgm) {
      const buf = fs.readFileSync(path.join(dir, f))
      const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(buf.subarray(0, 40).toString('latin1'))!
      const pixels = buf.subarray(header[0].length)
      let ink = 0
      for (const p of pixels) if (p < 200) ink++
      expect(ink / pixels.length).toBeGreaterThan(0.02)
    }
  })

  it('a case whose incident records us as controller drafts no processor notice: it would speak as the processor', async () => {
    for (const args of [['--tenant', 'acme'], ['--all', '--out', path.join(dir, 'controller-notices')]]) {
      const r = await run(['report', 'processor-notice', '--db', db, ...args])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/records our role as controller: a processor notice is what a processor sends its controllers/)
    }
    expect(fs.existsSync(path.join(dir, 'controller-notices'))).toBe(false)
  })

  it('processor notice for one tenant holds only its own exposure', async () => {
    const db = processorDb
    const r = await run(['report', 'processor-notice', '--db', db, '--tenant', 'acme'])
    expect(r.code, r.stderr).toBe(0)
    const md = r.stdout
    expect(md).toContain('acme-s1')
    expect(md).toContain('CANARY-a1a1…')
    expect(md).toMatch(/Responses that carried your data: \*\*3\*\*/)
    expect(md.split('\n')[0]).toMatch(/^# DRAFT: /)
    expect(md).not.toMatch(/globex/i)
    expect(md).not.toMatch(/evil/i)
    expect(md).not.toContain(MARKERS.globex1.slice(0, 12))
    expectInertMarkdown(md)
    const json = JSON.parse((await run(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--format', 'json'])).stdout)
    expect(JSON.stringify(json)).not.toMatch(/globex|evil/i)
    expect(json.your_data_reached_others).toMatchObject({responses: 3, other_customers: 2, other_sessions_of_yours: 1})
    const none = await run(['report', 'processor-notice', '--db', db, '--tenant', 'nobody'])
    expect(none.code).toBe(1)
  })

  it('processor-notice --all writes one notice per affected tenant, each clean of the others', async () => {
    const db = processorDb
    const out = path.join(dir, 'notices')
    const r = await run(['report', 'processor-notice', '--db', db, '--all', '--out', out, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const files = fs.readdirSync(out).sort()
    expect(files).toHaveLength(3)
    const tenants = ['acme', 'globex', 'evil']
    for (const f of files) {
      const text = fs.readFileSync(path.join(out, f), 'utf8')
      const own = tenants.find((t) => f.includes(t))!
      for (const other of tenants.filter((t) => t !== own)) expect(text).not.toContain(other)
      expectInertMarkdown(text)
    }
    expect(files.every((f) => /^processor-notice-[A-Za-z0-9._-]+\.md$/.test(f))).toBe(true)
  })

  it('article34 is plain language, a DRAFT, and leaks nothing', async () => {
    const r = await run(['report', 'article34', '--db', db])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.split('\n')[0]).toMatch(/^# DRAFT: /)
    expect(r.stdout).toContain('What you can do')
    expect(r.stdout).toContain('bank')
    expectInertMarkdown(r.stdout)
    expect(r.stdout).not.toMatch(/globex|acme/)
  })

  it('assess suggests without deciding; --decide records the human decision, which the reports then show', async () => {
    const s = await run(['assess', '--db', db, '--json'])
    expect(s.code, s.stderr).toBe(0)
    const sug = JSON.parse(s.stdout)
    expect(sug.severity).toMatchObject({dpc: 3, ei: 1, cb: 0.5, se: 3.5, band: 'high'})
    expect(sug.suggested).toBe('notify-subjects')
    expect(sug.decision).toBeNull()
    const reg0 = JSON.parse((await run(['report', 'register', '--db', db, '--format', 'json'])).stdout)
    expect(reg0.decision).toMatch(/^to be completed: risk assessment/)
    const d = await run(['assess', '--db', db, '--dpc', '1', '--decide', 'notify', '--rationale', 'recipients are business API customers; no special categories seen', '--decided-by', 'DPO', '--json'])
    expect(d.code, d.stderr).toBe(0)
    expect(JSON.parse(d.stdout)).toMatchObject({suggested: 'notify', decision: {outcome: 'notify', decided_by: 'DPO'}})
    const reg = JSON.parse((await run(['report', 'register', '--db', db, '--format', 'json'])).stdout)
    expect(reg).toMatchObject({decision: expect.stringMatching(/^Decision recorded on .* by DPO: notify the supervisory authority\. Rationale: recipients are business API customers; no special categories seen/), rationale: 'recipients are business API customers; no special categories seen'})
    expect(reg.severity).toMatch(/ENISA SE 1\.5 \(low\); suggested notify the supervisory authority/)
    const md = (await run(['report', 'article33', '--db', db, '--now', IN_TIME])).stdout
    expect(md).toContain('Decision recorded on')
    expect(md).toContain(': notify the supervisory authority.')
  })

  it('register as CSV has a header and one entry', async () => {
    const r = await run(['report', 'register', '--db', db, '--format', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\r\n')
    expect(lines[0]!.startsWith('kind,draft,language,generated_at,reference,title')).toBe(true)
    // A column added later goes last: the columns before it keep their places.
    expect(lines[0]!.endsWith(',evidence,investigation,role_changes,delay_reasons,controllers_known,finalised_with_open_items,data_subjects_either_side,controllers_unknown_because')).toBe(true)
    expect(lines).toHaveLength(2)
    expectInert(r.stdout)
  })

  it('--include-excerpts is explicit and audited; excerpts stay inert and markers truncated', async () => {
    const r = await run(['report', 'article33', '--db', db, '--now', IN_TIME, '--include-excerpts'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Excerpts (included on request')
    expect(r.stdout).not.toContain('\u001b')
    expect(r.stdout).not.toContain('<script>')
    for (const m of Object.values(MARKERS)) expect(r.stdout).not.toContain(m)
    const conn = new Database(db, {readonly: true})
    const audit = conn.prepare('SELECT command, summary FROM audit_log').all() as Array<{command: string; summary: string}>
    conn.close()
    expect(audit.some((a) => a.command === 'report:article33' && a.summary.includes('excerpts'))).toBe(true)
    expect(HOSTILE_NODE).toBeTruthy()
    expect(HOSTILE_TENANT).toBeTruthy()
  })
})
