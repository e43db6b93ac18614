import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {buildNotifyCase} from '../helpers/notify-case.js'

// Facts a responder records can contradict the logs: a breach window that leaves out leaked
// answers, data subjects per country that add up to fewer people than the logs show affected.
// They are kept as recorded; the recording command warns, and every draft shows each
// contradiction as an open item (the Article 33 form fields carry it beside the figure), never
// the figure alone. The hostile case's affected responses run from 10:15 to 13:30 on 2026-10-22,
// from 4 sessions whose data reached another session.

interface Item {item: string; ref: string}
interface Draft33 {open_items: Item[]; form_fields: Array<{id: string; value: string; open: boolean}>}

const field = (d: Draft33, id: string) => d.form_fields.find((f) => f.id === id)!

describe('a recorded breach window the logs contradict', () => {
  it('warns when recorded, and every draft shows it as open', async () => {
    const {db} = await buildNotifyCase()
    const opened = await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', 'controller', '--breach-started-at', '2026-10-22T12:00:00Z', '--breach-ended-at', '2026-10-22T13:00:00Z'])
    expect(opened.code, opened.stderr).toBe(0)
    expect(opened.stderr).toContain('the recorded breach start 2026-10-22T12:00:00.000Z is after the first affected response in the logs (2026-10-22T10:15:00.000Z)')
    expect(opened.stderr).toContain('the recorded breach end 2026-10-22T13:00:00.000Z is before the last affected response in the logs (2026-10-22T13:30:00.000Z)')

    const a33 = JSON.parse((await run(['report', 'article33', '--db', db, '--format', 'json'])).stdout) as Draft33
    const items = a33.open_items.map((o) => o.item)
    expect(items).toContain('the breach start: the recorded start 2026-10-22T12:00:00.000Z is after the first affected response in the logs (2026-10-22T10:15:00.000Z), so the breach had started by then; correct the start, or record why those responses are not part of this breach')
    expect(items.some((i) => i.startsWith('the breach end: the recorded end 2026-10-22T13:00:00.000Z is before the last affected response in the logs (2026-10-22T13:30:00.000Z)'))).toBe(true)
    expect(field(a33, '46')).toMatchObject({open: true, value: expect.stringMatching(/^2026-10-22T12:00:00.000Z \(to be completed: the breach start: /)})
    expect(field(a33, '47')).toMatchObject({open: true, value: expect.stringMatching(/^2026-10-22T13:00:00.000Z \(to be completed: the breach end: /)})

    // The letter to data subjects does not tell people the contradicted period as established.
    const a34 = JSON.parse((await run(['report', 'article34', '--db', db, '--format', 'json', '--lang', 'en'])).stdout) as {when: string; open_items: Item[]}
    expect(a34.when).not.toMatch(/as established by our investigation/)
    expect(a34.when).toContain('The affected answers we found in our logs were given between 2026-10-22 10:15 and 2026-10-22 13:30 (UTC).')
    expect(a34.open_items.map((o) => o.item).some((i) => i.startsWith('the breach start: the recorded start'))).toBe(true)

    const register = JSON.parse((await run(['report', 'register', '--db', db, '--format', 'json'])).stdout) as {open_items: Item[]}
    expect(register.open_items.map((o) => o.item).filter((i) => /^the breach (start|end): the recorded/.test(i))).toHaveLength(2)

    // Corrected to cover the logs: no warning, nothing open.
    const fixed = await run(['incident', 'set', '--db', db, '--breach-started-at', '2026-10-22T10:00:00Z', '--breach-ended-at', '2026-10-22T14:00:00Z'])
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(fixed.stderr).not.toMatch(/warning/)
    const again = JSON.parse((await run(['report', 'article33', '--db', db, '--format', 'json'])).stdout) as Draft33
    expect(again.open_items.map((o) => o.item).filter((i) => /^the breach (start|end): the recorded/.test(i))).toEqual([])
    expect(field(again, '46')).toMatchObject({open: false, value: '2026-10-22T10:00:00.000Z'})
  })
})

describe('data subjects per country below what the logs show', () => {
  it('warns when recorded, and the draft flags the figure', async () => {
    const {db} = await buildNotifyCase()
    expect((await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', 'controller'])).code).toBe(0)
    const set = await run(['incident', 'set', '--db', db, '--countries', 'FR, DE', '--subjects-per-country', 'FR 1; DE 1'])
    expect(set.code, set.stderr).toBe(0)
    const a33 = JSON.parse((await run(['report', 'article33', '--db', db, '--format', 'json'])).stdout) as Draft33 & {data_subjects: {approximate: {low: number}}}
    const low = a33.data_subjects.approximate.low
    expect(low).toBeGreaterThan(2)
    expect(set.stderr).toContain(`the data subjects per country recorded add up to 2, below the at least ${low} data subjects the logs show`)
    const item = `the number of data subjects per country: the figures recorded (FR 1; DE 1) add up to 2, below the at least ${low} data subjects the logs show; correct them, or say which data subjects they leave out`
    expect(a33.open_items.map((o) => o.item)).toContain(item)
    expect(field(a33, '117')).toEqual({id: '117', label: expect.any(String), open: true, value: `FR 1; DE 1 (to be completed: ${item})`})
    const md = (await run(['report', 'article33', '--db', db])).stdout
    expect(md).not.toMatch(/\| 117 \| [^|]* \| FR 1; DE 1 \|/)

    // A figure at or above the lower bound is stated as recorded.
    const ok = await run(['incident', 'set', '--db', db, '--subjects-per-country', `FR ${low}; DE 3`])
    expect(ok.stderr).not.toMatch(/warning/)
    const after = JSON.parse((await run(['report', 'article33', '--db', db, '--format', 'json'])).stdout) as Draft33
    expect(field(after, '117')).toMatchObject({open: false, value: `FR ${low}; DE 3`})
  })
})
