import {join} from 'node:path'
import {beforeAll, describe, expect, inject, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {BATCH_CUSTOM_ID_PATTERN, convertIncident, type ConvertedIncident} from '../helpers/convert-formats.js'

// Issue 15, acceptance: the shared generated incident, written in each of the five formats by
// the independent converters (test/helpers/convert-formats.ts, no code shared with src/), goes
// through the real `triage` (ingest with --log-format auto, scan, scope): every format gives the
// same sightings (request id, class, source) and the same `scope --json` as the native logs,
// except what the format cannot carry, which the test names:
// - Langfuse and LiteLLM record no serving node: by_node is one row of unknown node;
// - OpenAI Batch times are `created`, epoch seconds: times agree to the second, and provenance
//   ("who sent it first") cannot order two texts of the same second.

interface Sighting {
  request_id: string
  class: string
  marker: string
  source_session: string | null
  source_tenant: string | null
  recipient_session: string
  recipient_tenant: string
}
type Scope = Record<string, unknown> & {by_node: Array<{decode_node: string | null; contaminated_responses: number}>; unknown_fields: Record<string, number>; at_risk_unknown_records: number | null}

const CONTRACT_KEYS = ['contaminated_responses', 'cross_tenant_responses', 'cross_session_responses', 'exposed_sessions', 'exposed_tenants', 'recipient_tenants', 'first_seen', 'last_seen', 'at_risk_responses', 'flows']

let converted: ConvertedIncident
let native: {sightings: string[]; scope: Scope}

async function triage(args: string[]): Promise<{sightings: string[]; scope: Scope; formats: Record<string, number>}> {
  const incident = inject('incident')
  const db = join(tempDir(), 'case.db')
  const out = await runJson<{ingest: {formats: Record<string, number>}}>(['triage', ...args, '--canaries', incident.canaries, '--db', db])
  const sightings = (await runJson<Sighting[]>(['sightings', '--db', db])).map((s) => JSON.stringify([s.request_id, s.class, s.marker, s.source_tenant, s.source_session, s.recipient_tenant, s.recipient_session])).sort()
  const scope = await runJson<Scope>(['scope', '--db', db])
  return {sightings, scope, formats: out.ingest.formats}
}

/** The scope without what depends on when the scan ran. */
function comparable(scope: Scope, drop: readonly string[] = []): Record<string, unknown> {
  // What could not be read differs by design: the converters carry over no bad line of the native logs.
  const {detection: _d, not_read: _n, ...rest} = scope as Scope & {not_read?: unknown}
  for (const k of drop) delete (rest as Record<string, unknown>)[k]
  return rest
}

beforeAll(async () => {
  const incident = inject('incident')
  converted = convertIncident(incident.logs, join(tempDir(), 'converted'))
  native = await triage([incident.logs])
  // The comparison covers an incident with leaks of both kinds, not an empty one.
  expect(native.sightings.filter((s) => s.includes('"cross_tenant"')).length).toBeGreaterThan(5)
  expect(native.sightings.filter((s) => s.includes('"cross_session"')).length).toBeGreaterThan(2)
}, 300_000)

describe('the same incident in all five formats gives the same sightings and scope (through ingest, scan, scope)', () => {
  it('otel: traces and logs files, spans batched several a line', async () => {
    const got = await triage([converted.otel.traces, converted.otel.logs])
    expect(got.formats).toEqual({otel: 2})
    expect(got.sightings).toEqual(native.sightings)
    // Spans say their HTTP status only when the instrumentation records it (two of the
    // converter's five forms): the others are unknown, and counted as such.
    expect(comparable(got.scope, ['unknown_fields'])).toEqual(comparable(native.scope, ['unknown_fields']))
    expect(got.scope.unknown_fields.status).toBeGreaterThan(1000)
  })

  it('langfuse: observation export (API v2 and blob rows)', async () => {
    const got = await triage([converted.langfuse])
    expect(got.formats).toEqual({langfuse: 1})
    expect(got.sightings).toEqual(native.sightings)
    expect(comparable(got.scope, ['by_node', 'unknown_fields'])).toEqual(comparable(native.scope, ['by_node', 'unknown_fields']))
    // No node in Langfuse: every contaminated response sits on the unknown node, and says so.
    expect(got.scope.by_node.map((n) => n.decode_node)).toEqual([null])
    expect(got.scope.by_node[0]!.contaminated_responses).toBe(native.scope.contaminated_responses)
    expect(got.scope.unknown_fields.decode_node).toBeGreaterThan(2000)
  })

  it('litellm: zone-less spend logs read with --assume-tz UTC', async () => {
    const got = await triage([converted.litellm, '--assume-tz', 'UTC'])
    expect(got.formats).toEqual({litellm: 1})
    expect(got.sightings).toEqual(native.sightings)
    expect(comparable(got.scope, ['by_node', 'unknown_fields'])).toEqual(comparable(native.scope, ['by_node', 'unknown_fields']))
    expect(got.scope.unknown_fields).toMatchObject({status: expect.any(Number), decode_node: expect.any(Number)})
    expect(got.scope.unknown_fields.status).toBeGreaterThan(2000)
  })

  it('openai-batch: input, output and error files joined by custom_id', async () => {
    const got = await triage([converted.batch.input, converted.batch.output, converted.batch.errors, '--custom-id-pattern', BATCH_CUSTOM_ID_PATTERN, '--batch-ts', '2026-11-03T00:00:00Z'])
    expect(got.formats).toEqual({'openai-batch': 3})
    expect(got.sightings).toEqual(native.sightings)
    const toSecond = (v: unknown) => (typeof v === 'string' ? v.replace(/\.\d{3}Z$/, '.000Z') : v)
    for (const key of CONTRACT_KEYS) expect([key, toSecond(got.scope[key])]).toEqual([key, toSecond(native.scope[key])])
  })

})

describe('missing is unknown, not zero (issue 15)', () => {
  it('LiteLLM has no HTTP status: the at-risk count is unknown, with the records concerned, in scope and status', async () => {
    const db = join(tempDir(), 'case.db')
    await runJson(['triage', converted.litellm, '--assume-tz', 'UTC', '--canaries', inject('incident').canaries, '--db', db, '--pool-tokens', '4000'])
    const scope = await runJson<Scope>(['scope', '--db', db])
    const status = await runJson<{records: number; unknown_fields: {status: number; at_risk: number}}>(['status', '--db', db])
    expect(scope.at_risk_responses).toBeNull()
    expect(scope.at_risk_unknown_records).toBe(status.records)
    expect(status.unknown_fields).toMatchObject({status: status.records, at_risk: status.records})
    const text = await run(['scope', '--db', db])
    expect(text.stdout).toMatch(new RegExp(`at-risk responses\\s+unknown \\(${status.records} records whose status or prompt size is not recorded\\)`))
  })
})
