import {afterEach, describe, expect, it} from 'vitest'
import {foreignMarkers, readForeign} from '../../src/probe/markers.js'
import {runProbe} from '../../src/probe/run-probe.js'
import {seededRng} from '../../src/util/rng.js'
import {chatAnswer, startScriptedServer, type Ask, type ScriptedServer} from '../helpers/scripted-server.js'

// QA probe report #3 and #4: an answer stopped by max_tokens inside a marker carries its first
// digits only. Read as the scan reads a log (a cut-short token is the marker it begins): a cut of
// the requester's own marker is an echo, not a leak; a cut of a marker the probe gave another
// tenant is that tenant's marker; a cut that markers of several owners share is ambiguous, and
// never a clean answer.

const OWN = 'CANARY-0123456789abcdef0123'
const T2 = 'CANARY-fedcba9876543210fedc'
const T3 = 'CANARY-fedcba98aaaaaaaaaaaa'
const cut = (marker: string, hex: number): string => marker.slice(0, 'CANARY-'.length + hex)
const owners = new Map([
  [OWN, 't1'],
  [T2, 't2'],
  [T3, 't3'],
])

describe('foreign markers cut short', () => {
  it("a prefix of the requester's own marker is no foreign marker", () => {
    expect(foreignMarkers(`you said ${cut(OWN, 10)}`, [OWN])).toEqual([])
    expect(foreignMarkers(`you said ${cut(`CANARY-${OWN.slice(7).toUpperCase()}`, 12)}`, [OWN])).toEqual([])
    // Fewer than 8 digits is no marker-shaped token; 8 are.
    expect(foreignMarkers(`you said ${cut(OWN, 8)}`, [OWN])).toEqual([])
    // Not a prefix of it: foreign.
    expect(foreignMarkers('you said CANARY-0123456789ffff', [OWN])).toEqual(['CANARY-0123456789ffff'])
  })

  it("a prefix of a marker the run gave another tenant is that marker, with its owner", () => {
    expect(readForeign(`stale ${cut(T2, 10)}`, [OWN], owners)).toEqual([{marker: T2, owners: ['t2'], ambiguous: false}])
  })

  it('a prefix shared by markers of two owners is ambiguous, and foreign', () => {
    expect(readForeign(`stale ${cut(T2, 8)}`, [OWN], owners)).toEqual([{marker: cut(T2, 8), owners: ['t2', 't3'], ambiguous: true}])
    // Shared by the requester's own marker and another's: not an echo either.
    const mine = 'CANARY-fedcba98bbbbbbbbbbbb'
    expect(readForeign(`stale ${cut(T2, 8)}`, [mine], new Map([[T2, 't2']]))).toEqual([{marker: cut(T2, 8), owners: ['t2'], ambiguous: true}])
  })
})

let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

async function probeAnswering(text: (ask: Ask) => string) {
  server = await startScriptedServer((ask) => {
    if (!ask.path.includes('completions')) return undefined
    return ask.prompt.split(/\s+/).length > 1024 ? {status: 400, json: {error: {message: "This model's maximum context length is 1024 tokens.", type: 'BadRequestError', code: 400}}} : {json: chatAnswer(text(ask))}
  })
  return runProbe({target: server.url, poolTokens: 1024, advertisedTokens: 1024, timeoutMs: 2000, rng: seededRng(8), now: () => new Date('2026-11-02T06:48:30.289Z')})
}

describe('probe against a model that echoes, cut short by max_tokens', () => {
  it("its own marker is no leak", async () => {
    const result = await probeAnswering((ask) => `Repeating: ${cut(ask.own[0]!, 10)}`)
    expect(result.checks.filter((c) => c.outcome === 'leak')).toEqual([])
    expect(result.verdict).not.toBe('fail')
  })

  it("another probe tenant's marker is a leak from that tenant, not of unknown owner", async () => {
    const result = await probeAnswering((ask) => `Stale: ${ask.foreign ? cut(ask.foreign, 10) : ''}`)
    const small = result.checks.find((c) => c.name === 'contamination.small')!
    expect(small.outcome).toBe('leak')
    expect(small.leak_flows!.length).toBeGreaterThan(0)
    expect(small.leak_flows!.some((f) => f.source_tenant === 'unknown')).toBe(false)
    expect(small.detail).not.toContain('owner unknown')
  })
})
