import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {makeCase, nativeLine} from '../helpers/case-builder.js'

// `report processor-notice --all --allow-incomplete --json` over findings that no longer cover the
// case wrote no notice and printed {"notices": []}: the same as "no controller affected". The
// contract: under --allow-incomplete, --json carries "detection": {"complete": false, ...}.

const MARKER = 'CANARY-a1a1a1a1a1a1a1a1a1a1'

interface Written {
  notices: Array<{out: string}>
  controllers_known: boolean
  detection: {complete: boolean; files_not_scanned: number; note: string | null}
}

describe('processor-notice --all --json', () => {
  it('says whether the controllers are known, and carries detection', async () => {
    const c = makeCase()
    await c.addCanary(MARKER, 'acme', 'acme-s1')
    await c.addFile([
      {request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${MARKER}`, response_text: 'ok'},
      {request_id: 'r2', tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `here: ${MARKER}`},
    ])
    const other = await c.addFile([{request_id: 'r3', tenant_id: 'globex', session_id: 'globex-s2', request_text: 'hello there', response_text: 'a clean answer'}])
    c.close()
    for (const args of [['scan'], ['incident', 'open', '--title', 't', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'processor']]) {
      const r = await run([...args, '--db', c.path])
      expect(r.code, r.stderr).toBe(0)
    }
    const complete = await run(['report', 'processor-notice', '--all', '--db', c.path, '--out', join(c.dir, 'n1'), '--json'])
    expect(complete.code, complete.stderr).toBe(0)
    const known = JSON.parse(complete.stdout) as Written
    expect(known.controllers_known).toBe(true)
    expect(known.detection.complete).toBe(true)
    expect(known.notices.length).toBe(2)

    // Dropping a file leaves provenance not covering the case: the findings name no controller.
    expect((await run(['drop', other, '--reason', 'test', '--db', c.path])).code).toBe(0)
    const stale = await run(['report', 'processor-notice', '--all', '--allow-incomplete', '--db', c.path, '--out', join(c.dir, 'n2'), '--json'])
    expect(stale.code, stale.stderr).toBe(0)
    const unknown = JSON.parse(stale.stdout) as Written
    expect(unknown.notices).toEqual([])
    expect(unknown.controllers_known).toBe(false)
    expect(unknown.detection.complete).toBe(false)
    expect(unknown.detection.note).toMatch(/Detection is incomplete/)
    expect(stale.stderr).toMatch(/the controllers affected are not known/)
  }, 60_000)

  it('says the controllers are not known while a log ingested after the last scan is unscanned, as clock does', async () => {
    const c = makeCase()
    await c.addCanary(MARKER, 'acme', 'acme-s1')
    await c.addFile([
      {request_id: 'r1', tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${MARKER}`, response_text: 'ok'},
      {request_id: 'r2', tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `here: ${MARKER}`},
    ])
    c.close()
    for (const args of [['scan'], ['incident', 'open', '--title', 't', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'processor']]) {
      const r = await run([...args, '--db', c.path])
      expect(r.code, r.stderr).toBe(0)
    }
    // A late log: its answer carries acme's marker to a third customer the last scan never saw.
    const late = join(c.dir, 'late.jsonl')
    writeFileSync(late, JSON.stringify(nativeLine({request_id: 'r9', tenant_id: 'initech', session_id: 'initech-s1', request_text: 'hey', response_text: `again ${MARKER}`}, Date.parse('2026-11-02T07:00:00Z'))) + '\n')
    const ingest = await run(['ingest', 'logs', late, '--db', c.path])
    expect(ingest.code, ingest.stderr).toBe(0)

    const clock = JSON.parse((await run(['clock', '--db', c.path, '--json'])).stdout) as {controllers_known: boolean}
    expect(clock.controllers_known).toBe(false)
    const all = await run(['report', 'processor-notice', '--all', '--allow-incomplete', '--db', c.path, '--out', join(c.dir, 'n'), '--json'])
    expect(all.code, all.stderr).toBe(0)
    const written = JSON.parse(all.stdout) as Written
    expect(written.detection.complete).toBe(false)
    expect(written.notices.length).toBe(2)
    expect(written.controllers_known).toBe(false)
    const register = await run(['report', 'register', '--format', 'json', '--allow-incomplete', '--db', c.path])
    expect(register.code, register.stderr).toBe(0)
    expect((JSON.parse(register.stdout) as {controllers_known: boolean | null}).controllers_known).toBe(false)
    // The register's Markdown gives the cause that holds: detection, not a registry the case has.
    const md = await run(['report', 'register', '--allow-incomplete', '--db', c.path])
    expect(md.stdout).toMatch(/Controllers notified \| 0 of 2 found so far; how many controllers are to be notified is not known yet \(detection is incomplete\)/)
    expect(md.stdout).not.toMatch(/no canary registry/)

    // Once scanned, the third customer is found and the set is known.
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const after = JSON.parse((await run(['report', 'processor-notice', '--all', '--db', c.path, '--out', join(c.dir, 'n2'), '--json'])).stdout) as Written
    expect(after.notices.length).toBe(3)
    expect(after.controllers_known).toBe(true)
  }, 60_000)
})
