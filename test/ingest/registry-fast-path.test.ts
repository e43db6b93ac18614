import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {ingestCanaries, isPlainCsv, parseCanaryEntry, plainEntry} from '../../src/ingest/ingest-canaries.js'
import {parseCsv} from '../../src/ingest/csv-parse.js'
import {iterateCanaries} from '../../src/store/canaries.js'
import {openCase} from '../../src/store/open-case.js'
import {tempDir} from '../helpers/cli.js'

// The registry reader's shortcuts (a row checked without zod, a CSV record split at its commas,
// the file decoded once) against the general code they stand in for. Seeded and bounded.

const SEED = 180_018
const now = () => new Date('2026-11-01T00:00:00Z')

const idLike = fc.oneof(
  fc.constantFrom('', ' ', '\t', '\u00a0', '\ufeff', 'a', ' s1 ', 'tenant-a', '\u2028'),
  fc.string({maxLength: 6}),
)
const anyField = fc.oneof(
  idLike,
  fc.constantFrom(null, undefined, true, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e300, [], {}, ['s']),
  fc.double(),
  fc.anything(),
)
const entryLike = fc.oneof(
  fc.record({marker: anyField, tenant_id: anyField, session_id: anyField, issued_at: anyField}, {requiredKeys: []}),
  fc.record({marker: idLike, tenant_id: idLike, session_id: idLike, issued_at: anyField, extra: anyField}, {requiredKeys: ['marker', 'tenant_id', 'session_id']}),
  fc.anything(),
  // What JSON.parse never makes, but the schema refuses: an array that has the keys.
  fc.constant(Object.assign(['x'], {marker: 'CANARY-0123456789abcdef', tenant_id: 't', session_id: 's'})),
)

describe('registry rows checked without zod', () => {
  it('accepts only what the schema accepts, with the same fields', () => {
    let accepted = 0
    fc.assert(
      fc.property(entryLike, (value) => {
        const fast = plainEntry(value)
        const reference = parseCanaryEntry(value)
        if (fast) {
          accepted++
          expect(reference).toBeDefined()
          expect({...fast, issued_at: fast.issued_at ?? null}).toEqual({...reference!, issued_at: reference!.issued_at ?? null})
        }
      }),
      {seed: SEED, numRuns: 4000},
    )
    // The shortcut is taken at all (else it proves nothing and saves nothing).
    expect(accepted).toBeGreaterThan(100)
    expect(plainEntry({marker: 'CANARY-0123456789abcdef', tenant_id: 't', session_id: 's', issued_at: '2026-10-30T00:00:00Z'})).toBeDefined()
  })
})

describe('CSV records split at their commas', () => {
  it('give the cells RFC 4180 parsing gives, whenever the shortcut is taken', () => {
    let taken = 0
    fc.assert(
      fc.property(fc.string({unit: fc.constantFrom(',', '"', '\r', '\n', '\ufeff', 'a', ' ', 'é'), minLength: 1, maxLength: 12}), (record) => {
        if (!isPlainCsv(record)) return
        taken++
        expect(record.split(',')).toEqual(parseCsv(record)[0]?.cells ?? [])
      }),
      {seed: SEED, numRuns: 4000},
    )
    expect(taken).toBeGreaterThan(100)
  })
})

describe('registry files read in one piece', () => {
  const ingest = async (name: string, body: string | Buffer) => {
    const dir = tempDir()
    const path = join(dir, name)
    writeFileSync(path, body)
    const db = openCase(join(dir, 'case.db'), {create: true})
    try {
      const r = await ingestCanaries(db, {path, now})
      return {result: r, rows: [...iterateCanaries(db)], path}
    } catch (error) {
      return {error: (error as Error).message.replace(path, '<file>')}
    } finally {
      db.close()
    }
  }
  const M = (i: number) => `CANARY-${(0x1000_0000_0000_0000n + BigInt(i)).toString(16)}`

  it('a line of many-byte characters past the limit in bytes, though not in characters, is refused', async () => {
    const long = '€'.repeat(400_000) // 1.2 MB in UTF-8, 400,000 UTF-16 units
    expect(await ingest('r.csv', `marker,tenant_id,session_id,issued_at\n${M(1)},t,s,\n${M(2)},${long},s2,\n`)).toEqual({
      error: `<file>:3: line longer than ${1 << 20} bytes`,
    })
  })

  it('a file that is not UTF-8 throughout names its first bad line, after any earlier error', async () => {
    const head = Buffer.from(`marker,tenant_id,session_id,issued_at\n${M(1)},t,s,\n`)
    const bad = Buffer.concat([head, Buffer.from(`${M(2)},t\xff,s,\n`, 'latin1'), Buffer.from(`${M(3)},t,s,\n`)])
    expect(await ingest('r.csv', bad)).toEqual({error: '<file>:3: not UTF-8 text'})
    const earlier = Buffer.concat([head, Buffer.from(`${M(2)},t,,\n`), Buffer.from(`${M(3)},t\xff,s,\n`, 'latin1')])
    expect(await ingest('r.csv', earlier)).toMatchObject({error: expect.stringMatching(/^<file>:3: session_id: /)})
  })

  it('a registry of several decoding chunks loses no line at their edges, and names a bad line deep inside', async () => {
    // About 2.6 MB: three chunks of 1 MiB, their edges falling inside rows, one quoted row spanning two lines.
    const n = 45_000
    const rows = Array.from({length: n}, (_, i) => `${M(i)},t${i % 7},${i === 20_000 ? '"s\n20000"' : `s${i}`},2026-10-30T00:00:00.${String(i % 1000).padStart(3, '0')}Z`)
    const body = `marker,tenant_id,session_id,issued_at\n${rows.join('\n')}\n`
    expect(body.length).toBeGreaterThan(2.5 * (1 << 20))
    const ok = await ingest('r.csv', body)
    expect(ok.result).toMatchObject({entries: n, added: n})
    const sessions = new Set(ok.rows!.map((r) => r.session_id))
    for (const i of [0, 1, 9_999, 10_000, 19_999, 20_001, 29_999, 44_999]) expect(sessions.has(`s${i}`)).toBe(true)
    expect(sessions.has('s\n20000')).toBe(true)
    const at = Buffer.from(body).indexOf(`${M(25_000)},`)
    const bad = Buffer.concat([Buffer.from(body.slice(0, at)), Buffer.from([0xff]), Buffer.from(body.slice(at))])
    // Line 25,003: the header, 25,000 rows before it, one of them two lines long.
    expect(await ingest('r.csv', bad)).toEqual({error: '<file>:25003: not UTF-8 text'})
  })

  it('CSV and JSON Lines forms of one registry store the same rows', async () => {
    const rows = Array.from({length: 300}, (_, i) => ({
      marker: i % 7 === 0 ? `PLAIN-MARKER-${i}` : M(i),
      tenant_id: i % 5 === 0 ? ` t, "${i % 3}" ` : `t${i % 3}`,
      session_id: i % 11 === 0 ? `s\r\n${i}` : `s${i}`,
      issued_at: i % 2 ? '2026-10-30T01:02:03.456789+02:00' : null,
    }))
    const q = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v)
    const csv = `\ufeffmarker,tenant_id,session_id,issued_at\r\n${rows.map((r) => [r.marker, r.tenant_id, r.session_id, r.issued_at ?? ''].map(q).join(',')).join('\r\n')}\r\n`
    const jsonl = `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`
    const a = await ingest('r.csv', csv)
    const b = await ingest('r.jsonl', jsonl)
    expect(a.rows).toHaveLength(300)
    const strip = (x: typeof a) => x.rows!.map(({file_id: _, ...r}) => r)
    expect(strip(a)).toEqual(strip(b))
    expect(a.rows!.find((r) => r.session_id === 's\r\n11')).toMatchObject({tenant_id: 't2', issued_at: '2026-10-29T23:02:03.456789Z'})
    expect(a.rows!.find((r) => r.session_id === 's10')).toMatchObject({tenant_id: ' t, "1" ', issued_at: null})
  })
})
