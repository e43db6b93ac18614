import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {makeCase} from '../helpers/case-builder.js'

// `crosstalk provenance` lists what the last scan stored. Other parameters are a what-if: the
// stored findings, and scope and every draft built on them, do not change unless `scan` is run.

const SECRET = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'

/** tA's prompt answered to tB, tC and tD: three recipients, four tenants holding the text. */
async function leakCase(recipients: readonly string[]): Promise<string> {
  const c = makeCase()
  await c.addFile([
    {request_id: 'src', tenant_id: 'tA', session_id: 'sA', request_text: `please keep this: ${SECRET}`, response_text: 'noted'},
    ...recipients.map((t, i) => ({request_id: `leak${i}`, tenant_id: t, session_id: `s${t}`, request_text: 'hi', response_text: `sure, ${SECRET}`})),
  ])
  c.close()
  return c.path
}

const exposure = async (db: string): Promise<number> => JSON.parse((await run(['scope', '--db', db, '--json'])).stdout).exposure.responses as number
const listed = async (args: readonly string[]): Promise<{code: number; rows: Array<{request_id: string}>; stderr: string}> => {
  const r = await run(['provenance', '--json', ...args])
  return {code: r.code, rows: r.code === 0 ? JSON.parse(r.stdout) : [], stderr: r.stderr}
}

describe('provenance lists what is stored, and never changes it', () => {
  it('on a case never scanned it says to run scan (exit 1) and scans nothing', async () => {
    const db = await leakCase(['tB'])
    const r = await run(['provenance', '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/never scanned.*crosstalk scan/)
    const status = JSON.parse((await run(['status', '--db', db, '--json'])).stdout)
    expect(status.detection.never_scanned).toBe(true)
  })

  it('other parameters are a what-if: the stored findings, scope and the draft stay as the scan made them', async () => {
    const db = await leakCase(['tB'])
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const before = await exposure(db)
    expect(before).toBe(1)
    const whatIf = await listed(['--db', db, '--min-words', '40'])
    expect(whatIf.code).toBe(0)
    // the overlap is 16 words: none at 40+
    expect(whatIf.rows).toEqual([])
    expect(whatIf.stderr).toMatch(/what-if: provenance computed with --min-words 40 --boilerplate-tenants 3, not stored; the stored findings \(made with --min-words 12 --boilerplate-tenants 3/)
    expect(whatIf.stderr).toContain('crosstalk scan --min-words 40 --boilerplate-tenants 3')
    expect(await exposure(db)).toBe(before)
    const plain = await listed(['--db', db])
    expect(plain.rows.map((r) => r.request_id)).toEqual(['leak0'])
    expect(plain.stderr).toMatch(/--min-words 12 --boilerplate-tenants 3/)
  })

  it("a plain listing after scan --boilerplate-tenants keeps the scan's findings, and the draft states the scan's parameters", async () => {
    const db = await leakCase(['tB', 'tC', 'tD'])
    expect((await run(['scan', '--db', db, '--boilerplate-tenants', '10', '--min-words', '14'])).code).toBe(0)
    expect(await exposure(db)).toBe(3)
    const plain = await listed(['--db', db])
    expect(plain.rows).toHaveLength(3)
    expect(await exposure(db)).toBe(3)
    // A what-if with the defaults (text in 3+ tenants is boilerplate) sets all three aside, and stores nothing.
    const whatIf = await listed(['--db', db, '--boilerplate-tenants', '3', '--min-words', '12'])
    expect(whatIf.rows).toEqual([])
    expect(await exposure(db)).toBe(3)
    expect((await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    const en = (await run(['report', 'article33', '--db', db, '--lang', 'en'])).stdout
    expect(en).toContain('provenance, 14+ words; text found in 10 or more customers')
    expect(en).not.toContain('12+ words')
    const fr = (await run(['report', 'article33', '--db', db, '--lang', 'fr'])).stdout
    expect(fr).toContain('provenance, 14 mots ou plus')
  })
})

describe('provenance says what it could not examine', () => {
  it('answers with no text are counted in the listing; with none having text, provenance could not run (exit 1)', async () => {
    const c = makeCase()
    await c.addFile([
      {request_id: 'src', tenant_id: 'tA', session_id: 'sA', request_text: `please keep this: ${SECRET}`, response_text: 'noted'},
      {request_id: 'blank', tenant_id: 'tB', session_id: 'sB', request_text: 'hi', response_text: null},
    ])
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const some = await run(['provenance', '--db', c.path])
    expect(some.code).toBe(0)
    expect(some.stdout).toContain("No response among the 1 response that had text repeats an earlier other session's text; 1 response of 2 had no response text and was not examined")
    const json = await run(['provenance', '--db', c.path, '--json'])
    expect(json.stderr).toContain('1 response of 2 had no response text')

    const d = makeCase()
    await d.addFile([
      {request_id: 'a', tenant_id: 'tA', session_id: 'sA', request_text: 'hi', response_text: null},
      {request_id: 'b', tenant_id: 'tB', session_id: 'sB', request_text: 'hi', response_text: null},
    ])
    d.close()
    expect((await run(['scan', '--db', d.path])).code).toBe(0)
    const none = await run(['provenance', '--db', d.path])
    expect(none.code).toBe(1)
    expect(none.stderr).toMatch(/provenance could not run: none of the 2 responses had response text/)
    expect(none.stdout).not.toMatch(/No response repeats/)
  })
})

describe('a leak set aside as boilerplate is counted and said, never an all-clear', () => {
  it('scope --json counts it, provenance warns with how to review it, and the Article 33 draft lists it as an open item', async () => {
    const db = await leakCase(['tB', 'tC', 'tD'])
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const scope = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout)
    expect(scope.exposure.responses).toBe(0)
    expect(scope.detection.provenance_boilerplate_responses).toBe(3)
    const listed = await run(['provenance', '--db', db])
    expect(listed.stderr).toContain("3 responses repeat text found in 3 or more tenants' sessions, set aside as boilerplate and not listed; review them: crosstalk provenance --boilerplate-tenants N")
    expect((await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    const draft = JSON.parse((await run(['report', 'article33', '--db', db, '--lang', 'en', '--format', 'json'])).stdout)
    expect(draft.scope.provenance_boilerplate_responses).toBe(3)
    expect(draft.open_items.some((o: {item: string}) => o.item.startsWith("3 responses repeat text found in 3 or more customers' sessions, set aside as boilerplate; review them"))).toBe(true)
    const md = (await run(['report', 'article33', '--db', db, '--lang', 'en'])).stdout
    expect(md).not.toMatch(/\| 55 \|[^\n]*\| none:/)
  })
})

describe('--min-words below what the fingerprints guarantee', () => {
  it('is a usage error (exit 2) naming the minimum, in scan and in provenance, and stores nothing', async () => {
    const db = await leakCase(['tB'])
    const scan = await run(['scan', '--db', db, '--min-words', '5'])
    expect(scan.code).toBe(2)
    expect(scan.stderr).toMatch(/--min-words must be at least 12 \(got 5\): the word fingerprints find every verbatim run of 12 or more words/)
    expect(JSON.parse((await run(['status', '--db', db, '--json'])).stdout).detection.never_scanned).toBe(true)
    expect((await run(['scan', '--db', db, '--min-words', '12'])).code).toBe(0)
    const whatIf = await run(['provenance', '--db', db, '--min-words', '11'])
    expect(whatIf.code).toBe(2)
    expect(whatIf.stderr).toMatch(/--min-words must be at least 12 \(got 11\)/)
  })
})

describe('--min-words and other numeric flags past what can be used', () => {
  it('is a usage error (exit 2) naming the flag, in scan and in provenance, and the scan stored stays finished', async () => {
    const db = await leakCase(['tB'])
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const scan = await run(['scan', '--db', db, '--min-words', '100000000000'])
    expect(scan.code).toBe(2)
    expect(scan.stderr).toMatch(/--min-words.*10000/)
    expect(scan.stderr).not.toMatch(/typed array/)
    const whatIf = await run(['provenance', '--db', db, '--min-words', '5000000000'])
    expect(whatIf.code).toBe(2)
    expect(whatIf.stderr).toMatch(/--min-words.*10000/)
    for (const args of [['--boilerplate-tenants', '100000000000000000000000'], ['--pool-tokens', '100000000000000000000000']]) {
      const r = await run(['scan', '--db', db, ...args])
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(args[0])
    }
    // Nothing was begun: the earlier scan's findings are listed as they were.
    const after = await listed(['--db', db])
    expect(after.code).toBe(0)
    expect(after.rows.map((r) => r.request_id)).toEqual(['leak0'])
  })
})
