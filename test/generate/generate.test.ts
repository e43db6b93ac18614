import {createHash} from 'node:crypto'
import {mkdtempSync, readFileSync, readdirSync, rmSync} from 'node:fs'
import {isUtf8} from 'node:buffer'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {loadGroundTruth, scopeFromSightings, type GroundTruth} from '../../src/generate/ground-truth.js'
import {luhnValid, mod97, normWord, toDigits} from '../../src/generate/text.js'
import {decodeRequest, decodeResponse} from '../../src/extract/decode.js'
import {parseTimestamp} from '../../src/util/timestamps.js'
import {readLines, type LogRecord} from '../helpers/generated-logs.js'

const RECORDS = Number(process.env.CT_GEN_RECORDS ?? 3000)
const SEED = Number(process.env.CT_GEN_SEED ?? 1)
const tmp: string[] = []
const mk = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'ct-gen-'))
  tmp.push(d)
  return d
}
afterAll(() => {
  for (const d of tmp) rmSync(d, {recursive: true, force: true})
})

function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (rel: string): void => {
    for (const e of readdirSync(join(dir, rel), {withFileTypes: true})) {
      const r = rel ? `${rel}/${e.name}` : e.name
      if (e.isDirectory()) walk(r)
      else out[r] = createHash('sha256').update(readFileSync(join(dir, r))).digest('hex')
    }
  }
  walk('')
  return out
}

interface Loaded {
  gt: GroundTruth
  records: Map<string, LogRecord & {file: string; line: number}>
  perFile: Map<string, {lines: number; records: number; duplicates: number; bad: number; blank: number}>
  bad: {file: string; line: number; reason: string}[]
}

/** Reads the files back the way an ingester would, independently of the generator's counters. */
function load(dir: string): Loaded {
  const gt = loadGroundTruth(join(dir, 'ground-truth.json'))
  const records = new Map<string, LogRecord & {file: string; line: number}>()
  const raw = new Map<string, Buffer>()
  const perFile = new Map<string, {lines: number; records: number; duplicates: number; bad: number; blank: number}>()
  const bad: Loaded['bad'] = []
  for (const f of [...gt.files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const stats = {lines: 0, records: 0, duplicates: 0, bad: 0, blank: 0}
    perFile.set(f.path, stats)
    for (const l of readLines(dir, f.path)) {
      stats.lines++
      if (/^\s*$/.test(l.bytes.toString('latin1'))) {
        stats.blank++
        continue
      }
      const fail = (reason: string): void => {
        stats.bad++
        bad.push({file: f.path, line: l.line, reason})
      }
      if (!isUtf8(l.bytes)) {
        fail('invalid_utf8')
        continue
      }
      let v: unknown
      try {
        v = JSON.parse(l.bytes.toString('utf8'))
      } catch {
        fail(l.bytes[0] === 0x7b ? 'truncated_json' : 'not_json')
        continue
      }
      if (typeof v !== 'object' || v === null || Array.isArray(v)) {
        fail('not_object')
        continue
      }
      const rec = v as LogRecord
      if (typeof rec.session_id !== 'string') {
        fail('missing_session_id')
        continue
      }
      const prior = raw.get(rec.request_id)
      if (prior) {
        expect(prior.equals(l.bytes)).toBe(true)
        stats.duplicates++
        continue
      }
      raw.set(rec.request_id, Buffer.from(l.bytes))
      records.set(rec.request_id, {...rec, file: f.path, line: l.line})
      stats.records++
    }
  }
  return {gt, records, perFile, bad}
}

let dir: string
let L: Loaded

beforeAll(async () => {
  dir = mk()
  const result = await generateIncident({out: dir, records: RECORDS, seed: SEED})
  expect(result.records).toBe(RECORDS)
  L = load(dir)
})

describe('generate: determinism', () => {
  it('gives byte-identical files for the same seed and different files for another seed', async () => {
    const a = mk()
    const b = mk()
    const c = mk()
    await generateIncident({out: a, records: 800, seed: 42})
    await generateIncident({out: b, records: 800, seed: 42})
    await generateIncident({out: c, records: 800, seed: 43})
    const ha = hashes(a)
    // The demo ingests out/logs and out/canaries.csv; the ground truth's spool files are gone.
    expect(readdirSync(a).sort()).toEqual(['canaries.csv', 'ground-truth.json', 'logs'])
    expect(Object.keys(ha).every((f) => f === 'canaries.csv' || f === 'ground-truth.json' || /^logs\/gw-[a-z0-9]+-\d{4}-\d{2}-\d{2}\.jsonl(\.gz)?$/.test(f))).toBe(true)
    expect(Object.keys(ha).length).toBeGreaterThanOrEqual(14)
    expect(hashes(b)).toEqual(ha)
    const hc = hashes(c)
    for (const k of Object.keys(ha)) expect(hc[k]).not.toBe(ha[k])
  })

  it('refuses a non-empty directory unless forced', async () => {
    await expect(generateIncident({out: dir, records: 10, seed: 1})).rejects.toThrow(/not empty/)
  })
})

describe('generate: log hygiene matches the ground truth', () => {
  it('counts lines, records, duplicates, bad and blank lines per file', () => {
    for (const f of L.gt.files) {
      const s = L.perFile.get(f.path)!
      expect({path: f.path, lines: s.lines, records: s.records, duplicates: s.duplicates, bad_lines: s.bad, blank_lines: s.blank}).toEqual({
        path: f.path,
        lines: f.lines,
        records: f.records,
        duplicates: f.duplicates,
        bad_lines: f.bad_lines,
        blank_lines: f.blank_lines,
      })
    }
    expect(L.records.size).toBe(L.gt.totals.records)
    expect(L.gt.totals.records).toBe(RECORDS)
    expect(L.gt.totals.duplicates).toBeGreaterThan(0)
    expect(L.bad).toEqual(L.gt.bad_lines)
    expect(new Set(L.bad.map((b) => b.reason))).toEqual(new Set(['truncated_json', 'not_json', 'not_object', 'missing_session_id', 'invalid_utf8']))
  })

  it('has one gzip, one CRLF and one BOM file, and a multi-MB line', () => {
    expect(L.gt.files.filter((f) => f.gzip)).toHaveLength(1)
    expect(L.gt.files.filter((f) => f.crlf)).toHaveLength(1)
    expect(L.gt.files.filter((f) => f.bom)).toHaveLength(1)
    const crlf = L.gt.files.find((f) => f.crlf)!
    expect(readFileSync(join(dir, crlf.path), 'latin1')).toMatch(/\r\n/)
    const bom = L.gt.files.find((f) => f.bom)!
    expect([...readFileSync(join(dir, bom.path)).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    expect(L.gt.totals.blank_lines).toBeGreaterThan(0)
    const biggest = Math.max(...[...L.records.values()].map((r) => JSON.stringify(r.request).length))
    expect(biggest).toBeGreaterThan(500_000)
  })

  it('writes a canary registry with the header and every timestamp parses', () => {
    const csv = readFileSync(join(dir, 'canaries.csv'), 'utf8').trim().split('\n')
    expect(csv[0]).toBe('marker,tenant_id,session_id,issued_at')
    expect(csv.length - 1).toBe(L.gt.canaries)
    for (const r of L.records.values()) expect(() => parseTimestamp(r.ts)).not.toThrow()
  })
})

describe('generate: every request and response shape is present', () => {
  it('covers the contract shapes', () => {
    const seen = new Set<string>()
    for (const r of L.records.values()) {
      const q = r.request as unknown
      if (typeof q === 'string') seen.add('req:raw')
      else if (q && typeof q === 'object') {
        const o = q as {prompt?: unknown; messages?: {content: unknown}[]}
        if (typeof o.prompt === 'string') seen.add('req:prompt-string')
        if (Array.isArray(o.prompt)) seen.add('req:prompt-array')
        for (const m of o.messages ?? []) seen.add(typeof m.content === 'string' ? 'req:content-string' : 'req:content-parts')
      }
      const p = r.response as unknown
      if (typeof p === 'string') {
        if (p.startsWith('data:') || p.startsWith('event:')) {
          seen.add('resp:sse')
          if (p.includes('"choices":[]')) seen.add('resp:sse-choices-empty')
          if (p.includes('"choices":null')) seen.add('resp:sse-choices-null')
          if (p.includes('"error":')) seen.add('resp:sse-error-event')
          if (p.includes('text_completion')) seen.add('resp:sse-completion')
          if (!p.trimEnd().endsWith('data: [DONE]')) seen.add('resp:sse-unterminated')
        } else if (p.startsWith('{')) {
          seen.add('resp:json-string')
          if (p.includes('\\u0043ANARY-')) seen.add('resp:json-escaped-marker')
          if (p.includes('"object":"error"') || p.includes('"error":{')) seen.add('resp:error-as-string')
        } else seen.add('resp:plain-text')
      } else if (p && typeof p === 'object') {
        const o = p as {object?: string; error?: unknown; choices?: {message?: {tool_calls?: unknown}}[]}
        if (o.object === 'chat.completion') seen.add(o.choices?.[0]?.message?.tool_calls ? 'resp:tool-call' : 'resp:chat.completion')
        if (o.object === 'text_completion') seen.add('resp:text_completion')
        if (o.object === 'error') seen.add('resp:error-flat')
        if (o.error && typeof o.error === 'object') seen.add('resp:error-nested')
      }
      if (typeof r.ts === 'number') seen.add('ts:epoch')
      else if (/Z$/.test(r.ts as string)) seen.add('ts:iso-z')
      else if (/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00:00$/.test(r.ts as string)) seen.add('ts:space-micro')
      else if (/[+-]\d\d:\d\d$/.test(r.ts as string)) seen.add('ts:iso-offset')
      if (r.prompt_tokens === undefined) seen.add('tokens-from-usage')
    }
    expect([...seen].sort()).toEqual(
      [
        'req:raw', 'req:prompt-string', 'req:prompt-array', 'req:content-string', 'req:content-parts',
        'resp:sse', 'resp:sse-choices-empty', 'resp:sse-choices-null', 'resp:sse-error-event', 'resp:sse-completion',
        'resp:json-string', 'resp:json-escaped-marker', 'resp:error-as-string', 'resp:plain-text',
        'resp:tool-call', 'resp:chat.completion', 'resp:text_completion', 'resp:error-flat', 'resp:error-nested',
        'ts:epoch', 'ts:iso-z', 'ts:iso-offset', 'ts:space-micro', 'tokens-from-usage',
      ].sort(),
    )
  })
})

describe('generate: ground truth agrees with the files', () => {
  it('lists exactly the sightings a reference extraction finds in the decoded responses', () => {
    const csv = readFileSync(join(dir, 'canaries.csv'), 'utf8').trim().split('\n').slice(1)
    const reg = new Map<string, {marker: string; tenant: string; session: string}>()
    const words: string[] = []
    const key = (m: string): string => (m.startsWith('CANARY-') ? `CANARY-${m.slice(7).toLowerCase()}` : m)
    for (const line of csv) {
      const [marker, tenant, session] = line.split(',') as [string, string, string]
      reg.set(key(marker), {marker, tenant, session})
      if (!marker.startsWith('CANARY-')) words.push(marker)
    }
    const found: string[] = []
    for (const r of L.records.values()) {
      const text = decodeResponse(r.response).text
      const prompt = decodeRequest(r.request) ?? ''
      const promptKeys = new Set([...(prompt.match(/CANARY-[0-9a-fA-F]{8,}/g) ?? []).map(key), ...words.filter((w) => prompt.includes(w))])
      const perRecord = new Map<string, string>()
      const classify = (k: string, token: string, partial: boolean): void => {
        const hit = reg.get(k)
        let cls: string
        let marker = token
        let src: [string | null, string | null] = [null, null]
        if (!hit) cls = 'orphan'
        else {
          marker = hit.marker
          src = [hit.session, hit.tenant]
          cls = hit.session === r.session_id ? 'own' : promptKeys.has(k) ? 'echo' : hit.tenant === r.tenant_id ? 'cross_session' : 'cross_tenant'
        }
        if (!perRecord.has(marker)) perRecord.set(marker, JSON.stringify([r.request_id, cls, marker, partial, r.session_id, r.tenant_id, ...src]))
      }
      for (const token of text.match(/CANARY-[0-9a-fA-F]{8,}/g) ?? []) {
        const k = key(token)
        if (reg.has(k) || k.length - 7 < 16) classify(k, token, false)
        else {
          const longer = [...reg.keys()].filter((x) => x.startsWith(k) && x !== k).sort()
          const owners = [...new Set(longer.map((x) => JSON.stringify([reg.get(x)!.tenant, reg.get(x)!.session])))].map((o) => JSON.parse(o) as [string, string])
          if (owners.length === 1) classify(longer[0]!, token, true)
          else if (owners.length === 0 || owners.some(([t, s]) => t === r.tenant_id && s === r.session_id)) classify(k, token, false)
          else {
            // cut short of markers of several sessions, none the recipient's: contamination (or an
            // echo), of the least severe class, naming no session (a tenant only where all agree)
            const tenants = new Set(owners.map(([t]) => t))
            const cls = promptKeys.has(k) || [...promptKeys].some((p) => p.startsWith(k)) ? 'echo' : tenants.has(r.tenant_id) ? 'cross_session' : 'cross_tenant'
            if (!perRecord.has(token)) perRecord.set(token, JSON.stringify([r.request_id, cls, token, true, r.session_id, r.tenant_id, null, tenants.size === 1 ? owners[0]![0] : null]))
          }
        }
      }
      for (const w of words) if (text.includes(w)) classify(w, w, false)
      found.push(...perRecord.values())
    }
    const expected = L.gt.sightings.map((s) => JSON.stringify([s.request_id, s.class, s.marker, s.partial, s.recipient_session, s.recipient_tenant, s.source_session, s.source_tenant]))
    expect(found.sort()).toEqual(expected.sort())

    const classes = new Set(L.gt.sightings.map((s) => s.class))
    expect(classes).toEqual(new Set(['own', 'echo', 'cross_session', 'cross_tenant', 'orphan']))
    expect(L.gt.sightings.some((s) => s.partial)).toBe(true)
    expect(L.gt.sightings.some((s) => s.class.startsWith('cross') && !s.marker.startsWith('CANARY-'))).toBe(true)
    for (const n of L.gt.non_sightings) expect(decodeResponse(L.records.get(n.request_id)!.response).text).toContain(n.text)
  })

  it('attributes every provenance entry to one earlier text of another session, with the exact overlap', () => {
    expect(L.gt.provenance.length).toBeGreaterThan(10)
    expect(L.gt.provenance.some((p) => p.matched === 'response')).toBe(true)
    expect(L.gt.provenance.some((p) => !L.gt.contaminated_request_ids.includes(p.request_id))).toBe(true)
    const toks = (t: string): string[] => t.split(/\s+/).map(normWord).filter(Boolean)
    for (const p of L.gt.provenance) {
      const rec = L.records.get(p.request_id)!
      const src = L.records.get(p.source_request_id)!
      expect(src.session_id).toBe(p.source_session)
      expect(src.tenant_id).toBe(p.source_tenant)
      expect(src.session_id).not.toBe(rec.session_id)
      expect(parseTimestamp(src.ts).ms).toBeLessThan(parseTimestamp(rec.ts).ms)
      const a = toks(decodeResponse(rec.response).text)
      const b = toks(p.matched === 'prompt' ? (decodeRequest(src.request) ?? '') : decodeResponse(src.response).text)
      expect(longestRun(a, b)).toBe(p.overlap_words)
      expect(p.overlap_words).toBeGreaterThanOrEqual(12)
    }
  })

  it('lists every stale-page leak, with the verbatim span length, and the truly exposed sessions', () => {
    const toks = (t: string): string[] => t.split(/\s+/).map(normWord).filter(Boolean)
    const leaks = L.gt.leaks
    expect(new Set(leaks.map((l) => l.request_id)).size).toBe(leaks.length)
    for (const l of leaks) {
      const rec = L.records.get(l.request_id)!
      const src = L.records.get(l.source_request_id)!
      expect(rec.status).toBe(200)
      expect(src.session_id).toBe(l.source_session)
      expect(src.tenant_id).toBe(l.source_tenant)
      expect(src.session_id).not.toBe(rec.session_id)
      expect(parseTimestamp(src.ts).ms).toBeLessThan(parseTimestamp(rec.ts).ms)
      const text = decodeResponse(rec.response).text
      if (l.words === 0) {
        expect(l.with_marker).toBe(true)
        continue
      }
      const srcText = decodeRequest(src.request) ?? ''
      const a = toks(text)
      const b = toks(srcText)
      const c = toks(decodeResponse(src.response).text)
      expect(Math.max(longestRun(a, b), longestRun(a, c))).toBeGreaterThanOrEqual(l.words)
    }
    // Marker-less spans exist (only provenance can see them), as do short and truncated marker spans.
    expect(leaks.some((l) => l.words >= 12 && !l.with_marker)).toBe(true)
    expect(leaks.some((l) => l.words > 0 && l.words < 12 && l.with_marker)).toBe(true)
    expect(leaks.some((l) => l.words === 0)).toBe(true)
    const key = (r: {request_id: string; source_request_id: string}): string => `${r.request_id}>${r.source_request_id}`
    const leakKeys = new Set(leaks.map(key))
    for (const p of L.gt.provenance) expect(leakKeys.has(key(p))).toBe(true)
    const byRequest = new Map(leaks.map((l) => [l.request_id, l]))
    // A token cut short of markers of several sessions (the generator's ambiguous prefix, no leak
    // of a stale page) is contamination by the rule, naming no session: it is no leak of the list.
    const cross = L.gt.sightings.filter((s) => (s.class === 'cross_session' || s.class === 'cross_tenant') && s.source_session !== null)
    for (const s of cross) {
      const l = byRequest.get(s.request_id)!
      expect(l.with_marker).toBe(true)
      expect(l.source_session).toBe(s.source_session)
    }
    expect(new Set(cross.map((s) => s.request_id)).size).toBe(leaks.filter((l) => l.with_marker).length)
    expect(L.gt.true_exposed_session_ids).toEqual([...new Set(leaks.map((l) => l.source_session))].sort())
    for (const id of L.gt.exposed_session_ids) expect(L.gt.true_exposed_session_ids).toContain(id)
    expect(L.gt.true_exposed_session_ids.length).toBeGreaterThan(L.gt.exposed_session_ids.length)
  })

  it('carries valid PII from the source prompt into the leaked response', () => {
    expect(L.gt.pii.length).toBeGreaterThan(0)
    for (const x of L.gt.pii) {
      expect(decodeResponse(L.records.get(x.request_id)!.response).text).toContain(x.value)
      expect(decodeRequest(L.records.get(x.source_request_id)!.request)).toContain(x.value)
      if (x.kind === 'card') expect(luhnValid(x.value)).toBe(true)
      if (x.kind === 'iban') expect(mod97(toDigits(x.value.slice(4) + x.value.slice(0, 4)))).toBe(1)
    }
  })

  it('computes the scope from its own sightings, with at-risk responses counted from the records', () => {
    const ts = (id: string): number => parseTimestamp(L.records.get(id)!.ts).ms
    let atRisk = 0
    for (const r of L.records.values()) {
      const usage = (decodeResponse(r.response).promptTokens ?? null) as number | null
      const tokens = typeof r.prompt_tokens === 'number' ? r.prompt_tokens : usage
      if (r.status === 200 && tokens !== null && tokens >= L.gt.params.pool_tokens) atRisk++
    }
    expect(L.gt.scope).toEqual(scopeFromSightings(L.gt.sightings, ts, atRisk))
    expect(L.gt.scope.contaminated_responses).toBe(L.gt.contaminated_request_ids.length)
    expect(L.gt.scope.cross_session_responses).toBeGreaterThan(0)
    expect(L.gt.exposed_session_ids.length).toBe(L.gt.scope.exposed_sessions)
    for (const b of L.gt.boilerplate) expect(b.tenants).toBeGreaterThanOrEqual(3)
  })
})

function longestRun(a: string[], b: string[]): number {
  let best = 0
  let prev = new Uint16Array(b.length + 1)
  for (let i = 1; i <= a.length; i++) {
    const cur = new Uint16Array(b.length + 1)
    for (let j = 1; j <= b.length; j++) {
      if (a[i - 1] === b[j - 1]) {
        cur[j] = prev[j - 1]! + 1
        if (cur[j]! > best) best = cur[j]!
      }
    }
    prev = cur
  }
  return best
}
