import {beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase} from '../helpers/case-builder.js'
import {run, runJson} from '../helpers/commands.js'

// The Article 34 letter goes to data subjects: a final one holds nothing meant for its sender
// (the notes, the list of open items: on stderr instead), and a letter a processor prepares for
// a controller never names the controller by the processor's tenant id, nor states the
// processor's whole-case risk decision as the controller's.

const MARK_A = 'CANARY-a2a2a2a2a2a2a2a2a2a2'
const MARK_B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'
const RATIONALE = 'PROC-RATIONALE risk across all customers'

async function leakCase(role: 'controller' | 'processor'): Promise<string> {
  const c = makeCase()
  await c.addCanaries([
    [MARK_A, 'tenant-alpha', 'ta-s1'],
    [MARK_B, 'tenant-beta', 'tb-s1'],
  ])
  const rows: Array<[string, string, string, string, string]> = [
    ['2026-10-22T10:00:00.000Z', 'tenant-alpha', 'ta-s1', `${MARK_A} my notes`, 'noted'],
    ['2026-10-22T10:10:00.000Z', 'tenant-beta', 'tb-s2', 'prompt', `Sure! ${MARK_A} as agreed.`],
    ['2026-10-22T10:20:00.000Z', 'tenant-beta', 'tb-s1', `${MARK_B} my notes`, 'noted'],
    ['2026-10-22T10:30:00.000Z', 'tenant-alpha', 'ta-s3', 'prompt', `Here you go: ${MARK_B}.`],
  ]
  await c.addFile(rows.map(([ts, tenant, session, request, text], i) => ({request_id: `req-${i + 1}`, ts_ms: Date.parse(ts), tenant_id: tenant, session_id: session, decode_node: 'node-1', prompt_tokens: 100, request_text: request, response_text: text})))
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  c.close()
  const ok = async (args: string[]): Promise<void> => {
    const r = await run([...args, '--db', c.path])
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  }
  await ok(['incident', 'open', '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', role, '--processor-name', 'ModelHost'])
  await ok(['assess', '--decide', 'notify', '--rationale', RATIONALE, '--decided-by', 'ModelHost DPO'])
  return c.path
}

const letter = (db: string, extra: string[] = []) => run(['report', 'article34', '--db', db, '--lang', 'en', ...extra])

describe('a final Article 34 letter holds nothing for its sender', () => {
  let db: string
  beforeAll(async () => {
    db = await leakCase('controller')
  }, 60_000)

  it('the draft gives the note for the sender after the letter, in a section of its own', async () => {
    const r = await letter(db)
    expect(r.code, r.stderr).toBe(0)
    const notes = r.stdout.indexOf('## For the sender: notes (not part of the letter)')
    expect(notes).toBeGreaterThan(r.stdout.indexOf('We are sorry this happened'))
    expect(r.stdout.slice(notes)).toMatch(/Note for the sender: the recorded decision .* is "notify the supervisory authority"/)
    expect(r.stdout.slice(0, notes)).not.toMatch(/Note for the sender/)
  })

  it('the final letter leaves the note and the open items out, and gives them on stderr', async () => {
    const r = await letter(db, ['--final', '--accept-open-items', 'J. Doe'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^# FINAL/)
    expect(r.stdout).not.toMatch(/Note for the sender|For the sender/)
    expect(r.stderr).toMatch(/note for the sender \(not in the letter\): Note for the sender: the recorded decision/)
    expect(r.stderr).toMatch(/open item accepted \(not listed in the letter\): /)
  })
})

describe('an Article 34 letter a processor prepares for a controller', () => {
  let db: string
  beforeAll(async () => {
    db = await leakCase('processor')
  }, 60_000)

  it('never names the controller by its tenant id in the letter: its name is an open item, the id only in the sender\'s notes', async () => {
    const d = await runJson<{organisation: string | null; open_items: Array<{section: string; item: string}>}>(['report', 'article34', '--db', db, '--lang', 'en', '--format', 'json', '--on-behalf-of-controller', 'tenant-beta'])
    expect(d.organisation).toBeNull()
    expect(d.open_items.filter((o) => o.section === 'contact').map((o) => o.item)).toEqual(expect.arrayContaining([expect.stringMatching(/^the controller's name as its data subjects know it/)]))
    const draft = (await letter(db, ['--on-behalf-of-controller', 'tenant-beta'])).stdout
    const sender = draft.indexOf('## For the sender')
    expect(sender).toBeGreaterThan(0)
    expect(draft.slice(0, sender)).not.toContain('tenant-beta')
    const final = await letter(db, ['--on-behalf-of-controller', 'tenant-beta', '--final', '--accept-open-items', 'J. Doe'])
    expect(final.code, final.stderr).toBe(0)
    expect(final.stdout).not.toContain('tenant-beta')
    expect(final.stderr).toMatch(/Prepared by the processor for the controller \(customer tenant-beta\)/)
  })

  it('states no risk decision the controller did not take: the processor\'s is an open item for the controller', async () => {
    const d = await runJson<{decision: string | null; notes: string[]; statements: Array<{text: string}>; open_items: Array<{section: string; item: string; record_with: string | null}>}>(
      ['report', 'article34', '--db', db, '--lang', 'en', '--format', 'json', '--on-behalf-of-controller', 'tenant-beta'],
    )
    expect(d.decision).toBeNull()
    expect(JSON.stringify(d.statements)).not.toMatch(/recorded decision|notify the supervisory authority|PROC-RATIONALE/)
    expect(d.notes.join(' ')).not.toMatch(/recorded decision/)
    const risk = d.open_items.find((o) => o.section === 'decision')
    expect(risk?.record_with).toMatch(/for the controller \(customer tenant-beta\) to assess and decide: the assessment recorded in this case \(crosstalk assess\) is the processor's own/)
  })
})
