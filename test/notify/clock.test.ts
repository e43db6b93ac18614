import {describe, expect, it} from 'vitest'
import {clockJson, computeCaseClock, computeClock} from '../../src/notify/clock.js'
import {renderClock} from '../../src/cli/render-clock.js'
import {formatInZone, parseInstant} from '../../src/notify/time.js'

const at = (s: string): Date => parseInstant(s, 'test')

describe('computeClock', () => {
  it('counts 72 elapsed hours across the end of summer time (contract acceptance)', () => {
    const c = computeClock(at('2026-10-23T10:00:00+02:00'), at('2026-10-25T12:00:00+01:00'))
    expect(c.aware_at).toBe('2026-10-23T08:00:00.000Z')
    expect(c.deadline).toBe('2026-10-26T08:00:00.000Z')
    // 2026-10-25T12:00+01:00 is 11:00Z: 21 h before 08:00Z next day.
    expect(c.remaining_seconds).toBe(21 * 3600)
    expect(c.status).toBe('due_soon')
    // In Paris the deadline is 09:00 local, not 10:00: the lost DST hour is not given back.
    expect(formatInZone(new Date(c.deadline!), 'Europe/Paris')).toMatch(/^2026-10-26 09:00:00 GMT\+1/)
  })

  it('counts across the start of summer time too (spring forward)', () => {
    const c = computeClock(at('2026-03-28T12:00:00+01:00'), at('2026-03-28T12:00:00+01:00'))
    expect(c.deadline).toBe('2026-03-31T11:00:00.000Z')
    expect(formatInZone(new Date(c.deadline!), 'Europe/Berlin')).toMatch(/^2026-03-31 13:00:00 GMT\+2/)
    expect(c.remaining_seconds).toBe(72 * 3600)
  })

  it('never extends over a weekend (Friday 09:00 -> Monday 09:00)', () => {
    expect(computeClock(at('2026-11-06T09:00:00Z'), at('2026-11-06T09:00:00Z')).deadline).toBe('2026-11-09T09:00:00.000Z')
  })

  it('is open at exactly 24 h left, due_soon one millisecond later, overdue after the deadline', () => {
    const aware = at('2026-10-23T08:00:00Z')
    expect(computeClock(aware, at('2026-10-25T08:00:00Z')).status).toBe('open')
    expect(computeClock(aware, at('2026-10-25T08:00:00Z')).remaining_seconds).toBe(86400)
    expect(computeClock(aware, new Date(Date.parse('2026-10-25T08:00:00Z') + 1)).status).toBe('due_soon')
    expect(computeClock(aware, at('2026-10-26T08:00:00Z')).status).toBe('due_soon')
    const late = computeClock(aware, at('2026-10-26T09:30:00Z'))
    expect(late.status).toBe('overdue')
    expect(late.remaining_seconds).toBe(-5400)
  })

  it('says notified once an initial notification exists, even after the deadline', () => {
    const c = computeClock(at('2026-10-23T08:00:00Z'), at('2026-10-30T08:00:00Z'), at('2026-10-24T08:00:00Z'))
    expect(c.status).toBe('notified')
    expect(c.notified_at).toBe('2026-10-24T08:00:00.000Z')
  })

  it('refuses a zone-less awareness time', () => {
    expect(() => parseInstant('2026-10-23T10:00:00', '--aware-at')).toThrow(/no time zone/)
  })

  // RFC 3339's lower-case t and z, ` UTC`, and an RFC 9557 [zone] after an offset each state the zone.
  it('reads every form of a time that states its zone, and refuses others for their true cause', () => {
    expect(parseInstant('2026-10-24t07:30:00z', '--aware-at').toISOString()).toBe('2026-10-24T07:30:00.000Z')
    expect(parseInstant('2026-10-24 07:30:00 UTC', '--aware-at').toISOString()).toBe('2026-10-24T07:30:00.000Z')
    expect(parseInstant('2026-10-24 07:30:00.5 UTC', '--aware-at').toISOString()).toBe('2026-10-24T07:30:00.500Z')
    expect(parseInstant('2026-10-24T09:30:00+02:00[Europe/Paris]', '--aware-at').toISOString()).toBe('2026-10-24T07:30:00.000Z')
    expect(() => parseInstant('2026-10-24t07:30:00', '--aware-at')).toThrow(/has no time zone/)
    // A zone it does not read is not called missing.
    expect(() => parseInstant('2026-10-24 07:30:00 CET', '--aware-at')).toThrow(/^--aware-at: "2026-10-24 07:30:00 CET" is not a time in a form crosstalk reads; give ISO 8601/)
    expect(() => parseInstant('2026-10-24T07:30:00[Europe/Paris]', '--aware-at')).toThrow(/^--aware-at: timestamp .* gives a \[zone\] with no offset before it/)
    for (const bad of ['2026-10-24 07:30:00 CET', '2026-10-24T07:30:00[Europe/Paris]']) expect(() => parseInstant(bad, '--aware-at')).not.toThrow(/no time zone/)
  })
})

describe('a processor\'s late flag says unknown where it cannot be known', () => {
  const incident = {role: 'processor' as const, aware_at: '2026-10-23T08:00:00.000Z', controller_deadline_hours: 24}
  it('is null past a contractual deadline while no controller is known yet, false before it', () => {
    expect(computeCaseClock(incident, [], new Date('2026-10-25T08:00:00Z'), [], false).late).toBeNull()
    // Known to be none (detection covered the case): nothing is owed, so nothing is late.
    expect(computeCaseClock(incident, [], new Date('2026-10-25T08:00:00Z'), []).late).toBe(false)
    expect(computeCaseClock(incident, [], new Date('2026-10-23T09:00:00Z'), []).late).toBe(false)
    expect(computeCaseClock(incident, [], new Date('2026-10-25T08:00:00Z'), ['acme']).late).toBe(true)
  })
  // QA life 03: every controller notified in time, then evidence dropped: none is affected now, each
  // earlier notice is owed a correction. The clock said OVERDUE with late not known.
  it('judges the notices sent when none is affected now and corrections are owed: in time, not overdue', () => {
    const sent = [{phase: 'initial' as const, at: '2026-10-23T12:00:00Z', recipient: 'acme'}, {phase: 'initial' as const, at: '2026-10-23T13:00:00Z', recipient: 'beta'}]
    const owed = [{tenant_id: 'acme', notified_at: '2026-10-23T12:00:00.000Z'}, {tenant_id: 'beta', notified_at: '2026-10-23T13:00:00.000Z'}]
    const c = computeCaseClock(incident, sent, new Date('2026-10-25T08:00:00Z'), [], true, 'detection', 0, owed)
    expect(c).toMatchObject({status: 'notified', late: false, notified_at: '2026-10-23T13:00:00.000Z', controllers_known: true, corrections_owed: owed})
    // a notice sent after the deadline stays late
    const lateOwed = [{tenant_id: 'acme', notified_at: '2026-10-24T12:00:00.000Z'}]
    const l = computeCaseClock(incident, [{phase: 'initial', at: '2026-10-24T12:00:00Z', recipient: 'acme'}], new Date('2026-10-25T08:00:00Z'), [], true, 'detection', 0, lateOwed)
    expect(l).toMatchObject({status: 'notified', late: true})
  })
  it('is null with no fixed deadline (without undue delay)', () => {
    const undue = computeCaseClock({...incident, controller_deadline_hours: null}, [{phase: 'initial', at: '2026-10-30T08:00:00Z', recipient: 'acme'}], new Date('2026-11-01T00:00:00Z'), ['acme'])
    expect(undue.late).toBeNull()
    expect(undue.controllers![0]!.late).toBeNull()
    expect(computeClock(new Date('2026-10-23T08:00:00Z'), new Date('2026-11-01T00:00:00Z'), null, null).late).toBeNull()
  })
})

// QA repro 6: every controller of the exposure notified, then new logs ingested and not scanned:
// the clock said "notified (in time)", "2 of 2 notified", and after the scan "2 of 8, some LATE".
describe("a processor's clock while detection does not cover the case", () => {
  const incident = {role: 'processor' as const, aware_at: '2026-11-02T09:00:00Z', controller_deadline_hours: 24}
  const sent = ['acme', 'bright'].map((recipient) => ({phase: 'initial' as const, at: '2026-11-02T10:00:00Z', recipient}))

  it('is never "notified" and says the number of controllers to notify is not known', () => {
    const before = new Date('2026-11-02T12:00:00Z')
    const whole = computeCaseClock(incident, sent, before, ['acme', 'bright'], true)
    expect(whole).toMatchObject({status: 'notified', late: false, controllers_known: true})
    const partial = computeCaseClock(incident, sent, before, ['acme', 'bright'], false)
    expect(partial.status).not.toBe('notified')
    expect(partial.controllers_known).toBe(false)
    // before the deadline nobody is late; after it, a controller not yet found may be: not known
    expect(partial.late).toBe(false)
    expect(computeCaseClock(incident, sent, new Date('2026-11-04T12:00:00Z'), ['acme', 'bright'], false).late).toBeNull()
    const text = renderClock(partial, 'UTC')
    expect(text).not.toMatch(/2 of 2 notified/)
    expect(text).toMatch(/Controllers \(Art\. 33\(2\)\): 2 notified; how many are to be notified is not known yet: detection is incomplete/)
    expect(clockJson(partial, before).duty_status).not.toBe('notified')
  })
})
