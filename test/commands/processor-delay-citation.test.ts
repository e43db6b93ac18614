import {describe, expect, it} from 'vitest'
import {run, runJson} from '../helpers/commands.js'
import {buildNotifyCase} from '../helpers/notify-case.js'

// A processor's duty is Art. 33(2): notify the controller "without undue delay after becoming
// aware". The 72 hours, and the reasons that must accompany a notification made after them, are
// the controller's (Art. 33(1)): a processor's late notice is late against its contract, and no
// processor output cites Art. 33(1) for it.

describe("a processor's late notice cites its own duty", () => {
  it('the clock and the register cite Art. 33(2), not Art. 33(1), for the processor\'s delay', async () => {
    const {db} = await buildNotifyCase()
    const opened = await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', 'processor', '--controller-deadline-hours', '24'])
    expect(opened.code, opened.stderr).toBe(0)
    const clock = await run(['clock', '--db', db, '--now', '2026-10-25T08:00:00Z'])
    expect(clock.stdout).toMatch(/Status:\s+OVERDUE: past the contractual period for the notice to a controller \(Art\. 33\(2\)/)
    expect(clock.stdout).not.toMatch(/Art\. 33\(1\)/)
    const register = await runJson<{open_items: Array<{item: string; ref: string}>}>(['report', 'register', '--db', db, '--format', 'json'])
    const delay = register.open_items.filter((o) => /reasons for the delay/.test(o.item))
    expect(delay).toHaveLength(1)
    expect(delay[0]!.ref).toMatch(/Art\. 33\(2\)/)
    expect(`${delay[0]!.item} ${delay[0]!.ref}`).not.toMatch(/33\(1\)|72 hours/)
    // Sent late (with its reasons), the clock says so under the processor's duty.
    const sent = await run(['notify', 'record', '--db', db, '--recipient', 'acme', '--phase', 'initial', '--at', '2026-10-25T07:00:00Z', '--reference', 'N-1', '--delay-reason', 'log recovery'])
    expect(sent.code, sent.stderr).toBe(0)
    for (const t of ['globex', 'evil_[x](javascript:alert(1))<b>\u001b[2J']) {
      const r = await run(['notify', 'record', '--db', db, '--recipient', t, '--phase', 'initial', '--at', '2026-10-25T07:00:00Z', '--reference', 'N-2', '--delay-reason', 'log recovery'])
      expect(r.code, r.stderr).toBe(0)
    }
    const after = await run(['clock', '--db', db, '--now', '2026-10-25T08:00:00Z'])
    expect(after.stdout).toMatch(/Status:\s+NOTIFIED LATE \(after the contractual period; Art\. 33\(2\)/)
    expect(after.stdout).not.toMatch(/Art\. 33\(1\)/)
  })
})
