import {createHash} from 'node:crypto'
import * as fs from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {readEvidence} from '../../src/evidence/evidence-store.js'
import {ingestCanaries} from '../../src/ingest/ingest-canaries.js'
import {iterateCanaries} from '../../src/store/canaries.js'
import {fileBySha256} from '../../src/store/files.js'
import {openCase} from '../../src/store/open-case.js'
import {tempDir} from '../helpers/cli.js'

// The registry is read a chunk at a time, twice (a hash, then the parse with the evidence copy
// and a second hash): the copy must be the file byte for byte across evidence blocks, and a
// file that changes between the two reads must be refused with nothing stored.

// Opens of one path are counted so that a test can rewrite the file just before the second read.
const hook: {path: string | null; onOpen: ((n: number) => void) | null; opens: number} = {path: null, onOpen: null, opens: 0}
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>()
  const openSync = (path: fs.PathLike, ...rest: unknown[]) => {
    if (hook.path !== null && String(path) === hook.path) hook.onOpen?.(++hook.opens)
    return (real.openSync as (...a: unknown[]) => number)(path, ...rest)
  }
  return {...real, openSync, default: {...real, openSync}}
})

const now = () => new Date('2026-11-01T00:00:00Z')
const M = (i: number) => `CANARY-${i.toString(16).padStart(16, '0')}`
const registry = (n: number, session = (i: number) => `s${i}`) =>
  `marker,tenant_id,session_id,issued_at\n${Array.from({length: n}, (_, i) => `${M(i)},t${i % 7},${session(i)},2026-10-30T00:00:00Z`).join('\n')}\n`

afterEach(() => {
  hook.path = null
  hook.onOpen = null
  hook.opens = 0
})

describe('a registry read in chunks', () => {
  it('keeps the file byte for byte as evidence across several blocks, hashed as written', async () => {
    const dir = tempDir()
    const path = join(dir, 'r.csv')
    // About 5.6 MB: two evidence blocks of 4 MiB and six reads of 1 MiB, a row cut at every edge.
    const body = registry(100_000, (i) => `séance-${i}`)
    expect(Buffer.byteLength(body)).toBeGreaterThan(5 * (1 << 20))
    fs.writeFileSync(path, body)
    const db = openCase(join(dir, 'c.db'), {create: true})
    try {
      const result = await ingestCanaries(db, {path, now})
      const sha = createHash('sha256').update(body).digest('hex')
      expect(result).toMatchObject({status: 'ingested', sha256: sha, entries: 100_000, added: 100_000})
      const file = fileBySha256(db, sha)!
      expect(file).toMatchObject({size: Buffer.byteLength(body), records: 100_000, lines: 100_000})
      expect(readEvidence(db, file.id, 0, file.size).equals(Buffer.from(body))).toBe(true)
      expect([...iterateCanaries(db)].find((c) => c.marker === M(99_999))?.session_id).toBe('séance-99999')
      // The same file again is recognised by its hash alone.
      expect(await ingestCanaries(db, {path, now})).toMatchObject({status: 'already_present', entries: 100_000})
    } finally {
      db.close()
    }
  })

  it('refuses a file that changes between its two reads, storing nothing', async () => {
    const dir = tempDir()
    const path = join(dir, 'r.csv')
    fs.writeFileSync(path, registry(2_000))
    hook.path = path
    // Same size, another session: only the hash can tell.
    hook.onOpen = (n) => {
      if (n === 2) fs.writeFileSync(path, registry(2_000, (i) => (i === 1_500 ? 'x1500' : `s${i}`)))
    }
    const db = openCase(join(dir, 'c.db'), {create: true})
    try {
      await expect(ingestCanaries(db, {path, now})).rejects.toMatchObject({code: 'E_CHANGED', message: expect.stringContaining('changed while it was being read')})
      expect(hook.opens).toBe(2)
      expect([...iterateCanaries(db)]).toHaveLength(0)
      expect(db.prepare("SELECT COUNT(*) FROM files WHERE kind = 'canaries'").pluck().get()).toBe(0)
      // Once it stops changing, it goes in.
      hook.onOpen = null
      expect(await ingestCanaries(db, {path, now})).toMatchObject({status: 'ingested', entries: 2_000})
    } finally {
      db.close()
    }
  })

  it('refuses a bad line past its first evidence blocks with file and line, storing nothing of it', async () => {
    const dir = tempDir()
    const path = join(dir, 'r.csv')
    // About 5.6 MB: its first block is compressed and written into the open transaction before
    // the parse reaches the bad line near the end.
    const rows = registry(100_000).split('\n')
    rows[99_990] = `${M(99_989)},t1,`
    fs.writeFileSync(path, rows.join('\n'))
    const db = openCase(join(dir, 'c.db'), {create: true})
    try {
      // A registry already in the case, which the refusal must leave as it is.
      fs.writeFileSync(join(dir, 'small.csv'), registry(3))
      expect(await ingestCanaries(db, {path: join(dir, 'small.csv'), now})).toMatchObject({status: 'ingested', entries: 3})
      const blocksBefore = db.prepare('SELECT COUNT(*) FROM evidence_blocks').pluck().get()
      await expect(ingestCanaries(db, {path, now})).rejects.toMatchObject({message: expect.stringMatching(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:99991: session_id`))})
      expect(db.prepare('SELECT COUNT(*) FROM evidence_blocks').pluck().get()).toBe(blocksBefore)
      expect(db.prepare("SELECT COUNT(*) FROM files WHERE kind = 'canaries'").pluck().get()).toBe(1)
      expect([...iterateCanaries(db)]).toHaveLength(3)
    } finally {
      db.close()
    }
  })
})
