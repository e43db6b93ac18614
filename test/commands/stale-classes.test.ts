import Database from 'better-sqlite3'
import {copyFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A registry ingested after the scan (no re-scan): `sightings --allow-incomplete` listed the last
// scan's classes (every marker an orphan) as if current. And a scan that classified under earlier
// sighting rules (detection.sighting_rules_changed) was not among the stale findings every output
// reads (staleFindings): scope --json, status and the drafts gave its classes' figures as facts.

const dir = tempDir('ct-stale-classes-')
const gen = join(dir, 'gen')
const db = (name: string): string => join(dir, `${name}.db`)
const ok = async (args: string[]): Promise<void> => {
  const r = await run(args)
  if (r.code !== 0) throw new Error(`crosstalk ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
}

beforeAll(async () => {
  await ok(['generate', '--out', gen, '--records', '400', '--seed', '3'])
  // late registry: logs scanned, then the canaries ingested, no re-scan
  await ok(['ingest', 'logs', '--db', db('late'), join(gen, 'logs')])
  await ok(['scan', '--db', db('late'), '--pool-tokens', '681280'])
  await ok(['ingest', 'canaries', '--db', db('late'), join(gen, 'canaries.csv')])
  // earlier rules: a complete scan, then its run recorded as classified under rules 1
  await ok(['ingest', 'canaries', '--db', db('rules'), join(gen, 'canaries.csv')])
  await ok(['ingest', 'logs', '--db', db('rules'), join(gen, 'logs')])
  await ok(['scan', '--db', db('rules'), '--pool-tokens', '681280'])
  const c = new Database(db('rules'))
  // the copy holds what the write-ahead log holds
  c.pragma('wal_checkpoint(TRUNCATE)')
  copyFileSync(db('rules'), db('current'))
  c.prepare('UPDATE scan_runs SET sighting_rules = 1').run()
  c.close()
  for (const name of ['rules', 'current']) await ok(['incident', 'open', '--db', db(name), '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])
}, 240_000)

describe('sightings after a late registry: the last scan classes are said to be stale', () => {
  it('the console marks each class stale and says why, naming crosstalk scan', async () => {
    const r = await run(['sightings', '--db', db('late'), '--allow-incomplete'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^STALE: the canary registry changed since the last scan.*every class listed is the last scan's.*\(crosstalk scan\)$/m)
    const rows = r.stdout.split('\n').filter((l) => /CANARY-/.test(l))
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) expect(row).toMatch(/ \w+ \(stale\) /)
  })

  it('--json stays the contract array; stderr says the classes are stale', async () => {
    const r = await run(['sightings', '--db', db('late'), '--allow-incomplete', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true)
    expect(r.stderr).toMatch(/STALE: the canary registry changed since the last scan.*every class listed is the last scan's/)
  })

  it('without --allow-incomplete it is refused, naming crosstalk scan', async () => {
    const r = await run(['sightings', '--db', db('late')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/crosstalk scan/)
  })
})

describe('a scan under earlier sighting rules is a stale finding (staleFindings)', () => {
  it('scope --json nulls the marker figures and the exposure, as after a late registry; the current case keeps them', async () => {
    const current = await runJson<{contaminated_responses: number | null; exposure: unknown}>(['scope', '--db', db('current')])
    expect(current.contaminated_responses).toEqual(expect.any(Number))
    expect(current.exposure).not.toBeNull()
    const stale = await runJson<{contaminated_responses: number | null; exposure: unknown; flows: unknown}>(['scope', '--db', db('rules'), '--allow-incomplete'])
    expect(stale).toMatchObject({contaminated_responses: null, exposure: null, flows: null})
  })

  it('status --json gives no classes; its console and sightings say why', async () => {
    const status = await runJson<{sightings_by_class: unknown; sightings: number}>(['status', '--db', db('rules')])
    expect(status.sightings_by_class).toBeNull()
    expect(status.sightings).toBeGreaterThan(0)
    const console = await run(['status', '--db', db('rules')])
    expect(console.stdout).toMatch(/their classes not known: the last scan classified the markers found under earlier sighting rules/)
    const listing = await run(['sightings', '--db', db('rules'), '--allow-incomplete'])
    expect(listing.stdout).toMatch(/^STALE: the last scan classified the markers found under earlier sighting rules/m)
  })

  it('show gives no class for a record whose sightings were classified under earlier rules', async () => {
    const [first] = await runJson<Array<{request_id: string}>>(['sightings', '--db', db('current')])
    const current = await runJson<{findings: {sightings: unknown[] | null}}>(['show', first!.request_id, '--db', db('current')])
    expect(current.findings.sightings?.length).toBeGreaterThan(0)
    const stale = await runJson<{findings: {sightings: unknown[] | null}}>(['show', first!.request_id, '--db', db('rules')])
    expect(stale.findings.sightings).toBeNull()
  })

  it('the Article 33 draft states no scope and says why; the case page marks the markers stale', async () => {
    const a33 = await runJson<{scope: unknown; scope_as_it_stands: {reason: string} | null; open_items: Array<{item: string}>}>(['report', 'article33', '--db', db('rules'), '--allow-incomplete', '--format', 'json'])
    expect(a33.scope).toBeNull()
    expect(a33.scope_as_it_stands?.reason).toMatch(/earlier sighting rules/)
    expect(a33.open_items.map((o) => o.item).join('\n')).toMatch(/not known until a scan.*earlier sighting rules/)
    const page = JSON.parse((await run(['report', 'case', '--db', db('rules'), '--allow-incomplete', '--format', 'json'])).stdout) as {detection: {markers_stale: boolean; stale_reason: string}}
    expect(page.detection).toMatchObject({markers_stale: true, stale_reason: expect.stringMatching(/earlier sighting rules/)})
    const fr = await runJson<{open_items: Array<{item: string}>}>(['report', 'article33', '--db', db('rules'), '--allow-incomplete', '--format', 'json', '--lang', 'fr'])
    expect(fr.open_items.map((o) => o.item).join('\n')).toMatch(/règles d'observation antérieures/)
  })
})
