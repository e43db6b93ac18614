import {beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase} from '../helpers/case-builder.js'
import {run, runJson} from '../helpers/commands.js'

// A processor drafting for one controller (report article33/article34 --on-behalf-of-controller)
// writes to that controller's regulator or its users. The draft states that controller's breach
// only: never the processor's own handling as the controller's, never a notification made for
// another controller, never another customer's disclosed data, and nothing for a customer the
// case shows untouched.
//
// The case: ta's data (its marker, an e-mail address and an IBAN) is served to a tb user; tb's
// own data (its marker, no personal-data value) reaches only another tb user; td has one clean
// answer and no exposure.

const MARK_A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const MARK_B = 'CANARY-b1b1b1b1b1b1b1b1b1b1'
const EMAIL = 'carol.private@example.org'
const IBAN = 'DE89370400440532013000'
const PROCESSOR_FACTS = {
  basis: 'PROC-BASIS on-call SRE confirmed',
  decider: 'PROC-DECIDER SRE lead',
  reference: 'PROC-REF-7',
  discovery: 'PROC-DISCOVERY canary alert',
  activity: 'PROC-ACTIVITY NACE J62.01',
  delay: 'PROC-DELAY notice to ta was late',
  rationale: 'PROC-RATIONALE high risk across all customers',
}
// Cross-border facts in the processor's record (incident set): the lead authority, countries and establishments are the controller's.
const PROC = {lead: 'PROC-LEAD DPC (Ireland)', countries: 'PROC-COUNTRIES IE, FR', establishment: 'PROC-ESTAB IE', notified: 'PROC-NOTIFIED DPC', perCountry: 'IE 7; FR 9'}

async function processorCase(): Promise<string> {
  const c = makeCase()
  await c.addCanaries([
    [MARK_A, 'ta', 'ta-s1'],
    [MARK_B, 'tb', 'tb-s1'],
  ])
  // ts, tenant, session, request text, response text
  const rows: Array<[string, string, string, string, string]> = [
    ['2026-10-22T10:00:00.000Z', 'ta', 'ta-s1', `${MARK_A} write to ${EMAIL}, pay to ${IBAN}`, 'noted'],
    ['2026-10-22T10:10:00.000Z', 'tb', 'tb-s2', 'prompt', `Sure! ${MARK_A} Contact ${EMAIL}, IBAN ${IBAN}.`],
    ['2026-10-22T10:20:00.000Z', 'tb', 'tb-s1', `${MARK_B} my notes`, 'noted'],
    ['2026-10-22T10:30:00.000Z', 'tb', 'tb-s3', 'prompt', `Here you go: ${MARK_B} as agreed.`],
    ['2026-10-22T10:40:00.000Z', 'td', 'td-s1', 'prompt', 'a clean answer'],
  ]
  await c.addFile(
    rows.map(([ts, tenant, session, request, text], i) => ({
      request_id: `req-${i + 1}`, ts_ms: Date.parse(ts), tenant_id: tenant, session_id: session, decode_node: 'node-1', prompt_tokens: 100, request_text: request, response_text: text,
    })),
  )
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  c.close()
  const db = c.path
  const ok = async (args: string[]): Promise<void> => {
    const r = await run([...args, '--db', db])
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  }
  await ok(['incident', 'open', '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', 'processor', '--processor-name', 'ModelHost'])
  return db
}

interface Draft {
  phase: string
  clock: {status: string; late: boolean} | null
  delay_reason: string | null
  controller: {internal_reference: string | null; sector: string | null; organisation_size: string | null; economic_activity: string | null}
  timeline: {detected_at: string | null; awareness_basis: string | null; awareness_decided_by: string | null; awareness_amendments: number; discovery: string | null; informed_by: string | null; informed_at: string | null}
  risk: unknown
  consequences: string[]
  data_categories: Array<{kind: string; count: number}>
  notifications: Array<{recipient: string; reference: string; controller: string | null}>
  form_fields: Array<{id: string; value: string; open: boolean}>
  open_items: Array<{item: string; record_with: string | null}>
}

const draft = async (db: string, tenant: string, extra: string[] = [], now = '2026-10-24T00:00:00Z'): Promise<Draft> =>
  runJson<Draft>(['report', 'article33', '--db', db, '--format', 'json', '--lang', 'en', '--on-behalf-of-controller', tenant, '--now', now, ...extra])

describe('an Article 33 draft on behalf of a controller states none of the processor\'s own incident facts as the controller\'s', () => {
  let db: string
  beforeAll(async () => {
    db = await processorCase()
    const set = await run([
      'incident', 'set', '--db', db, '--awareness-basis', PROCESSOR_FACTS.basis, '--awareness-decided-by', PROCESSOR_FACTS.decider, '--detected-at', '2026-10-23T07:00:00Z',
      '--internal-reference', PROCESSOR_FACTS.reference, '--sector', 'public', '--organisation-size', 'large', '--economic-activity', PROCESSOR_FACTS.activity, '--discovery', PROCESSOR_FACTS.discovery,
    ])
    expect(set.code, set.stderr).toBe(0)
    const amend = await run(['incident', 'amend-awareness', '--db', db, '--aware-at', '2026-10-23T07:30:00Z', '--reason', 'processor log review'])
    expect(amend.code, amend.stderr).toBe(0)
    for (const [tenant, at] of [['ta', '2026-10-23T12:00:00Z'], ['tb', '2026-10-23T13:00:00Z']] as const) {
      const r = await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', at, '--reference', `N-${tenant}`, '--recipient', tenant])
      expect(r.code, r.stderr).toBe(0)
    }
  }, 60_000)

  it('leaves the controller\'s awareness basis, detection, discovery, reference and organisation open, and says the processor informed it', async () => {
    const d = await draft(db, 'tb')
    expect(d.timeline).toMatchObject({awareness_basis: null, awareness_decided_by: null, detected_at: null, discovery: null, awareness_amendments: 0})
    expect(d.controller).toMatchObject({internal_reference: null, sector: null, organisation_size: null, economic_activity: null})
    // Template 52: the processor's notice to tb is what made it aware.
    expect(d.timeline.informed_by).toBe('ModelHost (the processor)')
    expect(d.timeline.informed_at).toBe('2026-10-23T13:00:00.000Z')
    const text = JSON.stringify(d) + (await run(['report', 'article33', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tb', '--now', '2026-10-24T00:00:00Z'])).stdout
    for (const v of [PROCESSOR_FACTS.basis, PROCESSOR_FACTS.decider, PROCESSOR_FACTS.reference, PROCESSOR_FACTS.discovery, PROCESSOR_FACTS.activity, '2026-10-23T07:00:00.000Z']) expect(text, v).not.toContain(v)
    const items = d.open_items.filter((o) => /for the controller \(customer tb\) to complete: the one recorded in this case is the processor's own/.test(o.record_with ?? ''))
    expect(items.map((o) => o.item)).toEqual(expect.arrayContaining([expect.stringMatching(/^basis for the awareness time/), expect.stringMatching(/^time of first detection/), expect.stringMatching(/^how the breach was discovered/), expect.stringMatching(/^sector and size/)]))
    expect(d.form_fields.find((f) => f.id === '7')).toMatchObject({open: true})
    // The processor's own draft of the whole case is not this: the controller-role case still states them.
  })

  it('never takes the processor\'s delay reason as the controller\'s: a late final draft is refused without the controller\'s own', async () => {
    expect((await run(['incident', 'set', '--db', db, '--delay-reason', PROCESSOR_FACTS.delay])).code).toBe(0)
    const late = await draft(db, 'tb', [], '2026-10-30T00:00:00Z')
    expect(late.clock?.late).toBe(true)
    expect(late.delay_reason).toBeNull()
    expect(JSON.stringify(late)).not.toContain(PROCESSOR_FACTS.delay)
    expect(late.form_fields.find((f) => f.id === '49')).toMatchObject({open: true})
    const final = await run(['report', 'article33', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tb', '--now', '2026-10-30T00:00:00Z', '--final', '--accept-open-items', 'DPO'])
    expect(final.code).toBe(1)
    expect(final.stderr).toMatch(/a final late notification must give the reasons for the delay.*the controller's reasons with --delay-reason TEXT/)
    const given = await draft(db, 'tb', ['--delay-reason', 'TB-OWN-REASON'], '2026-10-30T00:00:00Z')
    expect(given.delay_reason).toBe('TB-OWN-REASON')
  })

  it('states no risk decision the controller did not take: the processor\'s assessment over all customers is an open item', async () => {
    const assess = await run(['assess', '--db', db, '--decide', 'notify-subjects', '--rationale', PROCESSOR_FACTS.rationale, '--decided-by', 'ModelHost DPO'])
    expect(assess.code, assess.stderr).toBe(0)
    const d = await draft(db, 'tb')
    expect(d.risk).toBeNull()
    expect(JSON.stringify(d)).not.toContain(PROCESSOR_FACTS.rationale)
    expect(d.form_fields.filter((f) => ['87', '89'].includes(f.id)).every((f) => f.open)).toBe(true)
    expect(d.open_items.some((o) => /the assessment recorded in this case \(crosstalk assess\) is the processor's own/.test(o.record_with ?? ''))).toBe(true)
  })

  it('the Article 33 draft for a controller takes no lead authority, countries or establishments from the processor\'s record', async () => {
    const set = await run([
      'incident', 'set', '--db', db, '--lead-authority', PROC.lead, '--countries', PROC.countries, '--establishment-countries', PROC.establishment,
      '--authorities-notified', PROC.notified, '--cross-border', 'yes', '--subjects-per-country', PROC.perCountry,
    ])
    expect(set.code, set.stderr).toBe(0)
    const d = await runJson<{cross_border: Record<string, string | null>; form_fields: Array<{id: string; value: string; open: boolean}>; open_items: Array<{item: string; record_with: string | null}>}>(
      ['report', 'article33', '--db', db, '--format', 'json', '--lang', 'en', '--on-behalf-of-controller', 'tb', '--now', '2026-10-24T00:00:00Z'],
    )
    expect(d.cross_border).toEqual({processing: null, lead_authority: null, countries: null, establishment_countries: null, subjects_per_country: null, authorities_notified: null})
    const md = (await run(['report', 'article33', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tb', '--now', '2026-10-24T00:00:00Z'])).stdout
    for (const v of [...Object.values(PROC), 'PROC-']) {
      expect(JSON.stringify(d), v).not.toContain(v)
      expect(md, v).not.toContain(v)
    }
    for (const id of ['113', '114', '115', '116']) expect(d.form_fields.find((f) => f.id === id), id).toMatchObject({open: true})
    const processorOwn = /for the controller \(customer tb\) to complete: the one recorded in this case is the processor's own/
    const items = d.open_items.filter((o) => processorOwn.test(o.record_with ?? '')).map((o) => o.item)
    expect(items).toEqual(expect.arrayContaining([expect.stringMatching(/^lead supervisory authority|lead authority/i), expect.stringMatching(/^countries of the affected data subjects/), expect.stringMatching(/^countries where the controller is established/)]))
  })
})

describe('an authority notification in a processor\'s case concerns the controller it was recorded for', () => {
  let db: string
  beforeAll(async () => {
    db = await processorCase()
    for (const tenant of ['ta', 'tb']) expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T12:00:00Z', '--reference', `N-${tenant}`, '--recipient', tenant])).code).toBe(0)
  }, 60_000)

  it('one recorded without --controller makes no controller\'s draft a follow-up, and each says it is recorded', async () => {
    const r = await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T20:00:00Z', '--reference', 'DPC-UNNAMED', '--recipient', 'authority'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/names no controller/)
    for (const tenant of ['ta', 'tb']) {
      const d = await draft(db, tenant, [], '2026-10-30T00:00:00Z')
      expect(d.phase, tenant).toBe('initial')
      expect(d.clock?.status, tenant).not.toBe('notified')
      expect(d.notifications.map((n) => n.reference), tenant).toEqual([`N-${tenant}`])
      expect(d.open_items.some((o) => /recorded in this case without the controller it was made for \(initial 2026-10-23T20:00:00.000Z, ref DPC-UNNAMED\)/.test(o.item)), tenant).toBe(true)
    }
  })

  it('one recorded with --controller ta makes ta\'s draft a follow-up of it, never tb\'s', async () => {
    const rec = await runJson<{controller: string | null; recipient: string}>(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T21:00:00Z', '--reference', 'DPC-TA-1', '--recipient', 'authority', '--controller', 'ta', '--json'])
    expect(rec).toMatchObject({recipient: 'authority', controller: 'ta'})
    const ta = await draft(db, 'ta')
    expect(ta.phase).toBe('follow-up')
    expect(ta.clock?.status).toBe('notified')
    expect(ta.notifications.find((n) => n.reference === 'DPC-TA-1')).toMatchObject({controller: 'ta'})
    const tb = await draft(db, 'tb', [], '2026-10-30T00:00:00Z')
    expect(tb.phase).toBe('initial')
    expect(tb.clock).toMatchObject({late: true})
    expect(tb.clock?.status).not.toBe('notified')
    expect(JSON.stringify(tb)).not.toContain('DPC-TA-1')
    const tbMd = (await run(['report', 'article33', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tb'])).stdout
    expect(tbMd).not.toContain('DPC-TA-1')
    const letter = (await run(['report', 'article34', '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tb'])).stdout
    expect(letter).not.toMatch(/supervisory authority/i)
    // A follow-up goes with the initial one made for the same controller.
    const follow = await run(['notify', 'record', '--db', db, '--phase', 'follow-up', '--at', '2026-10-23T22:00:00Z', '--reference', 'DPC-TB-2', '--recipient', 'authority', '--controller', 'tb'])
    expect(follow.code).toBe(1)
    expect(follow.stderr).toMatch(/no initial notification to "authority" for controller "tb" is recorded/)
  })

  it('refuses --controller outside a processor\'s authority notification', async () => {
    const notice = await run(['notify', 'record', '--db', db, '--phase', 'follow-up', '--at', '2026-10-23T22:00:00Z', '--reference', 'X', '--recipient', 'ta', '--controller', 'ta'])
    expect(notice.code).toBe(1)
    expect(notice.stderr).toMatch(/--controller goes with --recipient authority/)
    const unknown = await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T22:00:00Z', '--reference', 'X', '--recipient', 'authority', '--controller', 'tz'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/tenant "tz" is not in this case \(no log record of it and no canary registered to it\)/)
  })
})

describe('a draft on behalf of one controller states its own breach only', () => {
  let db: string
  beforeAll(async () => {
    db = await processorCase()
  }, 60_000)

  it('never gives the other customers\' disclosed data (e-mail, IBAN, cross-organisation) as the data of the controller whose users received it', async () => {
    const tb = await draft(db, 'tb')
    expect(tb.data_categories.map((c) => c.kind)).not.toEqual(expect.arrayContaining(['email']))
    expect(tb.data_categories.map((c) => c.kind)).not.toEqual(expect.arrayContaining(['iban']))
    const said = tb.consequences.join('\n')
    expect(said).not.toMatch(/users of other organisations/)
    expect(said).toMatch(/other users of the same organisation/)
    expect(said).not.toMatch(/Financial data/)
    expect(said).not.toMatch(/phishing using the contact details disclosed/)
    expect(tb.form_fields.find((f) => f.id === '70-71')?.value).not.toMatch(/e-mail|IBAN/)
    // ta, whose data those values are, is told them.
    const ta = await draft(db, 'ta')
    expect(ta.data_categories.map((c) => c.kind)).toEqual(expect.arrayContaining(['email', 'iban']))
    expect(ta.consequences.join('\n')).toMatch(/users of other organisations[\s\S]*Financial data/)
  })

  it('refuses a draft or a letter for a customer with no exposure, as its processor notice is refused', async () => {
    const notice = await run(['report', 'processor-notice', '--db', db, '--tenant', 'td'])
    expect(notice.code).toBe(1)
    for (const report of ['article33', 'article34']) {
      const r = await run(['report', report, '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'td'])
      expect(r.code, report).toBe(1)
      expect(r.stderr, report).toMatch(new RegExp(`report ${report} --on-behalf-of-controller: tenant "td" has no exposure in this case \\(affected: 2 tenants; see report processor-notice --all\\)`))
      expect(r.stdout, report).toBe('')
    }
    for (const report of ['article33', 'article34']) expect((await run(['report', report, '--db', db, '--lang', 'en', '--on-behalf-of-controller', 'tb'])).code, report).toBe(0)
  })
})
