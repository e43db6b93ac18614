import {describe, expect, it} from 'vitest'
import {article33JsonSchema} from '../../src/notify/article33-schema.js'
import {replayFacts} from '../../src/notify/facts.js'
import {PHRASES} from '../../src/notify/phrases.js'

// QA probe report (hostile servers), defects 5 and 6: a replay group's figures say what is not
// known. No trial judged: the rate is null (never 0). Triggers that hung or errored are counted
// and said in the draft's sentence, as the console says them.

type Stored = Parameters<typeof replayFacts>[0][number]
function stored(over: Partial<Record<string, unknown>>): Stored {
  return {
    run_id: 1, request_id: 'req-a', trials: 1, reproduced: 0, rejected: 0, hung: 0, errors: 0, verdict: 'not_reproduced', rate: 0, wilson_low: 0, wilson_high: 0.79,
    no_text: 0, incomplete: 0, primer_leaks: 0, other_markers: 0, other_owners: [], unprimed: 0, interrupted: 0, scaling: 'as_recorded',
    started_at: '2026-11-02T07:00:00.000Z', finished_at: '2026-11-02T07:01:00.000Z', target: 'http://127.0.0.1:9/', model: 'm', target_kind: 'external', target_version: null, purpose: 'confirmation',
    ...over,
  } as unknown as Stored
}

describe('replay group rate when no trial was judged (QA probe #5)', () => {
  it('is null, and the Article 33 schema takes null', () => {
    const g = replayFacts([stored({trials: 0, verdict: 'inconclusive', rate: null, no_text: 3})])!.groups[0]!
    expect(g.trials).toBe(0)
    expect(g.rate).toBeNull()
    const schema = article33JsonSchema.shape.replay.unwrap().shape.groups.element.shape.rate
    expect(schema.safeParse(null).success).toBe(true)
  })

  it('is reproduced / trials where trials were judged', () => {
    expect(replayFacts([stored({trials: 2, reproduced: 1, verdict: 'confirmed'})])!.groups[0]!.rate).toBe(0.5)
  })
})

describe('replay triggers that hung or errored (QA probe #6)', () => {
  it('are counted in the group and said in the draft, en and fr', () => {
    const g = replayFacts([stored({trials: 5, errors: 4})])!.groups[0]!
    expect(g.trials).toBe(1)
    expect(g.hung_or_errored_trials).toBe(4)
    expect(PHRASES.en.replayGroup(g)).toContain('4 trials hung or errored and could not be judged')
    expect(PHRASES.fr.replayGroup(g)).toContain('4 essais sont restés sans réponse ou en erreur et n\'ont pas pu être jugés')
  })

  it('none: nothing said', () => {
    const g = replayFacts([stored({trials: 1})])!.groups[0]!
    expect(g.hung_or_errored_trials).toBe(0)
    expect(PHRASES.en.replayGroup(g)).not.toContain('hung or errored')
  })
})
