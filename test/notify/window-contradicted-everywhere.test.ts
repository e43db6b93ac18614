import {describe, expect, it} from 'vitest'
import {draftsCase, linesWith} from './drafts-case.js'

// QA sentences S3-4: a recorded breach end the logs contradict (an affected response at 10:05,
// the end recorded at 10:00) was flagged in field 47 only: field 44, field 45, the timeline's
// "Breach end" row and the register's window stated it plainly.
const FLAG = 'to be completed: the breach end: the recorded end 2026-11-01T10:00:00.000Z is before the last affected response'

describe('a breach end the logs contradict', () => {
  it('is flagged everywhere the drafts state it', async () => {
    const c = await draftsCase()
    await c.cli('incident', 'set', '--breach-started-at', '2026-11-01T09:00:00Z', '--breach-ended-at', '2026-11-01T10:00:00Z')
    const a33 = await c.cli('report', 'article33')
    for (const row of ['| Breach end |', '| 44 |', '| 45 |', '| 47 |']) {
      const lines = linesWith(a33, row)
      expect(lines, row).toHaveLength(1)
      expect(lines[0], row).toContain(FLAG)
    }
    const window = linesWith(await c.cli('report', 'register'), '| Breach window |')
    expect(window[0]).toContain('2026-11-01T09:00:00.000Z - 2026-11-01T10:00:00.000Z')
    expect(window[0]).toContain(FLAG)
  }, 60_000)
})
