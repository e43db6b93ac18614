import Database from 'better-sqlite3'
import {scanCase} from '../../src/detect/scan-case.js'
import {openCase} from '../../src/store/open-case.js'
import {makeCase, rng, type RecordInput, type TestCase} from '../helpers/case-builder.js'

// A hand-made incident whose every scope figure is worked out by hand below, built the way
// users build theirs: native log lines and a canary registry through ingest, then a scan. The
// sightings, provenance and personal-data findings are the detector's, not written by hand.
//   tenants acme, beta, gamma; sessions sess-<tenant>-<n>; decode nodes d1, d2; pool 681280.
//   req  tenant session       node ts (UTC)                 status prompt   what its texts carry
//    1   acme   sess-acme-1   d1   05:00:00.000             200    1000     its markers A1, A1b; a phone number in the prompt
//    2   beta   sess-beta-1   d1   05:10:00.000             200    1000     its marker B1
//    3   gamma  sess-gamma-1  d1   06:00:00.123             200    700000   answer: A1, A1b (x_tenant acme-1 twice), B1 (x_tenant beta-1), an e-mail
//   12   gamma  sess-gamma-1  d1   06:10:00.000             200    700001   answer: A2 (x_tenant acme-2)
//    4   acme   sess-acme-2   d1   06:30:00.456             200    690000   prompt: A2 and a 40-word secret; answer: A1 (x_session acme-1)
//    5   beta   sess-beta-2   d2   07:15:30.789             200    681280   a 200 stream ending in an error event: G1 (x_tenant gamma-1), B2 (own)
//    6   beta   sess-beta-1   d2   07:20:00.000             200    681279   answer: 20 words of req 4's secret (provenance from acme-2), an IBAN
//    7   acme   sess-acme-1   d2   08:00:00.000             413    900000
//    8   gamma  sess-gamma-1  d1   04:00:00.000             200    1000     answer: CANARY-0123456789 (orphan)
//    9   beta   sess-beta-2   d1   06:45:00.000             200    700000   answer: A1, but its file is still 'loading' (an ingest killed mid-way)
//   10   acme   sess-acme-1   d2   07:00:00.000             200    100      prompt and answer: B1 (echo); answer: acme-1's own phone number (not a finding)
//   11   gamma  sess-gamma-1  d2   07:10:00.000             200    800000
export const POOL = 681280

export const MARKERS = {
  A1: 'CANARY-a1a1a1a1a1a1a1a1',
  A1b: 'CANARY-a1b0a1b0a1b0a1b0',
  A2: 'CANARY-a2a2a2a2a2a2a2a2',
  B1: 'CANARY-b1b1b1b1b1b1b1b1',
  B2: 'CANARY-b2b2b2b2b2b2b2b2',
  G1: 'CANARY-c1c1c1c1c1c1c1c1',
}

/** Words no other record shares (so nothing but the planted secret is verbatim across sessions). */
function wordsFor(seed: number): (n: number) => string {
  const rand = rng(seed)
  return (n) =>
    Array.from({length: n}, () => {
      let w = ''
      for (let i = 0, len = 5 + Math.floor(rand() * 5); i < len; i++) w += String.fromCharCode(97 + Math.floor(rand() * 26))
      return w
    }).join(' ')
}

function sse(pieces: string[], tail: string): string {
  return [...pieces.map((p) => `data: ${JSON.stringify({object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: p}}]})}`), tail, 'data: [DONE]', ''].join('\n\n')
}

export async function buildKnownCase(): Promise<TestCase> {
  const c = makeCase()
  await c.addCanaries([
    [MARKERS.A1, 'acme', 'sess-acme-1'],
    [MARKERS.A1b, 'acme', 'sess-acme-1'],
    [MARKERS.A2, 'acme', 'sess-acme-2'],
    [MARKERS.B1, 'beta', 'sess-beta-1'],
    [MARKERS.B2, 'beta', 'sess-beta-2'],
    [MARKERS.G1, 'gamma', 'sess-gamma-1'],
  ])
  const w = wordsFor(7)
  const secret = w(40).split(' ')
  const phone = '+44 20 7946 0958'
  const day = '2026-11-02T'
  const rec = (n: number, tenant: string, s: number, node: string, time: string, status: number, prompt: number, texts: Partial<RecordInput>): RecordInput => ({
    request_id: `req-${n}`, tenant_id: tenant, session_id: `sess-${tenant}-${s}`, decode_node: node, ts_ms: Date.parse(`${day}${time}Z`), status, prompt_tokens: prompt,
    request_text: w(15), response_text: w(15), ...texts,
  })
  await c.addFile([
    rec(1, 'acme', 1, 'd1', '05:00:00.000', 200, 1000, {request_text: `${MARKERS.A1} ${MARKERS.A1b} ${w(10)} call me on ${phone}`}),
    rec(2, 'beta', 1, 'd1', '05:10:00.000', 200, 1000, {request_text: `${MARKERS.B1} ${w(10)}`}),
    rec(3, 'gamma', 1, 'd1', '06:00:00.123', 200, 700000, {response_text: `${w(5)} ${MARKERS.A1} ${w(5)} ${MARKERS.A1b} ${MARKERS.B1} write to secret.person@example.org`}),
    rec(12, 'gamma', 1, 'd1', '06:10:00.000', 200, 700001, {response_text: `${w(5)} ${MARKERS.A2} ${w(5)}`}),
    rec(4, 'acme', 2, 'd1', '06:30:00.456', 200, 690000, {request_text: `${MARKERS.A2} ${secret.join(' ')}`, response_text: `${w(5)} ${MARKERS.A1}`}),
    rec(5, 'beta', 2, 'd2', '07:15:30.789', 200, 681280, {
      request_text: `${MARKERS.B2} ${w(10)}`, response_text: undefined, stream: true,
      response_raw: sse([`${w(4)} ${MARKERS.G1}`, ` ${MARKERS.B2} ${w(3)}`], 'data: {"error":{"message":"decode failed","type":"server_error","code":500}}'),
    }),
    rec(6, 'beta', 1, 'd2', '07:20:00.000', 200, 681279, {response_text: `${w(3)} ${secret.slice(10, 30).join(' ')} ${w(3)} IBAN DE89 3704 0044 0532 0130 00`}),
    rec(7, 'acme', 1, 'd2', '08:00:00.000', 413, 900000, {response_text: null}),
    rec(8, 'gamma', 1, 'd1', '04:00:00.000', 200, 1000, {response_text: `${w(5)} CANARY-0123456789 ${w(5)}`}),
    rec(10, 'acme', 1, 'd2', '07:00:00.000', 200, 100, {request_text: `what is ${MARKERS.B1}?`, response_text: `it is ${MARKERS.B1}; your number is ${phone}`}),
    rec(11, 'gamma', 1, 'd2', '07:10:00.000', 200, 800000, {}),
  ])
  // Record 9's file: ingested, then marked 'loading' as an ingest killed before the end leaves it.
  await c.addFile([rec(9, 'beta', 2, 'd1', '06:45:00.000', 200, 700000, {response_text: `${w(5)} ${MARKERS.A1}`})])
  c.close()
  const raw = new Database(c.path)
  raw.prepare(`UPDATE files SET state = 'loading' WHERE id = (SELECT MAX(id) FROM files WHERE kind = 'log')`).run()
  raw.close()
  const db = openCase(c.path)
  scanCase(db, {now: new Date('2026-11-03T00:00:00.000Z')})
  return {...c, db, close: () => db.open && db.close()}
}
