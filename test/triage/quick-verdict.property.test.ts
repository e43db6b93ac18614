import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import fc from 'fast-check'
import {afterAll, describe, expect, it} from 'vitest'
import {openCase} from '../../src/store/open-case.js'
import {runTriage, type TriageVerdict} from '../../src/triage/run-triage.js'

// Issue 18: the quick verdict (a markers-only pass before ingest) must be the verdict the scan
// reaches after ingest, exactly: every figure, every flow, what could not be read. Property:
// on random files of hostile lines (markers in every form the scan reads: upper and lower case
// hex, partial, split across SSE chunks, written with JSON escapes, echoed from the prompt, a
// registered marker outside the convention; duplicates whose first copy has no marker; bad,
// blank and over-long lines; a byte-order mark; gzip), the quick pass runs and the scan agrees.

const SEED = 180_018
const dir = mkdtempSync(join(tmpdir(), 'ct-quick-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const SESSIONS = [
  {tenant: 'ta', session: 'a1', marker: 'CANARY-aaaa1111aaaa1111aaaa'},
  {tenant: 'ta', session: 'a2', marker: 'CANARY-aaaa2222aaaa2222aaaa'},
  {tenant: 'tb', session: 'b1', marker: 'CANARY-bbbb1111bbbb1111bbbb'},
  {tenant: 'tc', session: 'c1', marker: 'ZEBRA-TOKEN-C1'},
]

const session = fc.constantFrom(...SESSIONS)
/** How a marker appears in an answer (the scan must read each the same in both passes). */
const form = fc.constantFrom('plain', 'lower', 'partial', 'prefix-lower', 'orphan', 'none', 'wrapped', 'json-escape', 'html', 'percent')
const shape = fc.constantFrom('chat', 'sse-split', 'text', 'escaped')

const goodLine = fc.record({from: session, to: session, form, shape, echo: fc.boolean(), minute: fc.integer({min: 0, max: 59})}).map((g) => (requestId: string): string => {
  const m = g.from.marker
  const shown =
    g.form === 'none' ? 'nothing here'
      : g.form === 'orphan' ? 'CANARY-0123456789abcdef0123'
        : !m.startsWith('CANARY-') ? m
          : g.form === 'lower' ? `CANARY-${m.slice(7).toUpperCase()}`
            : g.form === 'partial' ? m.slice(0, 7 + 17)
              : g.form === 'prefix-lower' ? `canary-${m.slice(7)}`
                // Wrapped inside its hex, or its hyphen written encoded (markers.ts): the marker all the same.
                : g.form === 'wrapped' ? `${m.slice(0, 7 + 10)}\n    ${m.slice(7 + 10)}`
                  : g.form === 'json-escape' ? `CANARY\\u2011${m.slice(7)}`
                    : g.form === 'html' ? `CANARY&#x2d;${m.slice(7)}`
                      : g.form === 'percent' ? `CANARY%E2%80%91${m.slice(7)}`
                        : m
  const answer = `here you go: ${shown} and more`
  const prompt = `${g.to.marker} please${g.echo ? ` ${m}` : ''}`
  const cut = Math.floor(answer.length / 2)
  const response =
    g.shape === 'chat' ? {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: answer}}]}
      : g.shape === 'sse-split'
        ? ['data: ' + JSON.stringify({choices: [{index: 0, delta: {content: answer.slice(0, cut)}}]}), 'data: ' + JSON.stringify({choices: [{index: 0, delta: {content: answer.slice(cut)}}]}), 'data: [DONE]', ''].join('\n\n')
        : answer
  const line = JSON.stringify({
    ts: `2026-11-02T06:${String(g.minute).padStart(2, '0')}:00.000Z`, request_id: requestId, tenant_id: g.to.tenant, session_id: g.to.session, status: 200,
    request: {messages: [{role: 'user', content: prompt}]}, response,
  })
  // JSON escapes in the raw line: the same text once decoded
  return g.shape === 'escaped' ? line.replace(/CANARY/g, '\\u0043ANARY').replace(/ZEBRA/g, '\\u005aEBRA') : line
})

const lineSpec = fc.oneof(
  {weight: 8, arbitrary: fc.tuple(fc.constant('good' as const), goodLine, fc.integer({min: 0, max: 15}))},
  {weight: 1, arbitrary: fc.tuple(fc.constant('bad' as const), fc.constantFrom('{"ts":', 'not json', '{"request_id":"x","tenant_id":"t"}', '[1,2]'), fc.constant(0))},
  {weight: 1, arbitrary: fc.tuple(fc.constant('blank' as const), fc.constant(''), fc.constant(0))},
  {weight: 1, arbitrary: fc.tuple(fc.constant('long' as const), fc.constant('x'.repeat(5000)), fc.constant(0))},
)

const fileSpec = fc.record({lines: fc.array(lineSpec, {minLength: 1, maxLength: 40}), gzip: fc.boolean(), bom: fc.boolean()})

let runs = 0
describe('the quick verdict', () => {
  it('is the scan\'s verdict, figure for figure, on random hostile files', async () => {
    let leaks = 0
    await fc.assert(
      // Parsed inline or on two worker threads (the built worker, as installed): the same answer.
      fc.asyncProperty(fc.array(fileSpec, {minLength: 1, maxLength: 3}), fc.constantFrom(0, 2), async (files, workers) => {
        const run = join(dir, `r${++runs}`)
        const paths: string[] = []
        files.forEach((f, i) => {
          const text = f.lines.map(([kind, make, n]) => (kind === 'good' ? (make as (id: string) => string)(`req-${n}`) : (make as string))).join('\n') + '\n'
          const bytes = Buffer.concat([f.bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(text)])
          const path = join(dir, `r${runs}-${i}.jsonl${f.gzip ? '.gz' : ''}`)
          writeFileSync(path, f.gzip ? gzipSync(bytes) : bytes)
          paths.push(path)
        })
        const canaries = join(dir, `r${runs}-canaries.csv`)
        writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${SESSIONS.map((s) => `${s.marker},${s.tenant},${s.session},`).join('\n')}\n`)
        const db = openCase(`${run}.db`, {create: true})
        const seen: TriageVerdict[] = []
        let mismatch = false
        try {
          const r = await runTriage(db, {
            paths, canaries, now: () => new Date('2026-11-03T00:00:00Z'), maxLineBytes: 4096, skipProvenance: true, workers,
            onVerdict: (v) => seen.push(v), onVerdictMismatch: () => (mismatch = true),
          }).catch((error: Error) => {
            // every line of a file unreadable: ingest refuses it, and no verdict was printed
            expect(error.message).toMatch(/not ingested/)
            expect(seen).toEqual([])
            return null
          })
          if (r === null) return
          expect(mismatch).toBe(false)
          expect(seen).toHaveLength(1)
          expect(r.verdict).toEqual({basis: 'quick', confirmed_by_scan: true})
          expect(seen[0]!.contaminated_responses).toBe(r.scan.contaminated_responses)
          if (r.scan.contaminated_responses > 0) leaks++
        } finally {
          db.close()
        }
      }),
      {seed: SEED, numRuns: 40},
    )
    // the generator does make leaks (the property is not vacuous)
    expect(leaks).toBeGreaterThan(10)
  }, 240_000)
})
