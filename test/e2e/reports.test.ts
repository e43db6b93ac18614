import {execFileSync} from 'node:child_process'
import {recordTextLoader} from '../../src/evidence/record-texts.js'
import {createHash} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, inject, it} from 'vitest'
import {runCli, tempDir} from '../helpers/cli.js'

// generate -> ingest -> scan -> incident open -> report, on a generated incident with a
// ground truth: the drafts carry the scope numbers and the evidence hashes, and the
// processor notices carry nothing of anyone else.

const AWARE = '2026-11-02T12:00:00Z'
const NOW = '2026-11-03T10:00:00Z'
const DEADLINE = '2026-11-05T12:00:00.000Z'

let dir: string
let out: string
let db: string
let processorDb: string
let truth: {params: {tenants: string[]}; pii: Array<{value: string}>; provenance: Array<{source_request_id: string}>; boilerplate: Array<{text: string}>}

function ok(args: string[]): string {
  const r = runCli([...args, '--db', db])
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  return r.stdout
}

beforeAll(async () => {
  dir = tempDir()
  // The run's shared incident (3000 records, seed 1).
  out = inject('incident').dir
  db = path.join(dir, 'case.db')
  truth = JSON.parse(fs.readFileSync(path.join(out, 'ground-truth.json'), 'utf8'))
  ok(['ingest', 'logs', path.join(out, 'logs')])
  ok(['ingest', 'canaries', path.join(out, 'canaries.csv')])
  ok(['scan', '--pool-tokens', '681280'])
  // The same case before any incident: processor notices are drafted from it with the incident opened as processor.
  processorDb = path.join(dir, 'processor.db')
  fs.copyFileSync(db, processorDb)
}, 120_000)

afterAll(() => fs.rmSync(dir, {recursive: true, force: true}))

describe('reports on a generated incident', () => {
  it('status shows no incident before one is opened, then the incident and its clock', () => {
    const before = JSON.parse(ok(['status', '--json']))
    expect(before).toMatchObject({incident: null, clock: null, records: 3000})
    ok(['incident', 'open', '--title', 'KV cache cross-tenant leak', '--aware-at', AWARE, '--role', 'controller', '--dpo-contact', 'dpo@provider.example'])
    const after = JSON.parse(ok(['status', '--json']))
    expect(after.incident).toEqual({title: 'KV cache cross-tenant leak', role: 'controller', aware_at: '2026-11-02T12:00:00.000Z'})
    expect(after.clock).toMatchObject({aware_at: '2026-11-02T12:00:00.000Z', deadline: DEADLINE, late: expect.any(Boolean)})
    expect(after.records).toBe(before.records)
    const human = ok(['status'])
    expect(human).toContain('KV cache cross-tenant leak')
    expect(human).toContain(DEADLINE)
  })

  it('Article 33 PDF, Markdown and JSON carry the scope numbers, the deadline and the evidence hashes', () => {
    const scope = JSON.parse(ok(['scope', '--json', '--pool-tokens', '681280']))
    expect(scope.contaminated_responses).toBeGreaterThan(0)
    const pdf = path.join(dir, 'a33.pdf')
    ok(['report', 'article33', '--format', 'pdf', '--out', pdf, '--now', NOW])
    const text = execFileSync('pdftotext', ['-layout', pdf, '-'], {encoding: 'utf8'})
    expect(text).toMatch(new RegExp(`Responses carrying another session's data\\s+${scope.exposure.responses}\\b`))
    // Where a marker cut short names no source session, the figure is a lower bound with the named count beside it.
    const sessions = scope.exposure.sessions_low === undefined ? `${scope.exposure.sessions}\\b` : `at least ${scope.exposure.sessions_low} \\(${scope.exposure.sessions} named`
    expect(text).toMatch(new RegExp(`Sessions whose data reached someone else\\s+${sessions}`))
    expect(text).toMatch(new RegExp(`Responses at risk[^\\n]*\\s+${scope.at_risk_responses}\\b`))
    for (const t of [DEADLINE]) expect(text).toContain(t)
    expect(text).toContain(`${scope.data_subjects.low} to ${scope.data_subjects.high}`)
    expect(text).toContain('Annex: evidence manifest')
    const logs = fs.readdirSync(path.join(out, 'logs'))
    expect(logs.length).toBeGreaterThan(1)
    for (const f of logs) expect(text, f).toContain(createHash('sha256').update(fs.readFileSync(path.join(out, 'logs', f))).digest('hex'))
    // every page renders to something that is not blank
    execFileSync('pdftoppm', ['-png', '-r', '30', '-f', '1', '-l', '3', pdf, path.join(dir, 'page')])
    for (const png of fs.readdirSync(dir).filter((f) => /^page-\d+\.png$/.test(f))) expect(fs.statSync(path.join(dir, png)).size).toBeGreaterThan(2000)

    const md = runCli(['report', 'article33', '--db', db, '--format', 'md', '--now', NOW])
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).toMatch(new RegExp(`\\| Responses carrying another session's data \\| ${scope.exposure.responses} \\|`))
    expect(md.stdout).toContain('to be completed: reproduction of the fault on a test system')
    const json = JSON.parse(ok(['report', 'article33', '--format', 'json', '--now', NOW]))
    for (const k of ['contaminated_responses', 'cross_tenant_responses', 'exposed_sessions', 'first_seen', 'last_seen', 'at_risk_responses', 'flows', 'exposure'])
      expect(json.scope[k], k).toEqual(scope[k])
    expect(json.data_subjects.approximate).toMatchObject({low: scope.data_subjects.low, high: scope.data_subjects.high})
    expect(json.records.approximate).toMatchObject({low: scope.records_concerned.low, high: scope.records_concerned.high})
    expect(json.replay).toBeNull()
  })

  it('CNIL draft: the generated sentences are French too', () => {
    const md = runCli(['report', 'article33', '--db', db, '--authority', 'cnil', '--now', NOW])
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).toContain('Perte de confidentialité')
    expect(md.stdout).toContain('données financières')
    expect(md.stdout).toContain('à compléter : reproduction du défaut sur un système de test')
    expect(md.stdout).not.toContain('Loss of confidentiality')
    expect(md.stdout).not.toContain('contact details (')
  })

  it('processor-notice --all: one notice per affected tenant, none naming another tenant, a full marker, a PII value or leaked text', () => {
    const scope = JSON.parse(ok(['scope', '--json']))
    const affected = new Set<string>(scope.exposure.flows.flatMap((f: {source_tenant: string; recipient_tenant: string}) => [f.source_tenant, f.recipient_tenant]))
    affected.delete('')
    const dirOut = path.join(dir, 'notices')
    const asController = runCli(['report', 'processor-notice', '--all', '--out', dirOut, '--db', db])
    expect(asController.code).toBe(1)
    expect(asController.stderr).toMatch(/records our role as controller/)
    for (const args of [['incident', 'open', '--title', 'KV cache cross-tenant leak', '--aware-at', AWARE, '--role', 'processor'], ['report', 'processor-notice', '--all', '--out', dirOut]]) {
      const r = runCli([...args, '--db', processorDb])
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    }
    const files = fs.readdirSync(dirOut)
    expect(files.length).toBe(affected.size)

    const markers = fs.readFileSync(path.join(out, 'canaries.csv'), 'utf8').split('\n').slice(1).map((l) => l.split(',')[0]!).filter(Boolean)
    const pii = truth.pii.map((p) => p.value)
    expect(pii.length).toBeGreaterThan(0)
    const boiler = truth.boilerplate.map((b) => b.text)
    const conn = new Database(db, {readonly: true})
    const texts = recordTextLoader(conn)
    const idOf = conn.prepare('SELECT id FROM records WHERE request_id = ?').pluck()
    const sources = truth.provenance.map((p) => texts(idOf.get(p.source_request_id) as number).request_text ?? undefined)
    conn.close()
    // 32-character windows of every leaked prompt that is not shared boilerplate
    const leaked = sources
      .filter((t): t is string => typeof t === 'string' && t.length >= 40)
      .flatMap((t) => [t.slice(0, 32), t.slice(Math.floor(t.length / 2), Math.floor(t.length / 2) + 32)])
      .filter((w) => !boiler.some((b) => b.includes(w)))
    expect(leaked.length).toBeGreaterThan(0)

    const seen = new Set<string>()
    for (const f of files) {
      const text = fs.readFileSync(path.join(dirOut, f), 'utf8')
      const own = [...affected].find((t) => text.includes(`| To (customer / controller) | ${t.replace(/[-_]/g, (c) => (c === '_' ? '\\_' : c))} |`))
      expect(own, f).toBeDefined()
      seen.add(own!)
      for (const other of truth.params.tenants.filter((t) => t !== own)) expect(text, `${f} names ${other}`).not.toContain(other)
      for (const m of markers) expect(text).not.toContain(m)
      for (const v of pii) expect(text).not.toContain(v)
      for (const w of leaked) expect(text).not.toContain(w)
    }
    expect(seen.size).toBe(affected.size)
  })
})
