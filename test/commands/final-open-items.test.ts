import Database from 'better-sqlite3'
import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import path from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {finalisation} from '../../src/notify/finalise.js'
import {buildNotifyCase} from '../helpers/notify-case.js'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// --final marked a document ready to send while it still said "to be completed" (no awareness
// time, no measures, no contact point, ...): a false signal to a DPO. One rule for every drafting
// command: --final is refused (exit 1, E_OPEN_ITEMS) while open items remain, unless someone
// accepts them by name (--accept-open-items NAME); the acceptance is audited in the case and the
// document says it was finalised with them open and that further information will follow.

const IN_TIME = '2026-10-25T12:00:00+01:00'
const BY = 'Jane Roe, DPO'

interface Doc {
  final: boolean
  draft: boolean
  open_items: Array<{item: string}>
  finalised_with_open_items: {accepted_by: string; accepted_at: string; open_items: number; text: string} | null
}

interface AuditRow {
  command: string
  summary: string
}

function lastAudit(db: string): {command: string; summary: Record<string, unknown>} {
  const c = new Database(db, {readonly: true})
  const row = c.prepare('SELECT command, summary FROM audit_log ORDER BY seq DESC LIMIT 1').get() as AuditRow
  c.close()
  return {command: row.command, summary: JSON.parse(row.summary) as Record<string, unknown>}
}

function lastAudits(db: string, n: number): Array<{command: string; summary: Record<string, unknown>}> {
  const c = new Database(db, {readonly: true})
  const rows = c.prepare('SELECT command, summary FROM audit_log ORDER BY seq DESC LIMIT ?').all(n) as AuditRow[]
  c.close()
  return rows.map((row) => ({command: row.command, summary: JSON.parse(row.summary) as Record<string, unknown>}))
}

describe('--final with open items: refused unless accepted by name, and then said', () => {
  let controllerDb: string
  let processorDb: string
  let dir: string
  beforeAll(async () => {
    dir = tempDir('ct-final-')
    ;({db: controllerDb} = await buildNotifyCase())
    expect((await run(['incident', 'open', '--db', controllerDb, '--title', 'KV-cache leak', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'controller'])).code).toBe(0)
    ;({db: processorDb} = await buildNotifyCase())
    expect((await run(['incident', 'open', '--db', processorDb, '--title', 'KV-cache leak', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'processor'])).code).toBe(0)
  })

  const commands = (): Array<{name: string; db: string; args: string[]}> => [
    {name: 'article33', db: controllerDb, args: ['report', 'article33', '--now', IN_TIME]},
    {name: 'article33 --authority cnil', db: controllerDb, args: ['report', 'article33', '--now', IN_TIME, '--authority', 'cnil']},
    {name: 'article34', db: controllerDb, args: ['report', 'article34']},
    {name: 'processor-notice', db: processorDb, args: ['report', 'processor-notice', '--tenant', 'acme']},
    {name: 'register', db: controllerDb, args: ['report', 'register']},
  ]

  it('each drafting command refuses --final while open items remain: one line naming how many and the first, exit 1, nothing on stdout', async () => {
    for (const c of commands()) {
      const draft = JSON.parse((await run([...c.args, '--db', c.db, '--format', 'json'])).stdout) as Doc
      expect(draft.open_items.length, c.name).toBeGreaterThan(0)
      const refused = await run([...c.args, '--db', c.db, '--final'])
      expect(refused.code, `${c.name}: ${refused.stderr}`).toBe(1)
      expect(refused.stdout, c.name).toBe('')
      // (the CNIL form's note that it is written in French comes before it)
      const lines = refused.stderr.trim().split('\n').filter((l) => !l.includes('written in French'))
      expect(lines, c.name).toHaveLength(1)
      expect(lines[0]).toContain(`--final: ${draft.open_items.length} open item`)
      expect(lines[0]).toContain(draft.open_items[0]!.item)
      expect(lines[0]).toContain('--accept-open-items NAME')
      // --json: the contract's error object, the open items as its details
      const json = await run([...c.args, '--db', c.db, '--final', '--json'])
      expect(json.code, c.name).toBe(1)
      const error = (JSON.parse(json.stdout) as {error: {code: string; details: {open_items: unknown[]}}}).error
      expect(error.code).toBe('E_OPEN_ITEMS')
      expect(error.details.open_items).toHaveLength(draft.open_items.length)
    }
  })

  it('accepted by name: final, the document says so with how many and that more will follow, and the case records who and when', async () => {
    for (const c of commands()) {
      const r = await run([...c.args, '--db', c.db, '--final', '--accept-open-items', BY, '--format', 'json'])
      expect(r.code, `${c.name}: ${r.stderr}`).toBe(0)
      const doc = JSON.parse(r.stdout) as Doc
      expect(doc.draft).toBe(false)
      expect(doc.finalised_with_open_items, c.name).toMatchObject({accepted_by: BY, open_items: doc.open_items.length})
      const audit = lastAudit(c.db)
      expect(audit.summary.open_items_accepted, c.name).toMatchObject({by: BY, at: doc.finalised_with_open_items!.accepted_at, open_items: doc.open_items.length})
      expect((audit.summary.open_items_accepted as {items: string[]}).items).toEqual(doc.open_items.map((o) => o.item))
      const md = await run([...c.args, '--db', c.db, '--final', '--accept-open-items', BY])
      expect(md.code, c.name).toBe(0)
      const head = md.stdout.split('\n').slice(0, 4).join('\n')
      expect(head, c.name).toMatch(/^# (FINAL|VERSION FINALE)/)
      if (c.name.includes('cnil')) expect(head).toMatch(new RegExp(`Version finalisée le .* par Jane Roe, DPO avec ${doc.open_items.length} points encore ouverts.*les informations complémentaires suivront`))
      else expect(head).toMatch(new RegExp(`Finalised on .* by Jane Roe, DPO with ${doc.open_items.length} points still open.*further information will follow`))
    }
  })

  it('a draft is unchanged: no finalisation key set, nothing audited for it', async () => {
    const d = JSON.parse((await run(['report', 'article34', '--db', controllerDb, '--format', 'json'])).stdout) as Doc
    expect(d).toMatchObject({draft: true, final: false, finalised_with_open_items: null})
  })

  it('--accept-open-items without --final, or without a name, is a usage error (exit 2)', async () => {
    for (const args of [['--accept-open-items', BY], ['--final', '--accept-open-items', '  '], ['--final', '--accept-open-items', 'x\u001b[2J']]) {
      const r = await run(['report', 'article34', '--db', controllerDb, ...args])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(/--accept-open-items/)
    }
  })

  it('processor-notice --all --final refused writes no notice; accepted, each notice carries its acceptance', async () => {
    const out = path.join(dir, 'notices')
    const refused = await run(['report', 'processor-notice', '--db', processorDb, '--all', '--out', out, '--final'])
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stderr).toMatch(/--final: \d+ open items? remain/)
    expect(existsSync(out)).toBe(false)
    const ok = await run(['report', 'processor-notice', '--db', processorDb, '--all', '--out', out, '--final', '--accept-open-items', BY, '--format', 'json', '--json'])
    expect(ok.code, ok.stderr).toBe(0)
    const written = JSON.parse(ok.stdout) as {notices: Array<{out: string}>}
    expect(written.notices.length).toBeGreaterThan(0)
    // One audit entry per notice, recorded as each is written.
    const notices = lastAudits(processorDb, written.notices.length).flatMap((a) => a.summary.notices as Array<{open_items_accepted?: {by: string}}>)
    expect(notices).toHaveLength(written.notices.length)
    for (const n of notices) expect(n.open_items_accepted?.by).toBe(BY)
  })

  it('the PDF says it in its title block (the Markdown head is not drawn there)', async () => {
    const out = path.join(dir, 'a34.pdf')
    const r = await run(['report', 'article34', '--db', controllerDb, '--final', '--accept-open-items', BY, '--format', 'pdf', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    const text = execFileSync('pdftotext', [out, '-'], {encoding: 'utf8'}).replace(/\s+/g, ' ')
    expect(text).toMatch(/Finalised on .* by Jane Roe, DPO with \d+ points still open/)
  })

  it('with no open item --final needs no acceptance (the rule, without a database)', () => {
    expect(finalisation('report article34', [], {final: true}, 'en', '2026-11-02T09:00:00.000Z')).toBeNull()
    expect(() => finalisation('report article34', [{section: 's', item: 'the contact point', ref: 'Art. 34(2)', record_with: null}], {final: true}, 'en', '2026-11-02T09:00:00.000Z')).toThrow(/1 open item remains \(the contact point\)/)
  })
})
