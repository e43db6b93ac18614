import Database from 'better-sqlite3'
import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {draftsCase} from './drafts-case.js'

// QA life 05: a fact recorded in error with `incident set` could only be overwritten with another
// value: `--breach-ended-at ""` and `--measures-taken ""` are refused and there was no way to
// withdraw it, so every draft kept stating a breach end or a measure nobody could vouch for.
describe('incident set --clear', () => {
  it('withdraws recorded facts: the drafts show them as open items again, and the audit log keeps it', async () => {
    const c = await draftsCase()
    await c.cli('incident', 'set', '--breach-ended-at', '2026-11-01T11:00:00Z', '--measures-taken', 'MISTAKEN-MEASURE')
    expect(await c.cli('report', 'article33', '--lang', 'en')).toContain('MISTAKEN-MEASURE')
    await c.cli('incident', 'set', '--clear', 'breach-ended-at', '--clear', 'measures-taken')
    const shown = JSON.parse(await c.cli('incident', 'show', '--json')) as {incident: Record<string, unknown>}
    expect(shown.incident.breach_ended_at).toBeNull()
    expect(shown.incident.measures_taken).toBeNull()
    const md = await c.cli('report', 'article33', '--lang', 'en')
    expect(md).not.toContain('MISTAKEN-MEASURE')
    expect(md).not.toContain('2026-11-01T11:00:00')
    expect(md).toMatch(/to be completed: [^|\n]*measures/)
    const db = new Database(c.db, {readonly: true})
    const row = db.prepare("SELECT summary FROM audit_log WHERE command = 'incident:set' ORDER BY seq DESC LIMIT 1").get() as {summary: string}
    db.close()
    expect(JSON.parse(row.summary)).toMatchObject({cleared: ['breach_ended_at', 'measures_taken']})
    expect(await c.cli('verify')).toBeTruthy()
  }, 90_000)

  it('refuses a field both given and cleared, and a field that cannot be cleared (exit 2); the help names --clear', async () => {
    const c = await draftsCase()
    const both = await run(['incident', 'set', '--db', c.db, '--measures-taken', 'x', '--clear', 'measures-taken'])
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/--clear measures-taken with --measures-taken/)
    const title = await run(['incident', 'set', '--db', c.db, '--clear', 'title'])
    expect(title.code).toBe(2)
    const aware = await run(['incident', 'set', '--db', c.db, '--clear', 'aware-at'])
    expect(aware.code).toBe(2)
    const help = await run(['incident', 'set', '--help'])
    expect(help.stdout).toMatch(/--clear=FIELD/)
  }, 90_000)
})
