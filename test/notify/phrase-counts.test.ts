import {describe, expect, it} from 'vitest'
import type {ReplayTargetFacts} from '../../src/notify/facts.js'
import {EN, type Phrases} from '../../src/notify/phrases-en.js'
import {FR} from '../../src/notify/phrases-fr.js'
import type {Exposure} from '../../src/scope/exposure.js'
import {compte, count} from '../../src/util/plural.js'

// Drafts go to a supervisory authority and notices to customers: a count agrees with its noun
// (and, in French, with its verb and participles), never "file(s)" or "1 responses".

const exposure = (n: number): Exposure => ({responses: n, by_canary: n, by_text_only: n, sessions: n, source_tenants: n, recipient_tenants: n, flows: []})
const replay = (n: number): ReplayTargetFacts => ({
  target: 'http://127.0.0.1:8000', target_kind: 'simulator', target_version: '1', model: 'm', purpose: 'confirmation', run_ids: [1],
  first_at: '2026-11-01T00:00:00Z', last_at: '2026-11-01T00:00:00Z', records: n, confirmed: n, not_reproduced: n, rejected: n, inconclusive: n,
  trials: n, unjudged_trials: n, reproduced: n, rate: 1, wilson_low: 0.5, wilson_high: 1, original_prompt: false, interrupted: false,
})

/** Every sentence of a table that carries a count, with every count set to n. */
function sentences(P: Phrases, n: number): string[] {
  const notice = {responses: n, by_canary: n, by_text_only: n, sessions: n, ownSessions: n, otherSessions: n, others: n, first: null, last: null, canaries: true}
  return [
    P.exposure(exposure(n), '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z'),
    P.exposureCrossTenant(n),
    P.investigation(n, n, n),
    P.investigation(n, n, n, {records: n, files: n}),
    P.notice.identified(n, n, 0, true, {records: n, files: n}),
    P.replayGroup(replay(n)),
    P.a34.whatHappened(exposure(n), n),
    P.notice.leaked(notice),
    P.notice.received(notice),
    P.controllerExposure.leaked(notice),
    P.controllerExposure.received(notice),
    P.notice.identified(n, n, 0),
    P.notice.identified(n, n, n),
    P.open.detectionIncomplete(n),
    P.open.controllerNotices(n),
  ]
}

describe('counts in drafts and notices', () => {
  it('never hedge a plural with "(s)", in either language, at 0, 1, 2 or 12', () => {
    for (const P of [EN, FR]) for (const n of [0, 1, 2, 12]) for (const s of sentences(P, n)) expect(s, s).not.toContain('(s)')
  })

  it('English: one takes the singular, noun and verb', () => {
    const one = sentences(EN, 1).join('\n')
    expect(one).not.toMatch(/\b1 (responses|sessions|customers|receiving customers|other customers|log files|canary registry files|distinct affected requests|trials|conversations|controllers)\b/)
    expect(one).toContain('1 response carried data belonging to another session')
    expect(one).toContain('The data of 1 session of 1 customer reached 1 receiving customer')
    expect(one).toContain('1 of these responses was served')
    expect(one).toContain('1 distinct affected request was replayed')
    expect(one).toContain('(at least 1 conversation was affected: those the logs show; there may be more)')
    expect(one).toContain('received in 1 other session of yours and in 1 session of 1 other customer.')
    expect(one).toContain('from 1 other session of yours and from 1 session of 1 other customer.')
    expect(one).toContain("1 response to other sessions carried data of 1 session of this controller's end users (1 with its canary marker, 1 by verbatim text only), received in 1 other session of its own and in 1 session of 1 other customer.")
    expect(one).toContain("1 response served to this controller's end users carried another session's data (1 with a canary marker, 1 by verbatim text only), in 1 session of theirs, from 1 other session of its own and from 1 session of 1 other customer.")
    expect(one).toContain('the notice to 1 affected controller, not yet recorded')
    const two = sentences(EN, 2).join('\n')
    expect(two).toContain('The data of 2 sessions of 2 customers reached 2 receiving customers')
    expect(two).toContain('2 distinct affected requests were replayed')
    expect(two).toContain('(2 responses in 2 log files)')
  })

  it('French: zero and one take the singular, with the verb and participles agreeing', () => {
    for (const n of [0, 1]) {
      const s = sentences(FR, n).join('\n')
      expect(s).toContain(`${n} réponse contenait des données d'une autre session`)
      expect(s).toContain(`${n} requête concernée distincte a été rejouée`)
      expect(s).toContain(`au moins ${n} conversation est concernée`)
      // The open item of an incomplete detection counts unscanned files only where there are some.
      if (n === 0) expect(s).not.toContain('0 fichier de journaux non analysé')
      else expect(s).toContain(`${n} fichier de journaux non analysé ;`)
      expect(s).toContain(`notification à ${n} responsable de traitement concerné, non encore enregistrée`)
    }
    const s = sentences(FR, 2).join('\n')
    expect(s).toContain('2 réponses contenaient des données')
    expect(s).toContain('2 requêtes concernées distinctes ont été rejouées')
    expect(s).toContain('reçues dans 2 autres de vos sessions et dans 2 sessions de 2 autres clients')
    expect(s).toContain('provenant de 2 autres de vos sessions et de 2 sessions de 2 autres clients')
    expect(s).toContain('2 fichiers de journaux non analysés ;')
  })

  it('a notice counts a customer\'s own other sessions apart from other customers, and names only the sides there are', () => {
    const n = {responses: 5, by_canary: 5, by_text_only: 0, sessions: 2, first: null, last: null, canaries: true}
    expect(EN.notice.leaked({...n, ownSessions: 3, otherSessions: 0, others: 0})).toContain('received in 3 other sessions of yours.')
    expect(EN.notice.leaked({...n, ownSessions: 0, otherSessions: 4, others: 2})).toContain('received in 4 sessions of 2 other customers.')
    expect(EN.notice.received({...n, ownSessions: 2, otherSessions: 0, others: 0})).toContain('from 2 other sessions of yours.')
    expect(FR.notice.received({...n, ownSessions: 0, otherSessions: 1, others: 1})).toContain('provenant de 1 session de 1 autre client.')
    expect(FR.notice.leaked({...n, ownSessions: 1, otherSessions: 0, others: 0})).toContain('reçues dans 1 autre de vos sessions.')
  })

  it('the helpers: English singular for one only, French for zero and one', () => {
    expect([0, 1, 2].map((n) => count(n, 'entry', 'entries'))).toEqual(['0 entries', '1 entry', '2 entries'])
    expect([0, 1, 2].map((n) => compte(n, 'journal', 'journaux'))).toEqual(['0 journal', '1 journal', '2 journaux'])
  })
})
