import {describe, expect, it} from 'vitest'
import {editDistance, suggestCommand} from '../../src/cli/suggest.js'

const IDS = ['scope', 'scan', 'status', 'show', 'sightings', 'ingest:logs', 'ingest:canaries', 'incident:open', 'incident:set', 'report:article33', 'report:case', 'timeline', 'triage']

describe('editDistance', () => {
  it('counts a swap of two neighbours as one edit', () => {
    expect(editDistance('scpoe', 'scope')).toBe(1)
    expect(editDistance('ingets', 'ingest')).toBe(1)
    expect(editDistance('scope', 'scope')).toBe(0)
    expect(editDistance('', 'abc')).toBe(3)
    expect(editDistance('kitten', 'sitting')).toBe(3)
  })
})

describe('suggestCommand', () => {
  it.each([
    [['scpoe'], 'scope', 'scpoe'],
    [['ingets', 'logs', 'x'], 'ingest logs', 'ingets logs'],
    [['ingest', 'lgos', './logs'], 'ingest logs', 'ingest lgos'],
    [['incident', 'opne'], 'incident open', 'incident opne'],
    [['timelin'], 'timeline', 'timelin'],
    [['Scope'], 'scope', 'Scope'],
  ])('%j -> %s', (typed, command, attempt) => {
    expect(suggestCommand(typed, IDS)).toEqual({command, typed: attempt})
  })

  it('suggests nothing for a word that is no typo of any command', () => {
    expect(suggestCommand(['nonsense-command'], IDS)).toBeNull()
    expect(suggestCommand(['deploy'], IDS)).toBeNull()
  })
})
