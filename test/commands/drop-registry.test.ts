import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {openCase} from '../../src/store/open-case.js'

// A wrong canary registry could not be withdrawn: every sighting had been classified with it,
// and the only way out was a new case. `drop REGISTRY` now withdraws it: its markers leave the
// registry (those another registry file of the case also gives stay, held by that file), the
// next scan classifies every record again, and verify tells the withdrawal from a marker
// removed by hand.

const A = 'CANARY-aaaa0000aaaa0000aaaa'
const B = 'CANARY-bbbb1111bbbb1111bbbb'
const C = 'CANARY-cccc2222cccc2222cccc'
const line = (i: number, tenant: string, session: string, request: string, response: string): string =>
  JSON.stringify({ts: `2026-11-03T01:${String(i).padStart(2, '0')}:00Z`, request_id: `r-${i}`, tenant_id: tenant, session_id: session, status: 200, request, response}) + '\n'
const registry = (rows: ReadonlyArray<[string, string, string]>): string =>
  `marker,tenant_id,session_id,issued_at\n${rows.map((r) => `${r.join(',')},2026-11-01T00:00:00Z`).join('\n')}\n`

interface Sighting {
  request_id: string
  class: string
  marker: string
  source_tenant: string | null
}
interface DropJson {
  registries_dropped: Array<{path: string; sha256: string; entries: number; markers_removed: number; markers_still_registered: number}>
  markers_withdrawn: number
  markers_reregistered: Array<{path: string; markers: number}>
}

/** tn-b's session answered with tn-a's marker A; tn-c's answered with its own marker C. */
function incident(): {dir: string; logs: string} {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(
    join(logs, 'app.jsonl'),
    line(1, 'tn-a', 's-a', `remember ${A}`, 'ok') + line(2, 'tn-b', 's-b', `remember ${B}`, `here: ${A}`) + line(3, 'tn-c', 's-c', `remember ${C}`, `yours: ${C}`),
  )
  return {dir, logs}
}

const classes = (rows: readonly Sighting[]) => rows.map((s) => `${s.request_id} ${s.class} ${s.marker} ${s.source_tenant}`).sort()

describe('drop REGISTRY: withdrawing a wrong canary registry', () => {
  it('classifies again with the corrected registry exactly as a case built with it alone, and verify passes', async () => {
    const {dir, logs} = incident()
    const wrong = join(dir, 'wrong.csv')
    const right = join(dir, 'right.csv')
    // The wrong registry gives A to tn-b's own session: the leak reads as the recipient's own marker.
    writeFileSync(wrong, registry([[A, 'tn-b', 's-b'], [B, 'tn-a', 's-a'], [C, 'tn-c', 's-c']]))
    writeFileSync(right, registry([[A, 'tn-a', 's-a'], [B, 'tn-b', 's-b'], [C, 'tn-c', 's-c']]))
    const db = join(dir, 'c.db')
    await run(['ingest', 'canaries', wrong, '--db', db])
    await run(['ingest', 'logs', logs, '--db', db])
    expect((await run(['scan', '--db', db, '--fail-on-leak'])).code).toBe(0)

    // The corrected registry is refused while the wrong one is in the case, and says how to withdraw it.
    const refused = await run(['ingest', 'canaries', right, '--db', db])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('withdraw it first: crosstalk drop REGISTRY')

    const dropped = await runJson<DropJson>(['drop', wrong, '--reason', 'registry of the staging cluster', '--db', db])
    expect(dropped.registries_dropped).toEqual([expect.objectContaining({path: wrong, entries: 3, markers_removed: 3, markers_still_registered: 0})])
    expect(dropped.markers_withdrawn).toBe(3)
    // Until the next scan the case's sightings were classified with a registry it no longer has: the gate fails closed.
    const status = await runJson<{detection: {complete: boolean; registry_changed: boolean}}>(['status', '--db', db])
    expect(status.detection).toMatchObject({complete: false, registry_changed: true})
    expect((await run(['sightings', '--db', db, '--fail-on-leak'])).code).not.toBe(0)

    await run(['ingest', 'canaries', right, '--db', db])
    expect((await run(['scan', '--db', db, '--fail-on-leak'])).code).toBe(3)
    const fresh = join(dir, 'fresh.db')
    await run(['ingest', 'canaries', right, '--db', fresh])
    await run(['ingest', 'logs', logs, '--db', fresh])
    await run(['scan', '--db', fresh])
    const after = await runJson<Sighting[]>(['sightings', '--db', db])
    expect(classes(after)).toEqual(classes(await runJson<Sighting[]>(['sightings', '--db', fresh])))
    expect(classes(after)).toContain(`r-2 cross_tenant ${A} tn-a`)
    const verify = await run(['verify', '--db', db])
    expect(verify.stderr + verify.stdout).not.toMatch(/FAIL/)
    expect(verify.code).toBe(0)
  }, 120_000)

  it('keeps the markers another registry file also gives, held by that file, and verify still catches a marker removed by hand', async () => {
    const {dir, logs} = incident()
    const first = join(dir, 'first.csv')
    const second = join(dir, 'second.csv')
    writeFileSync(first, registry([[A, 'tn-a', 's-a'], [B, 'tn-b', 's-b']]))
    writeFileSync(second, registry([[B, 'tn-b', 's-b'], [C, 'tn-c', 's-c']]))
    const db = join(dir, 'c.db')
    await run(['ingest', 'canaries', first, '--db', db])
    await run(['ingest', 'canaries', second, '--db', db])
    await run(['ingest', 'logs', logs, '--db', db])
    await run(['scan', '--db', db])

    const dropped = await runJson<DropJson>(['drop', first, '--reason', 'superseded', '--db', db])
    expect(dropped.registries_dropped).toEqual([expect.objectContaining({entries: 2, markers_removed: 1, markers_still_registered: 1})])
    expect(dropped.markers_reregistered).toEqual([expect.objectContaining({path: second, markers: 1})])
    const c = openCase(join(dir, 'c.db'))
    try {
      const held = c.prepare('SELECT c.marker, f.path FROM canaries c JOIN files f ON f.id = c.file_id ORDER BY c.marker').all()
      expect(held).toEqual([{marker: B, path: second}, {marker: C, path: second}])
    } finally {
      c.close()
    }
    await run(['scan', '--db', db])
    // A's owner is no longer registered: the leak of A is an orphan now.
    expect(classes(await runJson<Sighting[]>(['sightings', '--db', db, '--allow-incomplete']))).toContain(`r-2 orphan ${A} null`)
    expect((await run(['verify', '--db', db])).code).toBe(0)

    // The second one too: the registry is empty, and verify still reconciles it with the audit log.
    const again = await runJson<DropJson>(['drop', second, '--reason', 'wrong cluster', '--db', db])
    expect(again.markers_withdrawn).toBe(2)
    await run(['scan', '--db', db])
    expect((await run(['verify', '--db', db])).code).toBe(0)

    // A marker removed outside crosstalk after withdrawals is still a problem.
    const third = join(dir, 'third.csv')
    writeFileSync(third, registry([[A, 'tn-a', 's-a'], [B, 'tn-b', 's-b']]))
    await run(['ingest', 'canaries', third, '--db', db])
    await run(['scan', '--db', db])
    const t = openCase(db)
    try {
      t.prepare('DELETE FROM canaries WHERE marker = ?').run(A)
    } finally {
      t.close()
    }
    const tampered = await run(['verify', '--db', db])
    expect(tampered.code).toBe(1)
    expect(tampered.stdout + tampered.stderr).toMatch(/removed outside crosstalk/)
  }, 120_000)
})
