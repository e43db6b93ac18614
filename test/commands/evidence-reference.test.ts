import Database from 'better-sqlite3'
import {appendFileSync, cpSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {execFileSync} from 'node:child_process'
import {crc32} from 'node:zlib'
import {beforeAll, describe, expect, inject, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// `ingest logs --evidence reference`: the case keeps no byte of a plain log, only its SHA-256 and
// each record's offset, length and CRC-32, and reads the original where it lies. Detection must
// give exactly what a copy gives; every read is checked, so an edited or moved original is
// refused where it is read and named by `verify`; a gzip file is copied all the same.

interface Scope {
  contaminated_responses: number
  flows: unknown[]
}

let incident: ReturnType<typeof inject<'incident'>>
let dir: string
let logs: string
let refCase: string
let copyCase: string

function caseRows<T>(path: string, sql: string): T[] {
  const db = new Database(path, {readonly: true})
  try {
    return db.prepare(sql).all() as T[]
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  incident = inject('incident')
  dir = tempDir()
  // A copy of the incident's logs: the tests below edit and move the originals.
  logs = join(dir, 'logs')
  cpSync(incident.logs, logs, {recursive: true})
  refCase = join(dir, 'ref.db')
  copyCase = join(dir, 'copy.db')
  for (const [db, extra] of [[refCase, ['--evidence', 'reference']], [copyCase, []]] as const) {
    await runJson(['ingest', 'canaries', incident.canaries, '--db', db])
    await runJson(['ingest', 'logs', logs, '--db', db, ...extra])
    await runJson(['scan', '--db', db, '--pool-tokens', '681280'])
  }
}, 240_000)

describe('ingest logs --evidence reference', () => {
  it('keeps no byte of a plain log, copies a gzip one, and finds exactly what a copy finds', async () => {
    const files = caseRows<{name: string; compression: string; evidence: string; lines_held: string; blocks: number}>(
      refCase,
      `SELECT f.name, f.compression, f.evidence, f.lines_held, (SELECT count(*) FROM evidence_blocks b WHERE b.file_id = f.id) AS blocks FROM files f WHERE f.kind = 'log' ORDER BY f.id`,
    )
    expect(files.length).toBe(readdirSync(logs).length)
    for (const f of files) {
      if (f.compression === 'gzip') expect(f, f.name).toMatchObject({evidence: 'copy', lines_held: 'all'})
      else expect(f, f.name).toEqual({name: f.name, compression: 'none', evidence: 'reference', lines_held: 'none', blocks: 0})
    }
    const plainBytes = readdirSync(logs).filter((n) => !n.endsWith('.gz')).reduce((n, name) => n + statSync(join(logs, name)).size, 0)
    expect(plainBytes).toBeGreaterThan(0)
    const stored = (path: string): number => caseRows<{n: number}>(path, 'SELECT coalesce(sum(length(data)), 0) AS n FROM evidence_blocks')[0]!.n
    // What the case no longer holds is exactly the plain files' bytes.
    expect(stored(copyCase) - stored(refCase)).toBe(plainBytes)

    const scope = async (db: string): Promise<Scope> => {
      const s = await runJson<Scope & {detection: {last_scan_at?: string}}>(['scope', '--db', db])
      delete s.detection.last_scan_at
      return s
    }
    const ref = await scope(refCase)
    const copy = await scope(copyCase)
    expect(ref.contaminated_responses).toBeGreaterThan(0)
    expect(ref).toEqual(copy)
    const sightings = (path: string) => caseRows(path, 'SELECT r.request_id, s.class, s.marker FROM sightings s JOIN records r ON r.id = s.record_id ORDER BY 1, 2, 3')
    expect(sightings(refCase)).toEqual(sightings(copyCase))
    const provenance = (path: string) => caseRows(path, 'SELECT * FROM provenance ORDER BY 1')
    expect(provenance(refCase).length).toBeGreaterThan(0)
    expect(provenance(refCase)).toEqual(provenance(copyCase))
    const pii = (path: string) => caseRows(path, 'SELECT * FROM pii_findings ORDER BY 1')
    expect(pii(refCase)).toEqual(pii(copyCase))

    // A notice sent to a customer does not claim the case preserved what it only references.
    const [tenant] = caseRows<{tenant_id: string}>(refCase, 'SELECT tenant_id FROM records ORDER BY id LIMIT 1')
    const byRef = files.filter((f) => f.evidence === 'reference').length
    const notice = await run(['report', 'processor-notice', '--db', refCase, '--tenant', tenant!.tenant_id])
    expect(notice.code, notice.stderr).toBe(0)
    expect(notice.stdout).toContain(`each log file is identified by its SHA-256 hash (${byRef === files.length ? 'all of them are' : `${byRef} of them are`} kept by reference: the case holds no copy)`)
    expect(notice.stdout).not.toContain('the evidence is preserved')
    const copied = await run(['report', 'processor-notice', '--db', copyCase, '--tenant', tenant!.tenant_id])
    expect(copied.stdout).toContain('the evidence is preserved with SHA-256 hashes')

    const status = await runJson<{log_evidence: {kept: string; lines_held: string; files_by_reference: number}}>(['status', '--db', refCase])
    expect(status.log_evidence).toEqual({kept: 'reference', lines_held: 'none', files_by_reference: files.filter((f) => f.evidence === 'reference').length})
  })

  it('reads a record from its original, and verify reads every original again', async () => {
    const [rec] = caseRows<{request_id: string}>(refCase, `SELECT r.request_id FROM records r JOIN files f ON f.id = r.file_id WHERE f.lines_held = 'none' ORDER BY r.id LIMIT 1`)
    const fromRef = await run(['show', rec!.request_id, '--db', refCase, '--raw'])
    const fromCopy = await run(['show', rec!.request_id, '--db', copyCase, '--raw'])
    expect(fromRef.code, fromRef.stderr).toBe(0)
    expect(fromRef.stdout).toBe(fromCopy.stdout)
    const v = await runJson<{ok: boolean; originals_rehashed: number; records_checked: number}>(['verify', '--db', refCase])
    expect(v.ok).toBe(true)
    expect(v.records_checked).toBe(caseRows<{n: number}>(refCase, 'SELECT count(*) AS n FROM records')[0]!.n)
    expect(v.originals_rehashed).toBeGreaterThanOrEqual(caseRows(refCase, `SELECT 1 FROM files WHERE lines_held = 'none'`).length)
  })

  it('refuses a line whose original changed, names a changed and a missing original, and still verifies a log appended to', async () => {
    // A case of its own over its own copy of the logs: this test edits and moves them.
    const own = join(dir, 'own-logs')
    cpSync(incident.logs, own, {recursive: true})
    const db = join(dir, 'own.db')
    await runJson(['ingest', 'logs', own, '--db', db, '--evidence', 'reference'])
    const plain = readdirSync(own).filter((n) => !n.endsWith('.gz')).sort()
    expect(plain.length).toBeGreaterThanOrEqual(3)
    const [edited, moved, grown] = plain as [string, string, string]

    // Appended to since (a live log): what was ingested is unchanged, verify passes.
    appendFileSync(join(own, grown), '{"request_id":"later"}\n')
    const before = await run(['verify', '--db', db])
    expect(before.code, before.stdout + before.stderr).toBe(0)

    // One byte of a response changed, the length kept.
    const [target] = caseRows<{request_id: string; line_no: number; byte_offset: number; byte_len: number}>(
      db, `SELECT r.request_id, r.line_no, r.byte_offset, r.byte_len FROM records r JOIN files f ON f.id = r.file_id WHERE f.name = '${edited}' AND r.byte_len > 200 ORDER BY r.id LIMIT 1`,
    )
    const bytes = readFileSync(join(own, edited))
    const at = target!.byte_offset + target!.byte_len - 20
    bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41
    writeFileSync(join(own, edited), bytes)
    renameSync(join(own, moved), join(dir, `${moved}.elsewhere`))

    const shown = await run(['show', target!.request_id, '--db', db, '--raw'])
    expect(shown.code).toBe(1)
    // Refused before any line of it is read: its SHA-256 is no longer the one recorded at ingest.
    expect(shown.stderr).toContain(`${join(own, edited)}: kept by reference, and its original has changed since it was ingested`)
    expect(shown.stdout).toBe('')

    const [gone] = caseRows<{request_id: string}>(db, `SELECT r.request_id FROM records r JOIN files f ON f.id = r.file_id WHERE f.name = '${moved}' LIMIT 1`)
    const missing = await run(['show', gone!.request_id, '--db', db])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(new RegExp(`${moved}: kept by reference, and its original is not there any more`))

    const v = await run(['verify', '--db', db])
    expect(v.code).toBe(1)
    const out = v.stdout + v.stderr
    expect(out).toContain(`record ${target!.request_id} (`)
    expect(out).toContain('the line in the original differs from the line ingested (CRC-32)')
    expect(out).toMatch(new RegExp(`${edited}: changed: no longer matches the SHA-256 recorded at ingest`))
    expect(out).toMatch(new RegExp(`${moved}: missing: .* is kept by reference and the case holds none of its bytes`))
    // The missing file is one problem, not one per record; the grown one is none.
    const raw = await run(['verify', '--db', db, '--json'])
    // --json on failure: the contract's error object, with every problem in its details.
    expect(raw.code).toBe(1)
    const parsed = JSON.parse(raw.stdout).error.details as {ok: boolean; problems_total: number; problems: Array<{kind: string; where: string}>}
    expect(parsed.ok).toBe(false)
    expect(parsed.problems.filter((p) => p.where.endsWith(moved))).toHaveLength(1)
    expect(parsed.problems.some((p) => p.where.includes(grown))).toBe(false)
    expect(parsed.problems_total).toBe(3)
  }, 120_000)

  it('follows originals moved elsewhere with relocate, only where every SHA-256 still matches', async () => {
    const at = join(dir, 'first-place')
    cpSync(incident.logs, at, {recursive: true})
    const db = join(dir, 'moved.db')
    await runJson(['ingest', 'logs', at, '--db', db, '--evidence', 'reference'])
    const share = join(dir, 'share', 'incident')
    cpSync(at, join(share, 'logs'), {recursive: true})
    rmSync(at, {recursive: true})
    const lost = await run(['verify', '--db', db])
    expect(lost.code).toBe(1)

    // One file at the new place differs: nothing changes.
    const plain = readdirSync(join(share, 'logs')).filter((n) => !n.endsWith('.gz')).sort()
    appendFileSync(join(share, 'logs', plain[0]!), '')
    const original = readFileSync(join(share, 'logs', plain[1]!))
    writeFileSync(join(share, 'logs', plain[1]!), Buffer.concat([Buffer.from(' '), original.subarray(1)]))
    const refused = await run(['relocate', at, join(share, 'logs'), '--db', db])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`${join(share, 'logs', plain[1]!)}: not the file ingested as ${join(at, plain[1]!)} (its SHA-256 differs`)
    expect(caseRows<{n: number}>(db, `SELECT count(*) AS n FROM files WHERE abs_path LIKE '${share}%'`)[0]!.n).toBe(0)

    writeFileSync(join(share, 'logs', plain[1]!), original)
    const moved = await runJson<{relocated: Array<{path: string; to: string}>; elsewhere: number}>(['relocate', at, join(share, 'logs'), '--db', db])
    expect(moved.relocated.map((r) => r.to).sort()).toEqual(plain.map((n) => join(share, 'logs', n)))
    expect(moved.elsewhere).toBe(0)
    const v = await runJson<{ok: boolean}>(['verify', '--db', db])
    expect(v.ok).toBe(true)
  }, 120_000)

  it('refuses a FIFO put where an original was, at once, instead of waiting for a writer', async () => {
    const at = join(dir, 'fifo-place')
    cpSync(incident.logs, at, {recursive: true})
    const db = join(dir, 'fifo.db')
    await runJson(['ingest', 'logs', at, '--db', db, '--evidence', 'reference'])
    const name = readdirSync(at).filter((n) => !n.endsWith('.gz')).sort()[0]!
    rmSync(join(at, name))
    execFileSync('mkfifo', [join(at, name)])
    const [rec] = caseRows<{request_id: string}>(db, `SELECT r.request_id FROM records r JOIN files f ON f.id = r.file_id WHERE f.name = '${name}' LIMIT 1`)
    const shown = await run(['show', rec!.request_id, '--db', db])
    expect(shown.code).toBe(1)
    expect(shown.stderr).toContain(`${name}: kept by reference, and its original is no longer a regular file`)
    const v = await run(['verify', '--db', db])
    expect(v.code).toBe(1)
    expect(v.stdout + v.stderr).toContain('no longer a regular file')
    const moved = await run(['relocate', at, at, '--db', db])
    expect(moved.code).toBe(1)
    expect(moved.stderr).toMatch(/not a regular file.*nothing was changed/)
  }, 60_000)

  it('is followed by later ingests into the case, and refuses --compress-evidence beside it', async () => {
    const db = join(dir, 'follow.db')
    const [first, second] = readdirSync(logs).filter((n) => !n.endsWith('.gz')).sort() as [string, string]
    await runJson(['ingest', 'logs', join(logs, first), '--db', db, '--evidence', 'reference'])
    await runJson(['ingest', 'logs', join(logs, second), '--db', db])
    expect(caseRows<{lines_held: string}>(db, `SELECT lines_held FROM files WHERE kind = 'log' ORDER BY id`)).toEqual([{lines_held: 'none'}, {lines_held: 'none'}])
    const both = await run(['ingest', 'logs', join(logs, first), '--db', join(dir, 'x.db'), '--evidence', 'reference', '--compress-evidence'])
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/--evidence|--compress-evidence/)
  })
})

/**
 * `line` with the byte at `edit` changed and the four bytes at `patch` chosen so that its CRC-32
 * is what it was: CRC-32 is affine over GF(2), so the patch solves 32 linear equations.
 */
function forgeKeepingCrc(line: Buffer, edit: number, patch: number): Buffer {
  const out = Buffer.from(line)
  out[edit] = out[edit] === 0x41 ? 0x42 : 0x41
  const want = crc32(line) >>> 0
  // Each patch bit's effect on the CRC (the same wherever the other bits are: affine).
  const base = crc32(out) >>> 0
  const effects: number[] = []
  for (let bit = 0; bit < 32; bit++) {
    const probe = Buffer.from(out)
    probe[patch + (bit >> 3)]! ^= 1 << (bit & 7)
    effects.push(((crc32(probe) >>> 0) ^ base) >>> 0)
  }
  // Gaussian elimination: find the patch bits whose effects XOR to base ^ want.
  const rows = effects.map((e, bit) => ({e, bits: 2 ** bit}))
  let target = (base ^ want) >>> 0
  let chosen = 0
  for (let b = 31; b >= 0; b--) {
    const mask = 2 ** b
    const pivot = rows.findIndex((r) => (r.e & mask) !== 0)
    if (pivot < 0) continue
    const [p] = rows.splice(pivot, 1)
    for (const r of rows) if ((r.e & mask) !== 0) {
      r.e = (r.e ^ p!.e) >>> 0
      r.bits ^= p!.bits
    }
    if ((target & mask) !== 0) {
      target = (target ^ p!.e) >>> 0
      chosen ^= p!.bits
    }
  }
  for (let bit = 0; bit < 32; bit++) if (chosen & (2 ** bit)) out[patch + (bit >> 3)]! ^= 1 << (bit & 7)
  return out
}

describe('evidence by reference against a forger', () => {
  it('refuses a line edited so that its CRC-32 is kept: the file\'s SHA-256 is checked before its first read', async () => {
    const own = join(dir, 'forged-logs')
    cpSync(incident.logs, own, {recursive: true})
    const db = join(dir, 'forged.db')
    await runJson(['ingest', 'logs', own, '--db', db, '--evidence', 'reference'])
    const [target] = caseRows<{request_id: string; name: string; byte_offset: number; byte_len: number; raw_crc32: number}>(
      db, `SELECT r.request_id, f.name, r.byte_offset, r.byte_len, r.raw_crc32 FROM records r JOIN files f ON f.id = r.file_id WHERE f.lines_held = 'none' AND r.byte_len > 200 ORDER BY r.id LIMIT 1`,
    )
    const path = join(own, target!.name)
    const bytes = readFileSync(path)
    const line = bytes.subarray(target!.byte_offset, target!.byte_offset + target!.byte_len)
    const forged = forgeKeepingCrc(line, line.length - 30, line.length - 20)
    expect(crc32(forged) >>> 0).toBe(target!.raw_crc32 >>> 0)
    expect(forged.equals(line)).toBe(false)
    forged.copy(bytes, target!.byte_offset)
    writeFileSync(path, bytes)
    const shown = await run(['show', target!.request_id, '--db', db, '--raw'])
    expect(shown.code, shown.stderr).toBe(1)
    expect(shown.stdout).toBe('')
    expect(shown.stderr).toContain(`${path}: kept by reference, and its original has changed since it was ingested`)
  }, 120_000)
})
