import {describe, expect, it} from 'vitest'
import {draftsCase, linesWith} from './drafts-case.js'

// QA sentences S1-4: the ICO form's "When did you discover the breach?" gave the awareness time
// (25 hours after the recorded detection), while the EDPB form of the same case gave the detection.
describe('ICO form: when the breach was discovered', () => {
  it('gives the recorded detection time, with awareness labelled beside it', async () => {
    const c = await draftsCase()
    await c.cli('incident', 'set', '--detected-at', '2026-11-01T08:00:00Z')
    const ico = await c.cli('report', 'article33', '--authority', 'ico')
    const row = linesWith(ico, '| discovered |')
    expect(row, ico).toHaveLength(1)
    expect(row[0]).toMatch(/\| 2026-11-01T08:00:00\.000Z \(first detected; became aware: 2026-11-02T09:00:00\.000Z\) \|$/)
    // The awareness questions of the other forms are about awareness, and keep it.
    for (const [authority, id] of [['cnil', 'connaissance'], ['dpc', 'aware']]) {
      const form = await c.cli('report', 'article33', '--authority', authority!, '--lang', 'en')
      expect(linesWith(form, `| ${id} |`)[0]).toMatch(/\| 2026-11-02T09:00:00\.000Z \|$/)
    }
  }, 60_000)

  it('is to be completed while no detection time is recorded, never the awareness time alone', async () => {
    const c = await draftsCase()
    const row = linesWith(await c.cli('report', 'article33', '--authority', 'ico'), '| discovered |')[0]!
    expect(row).toContain('to be completed: time of first detection')
    expect(row).not.toMatch(/\| 2026-11-02T09:00:00\.000Z \|$/)
  }, 60_000)
})
