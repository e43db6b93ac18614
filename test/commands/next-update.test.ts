import {describe, expect, it} from 'vitest'
import {run, runJson} from '../helpers/commands.js'
import {buildNotifyCase} from '../helpers/notify-case.js'

// GDPR Art. 33(4): information may follow in phases. A processor notice states when the next
// update will come only where the responder recorded it (incident set --next-update), never a
// default; unset, it is an open item of each notice. The date is validated: with a zone, not past.

interface Notice {
  next_update: {at: string | null; text: string | null}
  open_items: Array<{section: string; item: string; record_with: string | null}>
}

describe('incident set --next-update and the processor notice', () => {
  it('unset: the notice states no date and lists it as an open item; set: it states the recorded date (EN/FR)', async () => {
    const {db} = await buildNotifyCase()
    const opened = await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', 'processor'])
    expect(opened.code, opened.stderr).toBe(0)

    const before = await runJson<Notice>(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--format', 'json'])
    expect(before.next_update).toEqual({at: null, text: null})
    expect(before.open_items).toContainEqual(expect.objectContaining({section: 'phase', item: 'when our next update to you will follow (Art. 33(4)): no date is set', ref: 'Art. 33(4)', record_with: 'crosstalk incident set --next-update ISO'}))
    const mdBefore = await run(['report', 'processor-notice', '--db', db, '--tenant', 'acme'])
    expect(mdBefore.stdout).toContain('- to be completed: when our next update to you will follow (Art. 33(4)): no date is set')
    expect(mdBefore.stdout).not.toContain('We will send our next update')

    const next = new Date(Date.now() + 3 * 86400_000)
    const set = await runJson<{next_update_at: string}>(['incident', 'set', '--db', db, '--next-update', next.toISOString().replace('Z', '+00:00')])
    expect(set.next_update_at).toBe(next.toISOString())
    const shown = await runJson<{incident: {next_update_at: string}}>(['incident', 'show', '--db', db])
    expect(shown.incident.next_update_at).toBe(next.toISOString())

    const after = await runJson<Notice & {statements: Array<{section: string; text: string; rests_on: string[]}>}>(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--format', 'json'])
    const text = `We will send our next update by ${next.toISOString()} (UTC), with what has been established by then (Art. 33(4)).`
    expect(after.next_update).toEqual({at: next.toISOString(), text})
    expect(after.statements).toContainEqual({section: 'phase', text, rests_on: ['incident.next_update_at']})
    expect(after.open_items.some((o) => o.item.startsWith('when our next update'))).toBe(false)
    expect((await run(['report', 'processor-notice', '--db', db, '--tenant', 'acme'])).stdout).toContain(text)
    const fr = await run(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--lang', 'fr'])
    expect(fr.stdout).toContain(`Nous vous enverrons notre prochaine mise à jour au plus tard le ${next.toISOString()} (UTC)`)
  }, 60_000)

  it('refuses a date without a zone (usage, exit 2) and one already past (exit 1), one line each', async () => {
    const {db} = await buildNotifyCase()
    expect((await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', 'processor'])).code).toBe(0)
    const noZone = await run(['incident', 'set', '--db', db, '--next-update', '2030-11-05T10:00:00'])
    expect(noZone.code).toBe(2)
    expect(noZone.stderr.trim()).toMatch(/--next-update: "2030-11-05T10:00:00" has no time zone/)
    const past = await run(['incident', 'set', '--db', db, '--next-update', '2026-10-24T08:00:00Z'])
    expect(past.code).toBe(1)
    expect(past.stderr.trim().split('\n')).toHaveLength(1)
    expect(past.stderr).toMatch(/--next-update 2026-10-24T08:00:00.000Z is in the past/)
    const shown = await runJson<{incident: {next_update_at: string | null}}>(['incident', 'show', '--db', db])
    expect(shown.incident.next_update_at).toBeNull()
  }, 60_000)
})
