import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {noRegistryOrphanCase} from '../helpers/orphan-case.js'

// With no canary registry, a marker-shaped token in an answer (an orphan) leaves the exposure not
// known (exposureKnown): the drafts say so, and scope --json gives exposure null. The JSON of the
// Article 33 draft gave every exposure figure as 0 (exposure, the marker counts, the ranges' low
// bound), assess gave "individuals 0", and the register's facts sentence stated the verbatim
// text's counts as the whole ("21 responses carried ...").

const TEXT = 'Olga Petersen asked us to move the shipment of insulin pens to the clinic in Aarhus before the twelfth of March'
const MARKER = 'CANARY-0123456789abcdef0123456789abcdef'

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10, decode_node: 'd1',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

/** tn-b is served tn-a's text verbatim, with a marker-shaped token; with `registry` the token is tn-a's registered marker. */
async function verbatimCase(registry: boolean, role: 'controller' | 'processor' = 'controller'): Promise<string> {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'gw.jsonl'), [
    line('2026-11-01T10:00:00Z', 'r1', 'tn-a', 'sa', `please note: ${TEXT}`, 'noted'),
    line('2026-11-01T10:05:00Z', 'r2', 'tn-b', 'sb', 'hello', `Sure. ${TEXT} ${MARKER}`),
  ].join('\n') + '\n')
  const db = join(dir, 'case.db')
  expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(0)
  if (registry) {
    const csv = join(dir, 'canaries.csv')
    writeFileSync(csv, `marker,tenant_id,session_id,issued_at\n${MARKER},tn-a,sa,2026-11-01T09:00:00Z\n`)
    expect((await run(['ingest', 'canaries', csv, '--db', db])).code).toBe(0)
  }
  const scan = await run(['scan', '--db', db])
  expect(scan.code, scan.stderr).toBe(0)
  expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', role])).code).toBe(0)
  return db
}

async function orphanCase(): Promise<string> {
  const db = await noRegistryOrphanCase()
  expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
  return db
}

async function json(args: string[]): Promise<Record<string, any>> {
  const r = await run(args)
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Record<string, any>
}

describe('exposure not known (no registry, orphan markers): JSON gives null, never 0', () => {
  it('report article33 --format json / --json, where verbatim text shows nothing', async () => {
    const db = await orphanCase()
    for (const args of [['--format', 'json'], ['--json']]) {
      const d = await json(['report', 'article33', '--db', db, '--lang', 'en', ...args])
      expect(d.scope.exposure_known).toBe(false)
      expect(d.scope.exposure_unknown_reason).toMatch(/marker-shaped tokens found in answers could not be attributed/)
      expect(d.scope.exposure).toBeNull()
      expect(d.scope.exposure_at_least).toMatchObject({responses: 0, by_canary: null})
      for (const k of ['contaminated_responses', 'cross_tenant_responses', 'cross_session_responses', 'exposed_sessions', 'exposed_tenants', 'recipient_tenants', 'flows']) expect(d.scope[k], k).toBeNull()
      expect(d.data_subjects.approximate.low).toBeNull()
      expect(d.records.approximate.low).toBeNull()
    }
  }, 120_000)

  it('assess: individuals not known (null), never 0, where verbatim text shows nothing', async () => {
    const db = await orphanCase()
    const a = await json(['assess', '--db', db, '--json'])
    const individuals = (a.inputs as Array<{name: string; value: unknown; why: string}>).find((i) => i.name === 'individuals')!
    expect(individuals.value).toBeNull()
    expect(individuals.why).toMatch(/^not known: 1 marker-shaped token/)
    const console = await run(['assess', '--db', db])
    expect(console.stdout).toMatch(/^individuals\s+not known/m)
    expect(console.stdout).not.toMatch(/^individuals\s+0/m)
  }, 120_000)

  it('scope --json, report case --json and the scope console: the estimates\' low bound not known, never 0', async () => {
    const db = await orphanCase()
    const scope = await json(['scope', '--db', db, '--json'])
    expect(scope.exposure).toBeNull()
    expect(scope.data_subjects).toMatchObject({low: null, high: null})
    expect(scope.records_concerned).toMatchObject({low: null, high: null})
    const page = await json(['report', 'case', '--db', db, '--json'])
    expect(page.scope.data_subjects).toMatchObject({low: null, high: null})
    expect(page.scope.records_concerned).toMatchObject({low: null, high: null})
    const console = (await run(['scope', '--db', db])).stdout
    expect(console).toMatch(/^data subjects \(sessions\)\s+unknown\s+unbounded/m)
    expect(console).toMatch(/^records concerned \(responses\)\s+unknown\s+unbounded/m)
  }, 120_000)

  it('where verbatim text shows some: the Article 33 JSON keeps it apart as a lower bound, and its statement says "at least"', async () => {
    const db = await verbatimCase(false)
    const d = await json(['report', 'article33', '--db', db, '--lang', 'en', '--format', 'json'])
    expect(d.scope.exposure_known).toBe(false)
    expect(d.scope.exposure).toBeNull()
    expect(d.scope.exposure_at_least).toMatchObject({responses: 1, by_canary: null, sessions: 1})
    expect(d.data_subjects.approximate.low).toBe(1)
    expect(d.nature.summary.join(' ')).toMatch(/^At least 1 response carried data belonging to another session/)
  }, 120_000)

  it('where verbatim text shows some: the register\'s facts say "at least"', async () => {
    const db = await verbatimCase(false)
    for (const lang of ['en', 'fr']) {
      const register = await json(['report', 'register', '--db', db, '--lang', lang, '--format', 'json'])
      expect(register.facts).toMatch(lang === 'en' ? /^At least 1 response carried .* The data of at least 1 session of at least 1 customer reached at least 1 receiving customer/ : /^Au moins 1 réponse contenait .* Les données d'au moins 1 session d'au moins 1 client ont atteint au moins 1 client destinataire/)
    }
  }, 120_000)

  it('with a registry the figures stand as numbers, with no exposure_known key', async () => {
    const db = await verbatimCase(true)
    const d = await json(['report', 'article33', '--db', db, '--lang', 'en', '--format', 'json'])
    expect(d.scope).not.toHaveProperty('exposure_known')
    expect(d.scope).not.toHaveProperty('exposure_at_least')
    expect(d.scope.exposure).toMatchObject({responses: 1, by_canary: 1})
    expect(d.scope.cross_tenant_responses).toBe(1)
    const register = await json(['report', 'register', '--db', db, '--lang', 'en', '--format', 'json'])
    expect(register.facts).toMatch(/^1 response carried/)
    const scope = await json(['scope', '--db', db, '--json'])
    expect(scope.data_subjects.low).toBe(1)
  }, 120_000)
})

describe('exposure not known: the processor notice says "at least N", and its JSON gives 0 as null', () => {
  it('tn-a (its data reached tn-b by verbatim text; it received none that verbatim text shows)', async () => {
    const db = await verbatimCase(false, 'processor')
    const md = await run(['report', 'processor-notice', '--db', db, '--tenant', 'tn-a', '--lang', 'en'])
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).toMatch(/^- At least 1 response to other sessions carried data of at least 1 of your sessions/m)
    expect(md.stdout).toMatch(/^- Responses that carried your data: \*\*at least 1\*\*/m)
    expect(md.stdout).toMatch(/^- Responses your users received that carried another session's data: \*\*not known\*\*/m)
    expect(md.stdout).toMatch(/^\| tenant\\#1 \| at least 1 \| not known \| not known \| at least 1 \|/m)
    expect(md.stdout).not.toMatch(/\*\*0\*\*/)
    const fr = await run(['report', 'processor-notice', '--db', db, '--tenant', 'tn-a', '--lang', 'fr'])
    expect(fr.stdout).toMatch(/^- Au moins 1 réponse adressée à d'autres sessions contenait des données d'au moins 1 de vos sessions/m)
    for (const args of [['--json'], ['--format', 'json']]) {
      const n = await json(['report', 'processor-notice', '--db', db, '--tenant', 'tn-a', '--lang', 'en', ...args])
      expect(n.exposure_known).toBe(false)
      expect(n.exposure_unknown_reason).toMatch(/could not be attributed/)
      expect(n.your_data_reached_others).toMatchObject({responses: 1, verbatim_only_responses: null, other_sessions_of_yours: null})
      expect(n.you_received_other_data).toMatchObject({responses: null, verbatim_only_responses: null, from_customers: null})
      expect(n.within_your_own_sessions).toMatchObject({responses: null})
    }
  }, 120_000)

  it('the Article 33 draft on a controller\'s behalf says "at least" too', async () => {
    const db = await verbatimCase(false, 'processor')
    for (const [lang, re] of [['en', /At least 1 response to other sessions carried data of at least 1 session of this controller's end users/], ['fr', /Au moins 1 réponse adressée à d'autres sessions contenait des données d'au moins 1 session des utilisateurs finaux/]] as const) {
      const d = await json(['report', 'article33', '--db', db, '--on-behalf-of-controller', 'tn-a', '--lang', lang, '--format', 'json'])
      expect(d.nature.summary.join(' ')).toMatch(re)
    }
  }, 120_000)

  it('with a registry: the counts stand, no exposure_known key', async () => {
    const db = await verbatimCase(true, 'processor')
    const n = await json(['report', 'processor-notice', '--db', db, '--tenant', 'tn-b', '--json'])
    expect(n).not.toHaveProperty('exposure_known')
    expect(n.you_received_other_data).toMatchObject({responses: 1, by_canary: 1})
    expect(n.your_data_reached_others).toMatchObject({responses: 0})
  }, 120_000)
})
