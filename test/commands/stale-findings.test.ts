import {copyFileSync, readdirSync, readFileSync, writeFileSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA repros 1, 6, 7, 8 and 12 (drafts): figures of findings that no longer cover the case (a scan
// with --no-provenance after new logs; a canary registry ingested after the scan) were stated as
// facts by the drafts, scope --tenant and the processor notices; a processor's clock said every
// controller notified while new logs were unscanned; the detection note said every number covered
// only what was scanned while the at-risk counts read every record; a notice dropped an unknown
// at-risk figure without a word.

const dir = tempDir('ct-stale-')
const gen = join(dir, 'gen')
const logs = (prefix: string): string[] => readdirSync(join(gen, 'logs')).filter((f) => f.startsWith(prefix)).map((f) => join(gen, 'logs', f))
const db = (name: string): string => join(dir, `${name}.db`)
const copy = (from: string, to: string): string => {
  copyFileSync(db(from), db(to))
  return db(to)
}
const ok = async (args: string[]): Promise<void> => {
  const r = await run(args)
  if (r.code !== 0) throw new Error(`crosstalk ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
}

interface Sighting {class: string; recipient_tenant: string}

beforeAll(async () => {
  await ok(['generate', '--out', gen, '--records', '1500', '--seed', '11'])
  // part: canaries and part of the logs scanned; then the rest ingested, not scanned
  await ok(['ingest', 'canaries', '--db', db('part'), join(gen, 'canaries.csv')])
  await ok(['ingest', 'logs', '--db', db('part'), ...logs('gw-ams1'), ...logs('gw-fra1')])
  await ok(['scan', '--db', db('part'), '--pool-tokens', '681280'])
  await ok(['ingest', 'logs', '--db', db('part'), ...logs('gw-iad1')])
  // stale provenance: the new logs scanned for markers only
  await ok(['scan', '--db', copy('part', 'noprov'), '--no-provenance'])
  await ok(['incident', 'open', '--db', db('noprov'), '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])
  // registry after the scan
  await ok(['ingest', 'logs', '--db', db('late-registry'), join(gen, 'logs')])
  await ok(['scan', '--db', db('late-registry'), '--pool-tokens', '681280'])
  await ok(['ingest', 'canaries', '--db', db('late-registry'), join(gen, 'canaries.csv')])
  await ok(['incident', 'open', '--db', db('late-registry'), '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])
}, 240_000)

describe('canary-less provenance that does not cover the case (repro 1)', () => {
  it('gives no verbatim-text figure as a fact: not in Article 33, not in scope --tenant, not in a processor notice', async () => {
    const scope = await runJson<{exposure: unknown; provenance_responses: unknown}>(['scope', '--db', db('noprov'), '--allow-incomplete'])
    expect(scope.exposure).toBeNull()
    const a33 = await runJson<{scope: unknown; open_items: Array<{item: string}>; detection: {note: string}}>(['report', 'article33', '--db', db('noprov'), '--allow-incomplete', '--lang', 'en'])
    // the draft's figures come from the same facts scope nulls: none is stated
    expect(a33.scope).toBeNull()
    expect(a33.open_items.map((o) => o.item).join('\n')).toMatch(/not known until a scan.*canary-less provenance does not cover the case/)
    // the banner says what is stale, not that every number covers what was scanned (every record was scanned for markers)
    expect(a33.detection.note).not.toMatch(/covers only what was scanned/)
    expect(a33.detection.note).toMatch(/figures that rest on verbatim text .* are not known until a scan/)

    const report = await run(['report', 'case', '--db', db('noprov'), '--allow-incomplete', '--format', 'json'])
    const caseJson = JSON.parse(report.stdout) as {detection: {findings_stale: boolean}; scope: {exposure: unknown; contaminated_responses: unknown; data_subjects: unknown}}
    expect(caseJson.detection.findings_stale).toBe(true)
    expect(caseJson.scope.exposure).toBeNull()
    expect(caseJson.scope.data_subjects).toBeNull()
    const timeline = await runJson<{exposure: unknown; pairs: unknown; hours: unknown}>(['timeline', '--db', db('noprov'), '--allow-incomplete'])
    expect(timeline.exposure).toBeNull()
    expect(timeline.pairs).toBeNull()
    expect((await run(['timeline', '--db', db('noprov'), '--allow-incomplete'])).stdout).toMatch(/findings do not cover the case .*the counts that rest on them are not known/)
    const sightings = await runJson<Sighting[]>(['sightings', '--db', db('noprov'), '--class', 'cross_tenant', '--allow-incomplete'])
    const tenant = sightings[0]!.recipient_tenant
    const view = await runJson<{received: {exposure: unknown; provenance_responses: unknown; responses: number}}>(['scope', '--db', db('noprov'), '--tenant', tenant, '--allow-incomplete'])
    expect(view.received.exposure).toBeNull()
    expect(view.received.provenance_responses).toBeNull()
    // what the markers count is still known
    expect(view.received.responses).toBeGreaterThan(0)
    const console = await run(['scope', '--db', db('noprov'), '--tenant', tenant, '--allow-incomplete'])
    expect(console.stdout).toMatch(/responses \(marker or verbatim text\)\s+unknown/)

    const processor = copy('noprov', 'noprov-processor')
    await ok(['incident', 'set', '--db', processor, '--role', 'processor', '--reason', 'we are the provider'])
    const notice = await run(['report', 'processor-notice', '--db', processor, '--tenant', tenant, '--allow-incomplete', '--lang', 'en'])
    expect(notice.code).toBe(1)
    expect(notice.stderr).toMatch(/exposure is not known: canary-less provenance does not cover the case/)
    const out = join(dir, 'notices')
    const all = await run(['report', 'processor-notice', '--db', processor, '--all', '--out', out, '--allow-incomplete'])
    // allowed, as every report is with --allow-incomplete: no notice of under-counts, and it says why
    expect(all.code).toBe(0)
    expect(all.stderr).toMatch(/controllers affected are not known: canary-less provenance does not cover the case.*no notice written/)
    expect(readdirSync(out)).toEqual([])
    const register = await run(['report', 'register', '--db', processor, '--allow-incomplete', '--lang', 'en'])
    expect(register.stdout).toMatch(/affected controllers: not known \(the scan's findings do not cover the case/)
    expect(register.stdout).not.toMatch(/the case has never been scanned/)
  }, 120_000)
})

describe('a canary registry ingested after the scan (repro 12)', () => {
  it('leaves the marker figures unknown, not 0, in scope and in the drafts, and says why', async () => {
    const scope = await runJson<{contaminated_responses: unknown; cross_tenant_responses: unknown; exposure: unknown; orphan_sightings: unknown; provenance_responses: unknown; detection: {registry_changed: boolean}}>(['scope', '--db', db('late-registry'), '--allow-incomplete'])
    expect(scope.detection.registry_changed).toBe(true)
    expect(scope.contaminated_responses).toBeNull()
    expect(scope.cross_tenant_responses).toBeNull()
    expect(scope.exposure).toBeNull()
    // the verbatim-text figures do not rest on the registry: still given
    expect(typeof scope.provenance_responses).toBe('number')
    const text = await run(['scope', '--db', db('late-registry'), '--allow-incomplete'])
    expect(text.stdout).toMatch(/canary registry changed since the last scan/)
    expect(text.stdout).toMatch(/contaminated responses\s+unknown/)
    // the orphans are the markers registered to nobody: with another registry, not known either
    expect(text.stdout).toMatch(/orphan markers seen\s+unknown/)
    const a33 = await run(['report', 'article33', '--db', db('late-registry'), '--allow-incomplete', '--lang', 'en'])
    expect(a33.stdout).not.toMatch(/of which with that session's canary marker \| 0 \|/)
    expect(a33.stdout).toMatch(/not known until a scan \(crosstalk scan\): the canary registry changed since the last scan/)
  }, 120_000)

  it('status: the sightings\' classes were decided against another registry: not known, never the last scan\'s (every marker an orphan)', async () => {
    const status = await runJson<{sightings: number | null; sightings_by_class: unknown}>(['status', '--db', db('late-registry')])
    expect(status.sightings).toBeGreaterThan(0)
    expect(status.sightings_by_class).toBeNull()
    const text = (await run(['status', '--db', db('late-registry')])).stdout
    expect(text).toMatch(/sightings +\d+ +\(their classes not known: the canary registry changed since the last scan/)
    expect(text).not.toMatch(/\(orphan \d+\)/)
  }, 120_000)

  it('timeline: the bug window (first to last of the sightings, the provenance and the at-risk responses) and the hours\' marker counts are not known, not the last scan\'s', async () => {
    const scope = await runJson<{bug_window: unknown}>(['scope', '--db', db('late-registry'), '--allow-incomplete'])
    expect(scope.bug_window).toBeNull()
    const json = await runJson<{bug_window: unknown; events: Array<{kind: string}>}>(['timeline', '--db', db('late-registry'), '--allow-incomplete'])
    expect(json.bug_window).toBeNull()
    expect(json.events.some((e) => e.kind.startsWith('bug_window'))).toBe(false)
    expect(json.events.some((e) => e.kind === 'node_first_at_risk')).toBe(true)
    const text = (await run(['timeline', '--db', db('late-registry'), '--allow-incomplete'])).stdout
    expect(text).toMatch(/Bug window: not known until a scan/)
    expect(text).not.toMatch(/Bug window: \d{4}-/)
    expect(text).not.toMatch(/bug_window_start/)
    // each hour: the marker and text counts unknown, never the last scan's 0
    const hours = text.split('\n').filter((l) => /^\d{4}-\d\d-\d\dT\d\d:00Z /.test(l))
    expect(hours.length).toBeGreaterThan(0)
    for (const l of hours) expect(l).toMatch(/^\S+\s+\?\+\? /)
  }, 120_000)
})

interface StaleFigure {key: string; value: number | null; known: boolean; note: string}
const figure = (figures: StaleFigure[], key: string): StaleFigure => {
  const f = figures.find((x) => x.key === key)
  if (!f) throw new Error(`no figure ${key}`)
  return f
}

describe('the drafts over findings out of date: each figure by its base, none left out', () => {
  it('provenance stale: the markers\' counts and the at-risk count are kept (their base is current), the verbatim-text figures and the totals are unknown with why', async () => {
    const scope = await runJson<{contaminated_responses: number; cross_tenant_responses: number; at_risk_responses: number; orphan_sightings: number}>(['scope', '--db', db('noprov'), '--allow-incomplete'])
    const a33 = await runJson<{scope: unknown; scope_as_it_stands: {reason: string; figures: StaleFigure[]}}>(['report', 'article33', '--db', db('noprov'), '--allow-incomplete', '--lang', 'en'])
    expect(a33.scope).toBeNull()
    const f = a33.scope_as_it_stands.figures
    expect(figure(f, 'contaminated_responses')).toMatchObject({value: scope.contaminated_responses, known: true})
    expect(figure(f, 'cross_tenant_responses').value).toBe(scope.cross_tenant_responses)
    expect(figure(f, 'orphan_sightings').value).toBe(scope.orphan_sightings)
    expect(figure(f, 'at_risk_responses').value).toBe(scope.at_risk_responses)
    for (const key of ['exposure_responses', 'data_subjects', 'records_concerned', 'data_categories', 'provenance_responses']) {
      expect(figure(f, key), key).toMatchObject({value: null, known: false})
      expect(figure(f, key).note, key).toMatch(/^not known until a scan \(crosstalk scan\): canary-less provenance does not cover the case/)
    }
    const md = (await run(['report', 'article33', '--db', db('noprov'), '--allow-incomplete', '--lang', 'en'])).stdout
    expect(md).toContain(`| Responses with another session's canary marker | ${scope.contaminated_responses} | as the last scan found it`)
    expect(md).toMatch(/\| Approximate number of data subjects \| not yet known \| not known until a scan/)
  }, 120_000)

  it('registry changed: the verbatim-text count and the at-risk count are kept, the markers\' figures are unknown with why; Article 34 and the register say which findings', async () => {
    const scope = await runJson<{provenance_responses: number; at_risk_responses: number}>(['scope', '--db', db('late-registry'), '--allow-incomplete'])
    const a33 = await runJson<{scope_as_it_stands: {figures: StaleFigure[]}}>(['report', 'article33', '--db', db('late-registry'), '--allow-incomplete', '--lang', 'en'])
    const f = a33.scope_as_it_stands.figures
    expect(figure(f, 'provenance_responses')).toMatchObject({value: scope.provenance_responses, known: true})
    expect(figure(f, 'at_risk_responses').value).toBe(scope.at_risk_responses)
    for (const key of ['contaminated_responses', 'cross_tenant_responses', 'orphan_sightings', 'exposure_responses', 'data_subjects']) {
      expect(figure(f, key), key).toMatchObject({value: null, known: false})
      expect(figure(f, key).note, key).toMatch(/the canary registry changed since the last scan/)
    }
    const a34 = await run(['report', 'article34', '--db', db('late-registry'), '--allow-incomplete', '--lang', 'en'])
    expect(a34.stdout).toMatch(/not known until a scan \(crosstalk scan\): the canary registry changed since the last scan/)
    expect(a34.stdout).not.toMatch(/detection has not run/)
    const register = await runJson<{data_subjects: string}>(['report', 'register', '--db', db('late-registry'), '--allow-incomplete', '--lang', 'en', '--format', 'json'])
    expect(register.data_subjects).toMatch(/not known until a scan \(crosstalk scan\): the canary registry changed since the last scan/)
  }, 120_000)
})

describe('assess over findings out of date', () => {
  it('weighs the marker leaks whose base is unchanged (provenance stale): cross-tenant leaks known are not scored as none', async () => {
    const scope = await runJson<{cross_tenant_responses: number; contaminated_responses: number}>(['scope', '--db', db('noprov'), '--allow-incomplete'])
    expect(scope.cross_tenant_responses).toBeGreaterThan(0)
    const a = await runJson<{suggested: string; suggestion_reasons: string[]; inputs: Array<{name: string; value: unknown; why: string}>}>(['assess', '--db', db('noprov')])
    const input = (name: string) => a.inputs.find((i) => i.name === name)!
    expect(input('cb_confidentiality').value).toBeGreaterThan(0)
    expect(input('cb_confidentiality').why).toContain(`what stands, its base unchanged since the scan: ${scope.contaminated_responses} responses with another session's canary marker (${scope.cross_tenant_responses} cross-tenant)`)
    expect(input('cb_confidentiality').why).not.toMatch(/no response carrying another session's data found/)
    expect(a.suggested).not.toBe('document')
    expect(a.suggestion_reasons.join('\n')).toMatch(/scope is not known until a scan .*may change after crosstalk scan/)
  }, 120_000)
})

describe('one base for an incomplete draft (repro 7)', () => {
  it('says the at-risk count and the upper bounds cover every record ingested, and what was found only the records scanned', async () => {
    const part = copy('part', 'part-a33')
    await ok(['incident', 'open', '--db', part, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])
    const md = await run(['report', 'article33', '--db', part, '--allow-incomplete', '--lang', 'en'])
    expect(md.code).toBe(0)
    expect(md.stdout).not.toMatch(/Every number below covers only what was scanned/)
    expect(md.stdout).toMatch(/at-risk counts and upper bounds cover every record ingested, scanned or not/)
    expect(md.stdout).toMatch(/\| Responses at risk \(prompt at or over the KV pool of 681280 tokens; of every response ingested, scanned or not\) \| \d+ \|/)
    const assess = await run(['assess', '--db', part])
    const individuals = assess.stdout.split('\n').find((l) => l.startsWith('individuals'))!
    expect(individuals).not.toMatch(/among the records scanned so far: the scope's high bound/)
    expect(individuals).toMatch(/over every record ingested, scanned or not/)
  }, 120_000)
})

describe('a processor notice over logs without an HTTP status (repro 8)', () => {
  it('says the at-risk figure is not known, with how many records leave it open, and lists it as an open item', async () => {
    const bare = join(dir, 'no-status')
    mkdirSync(bare)
    for (const f of readdirSync(join(gen, 'logs')).filter((x) => !x.endsWith('.gz'))) {
      const lines = readFileSync(join(gen, 'logs', f), 'utf8').split('\n').map((l) => {
        try {
          const r = JSON.parse(l.replace(/^\uFEFF/, '')) as Record<string, unknown>
          if (r && typeof r === 'object') delete r.status
          return JSON.stringify(r)
        } catch {
          return l
        }
      })
      writeFileSync(join(bare, f), lines.join('\n'))
    }
    await ok(['ingest', 'canaries', '--db', db('bare'), join(gen, 'canaries.csv')])
    await ok(['ingest', 'logs', '--db', db('bare'), bare])
    await ok(['scan', '--db', db('bare'), '--pool-tokens', '681280'])
    await ok(['incident', 'open', '--db', db('bare'), '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'processor'])
    const scope = await runJson<{at_risk_responses: number | null; at_risk_unknown_records: number}>(['scope', '--db', db('bare')])
    expect(scope.at_risk_responses).toBeNull()
    expect(scope.at_risk_unknown_records).toBeGreaterThan(0)
    const tenant = (await runJson<Sighting[]>(['sightings', '--db', db('bare'), '--class', 'cross_tenant']))[0]!.recipient_tenant
    const notice = await runJson<{at_risk_responses: number | null; at_risk_unknown_records: number | null; open_items: Array<{item: string}>}>(['report', 'processor-notice', '--db', db('bare'), '--tenant', tenant, '--lang', 'en'])
    expect(notice.at_risk_responses).toBeNull()
    expect(notice.at_risk_unknown_records).toBeGreaterThan(0)
    expect(notice.at_risk_unknown_records).toBeLessThanOrEqual(scope.at_risk_unknown_records)
    expect(notice.open_items.map((o) => o.item).join('\n')).toContain(`the logs do not give the HTTP status or the prompt size of ${notice.at_risk_unknown_records} records`)
    const md = await run(['report', 'processor-notice', '--db', db('bare'), '--tenant', tenant, '--lang', 'en'])
    expect(md.stdout).toMatch(/at or over the KV pool size .*: not known: the logs do not give the HTTP status/)
  }, 120_000)
})

describe("a processor's clock with logs not scanned (repro 6)", () => {
  it('does not say every controller notified: how many are to be notified is not known yet', async () => {
    const part = copy('part', 'part-processor')
    await ok(['incident', 'open', '--db', part, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'processor', '--controller-deadline-hours', '24'])
    const scope = await runJson<{exposure: {flows: Array<{source_tenant: string; recipient_tenant: string}>}}>(['scope', '--db', part, '--allow-incomplete'])
    const controllers = [...new Set(scope.exposure.flows.flatMap((f) => [f.source_tenant, f.recipient_tenant]))]
    expect(controllers.length).toBeGreaterThan(0)
    for (const t of controllers) await ok(['notify', 'record', '--db', part, '--phase', 'initial', '--at', '2026-11-02T10:00:00Z', '--reference', `N-${t}`, '--recipient', t])
    const now = '2026-11-02T12:00:00Z'
    const clock = await runJson<{duty_status: string; controllers_known: boolean}>(['clock', '--db', part, '--now', now])
    expect(clock.duty_status).not.toBe('notified')
    expect(clock.controllers_known).toBe(false)
    const text = await run(['clock', '--db', part, '--now', now])
    expect(text.stdout).not.toMatch(new RegExp(`${controllers.length} of ${controllers.length} notified`))
    expect(text.stdout).toMatch(new RegExp(`${controllers.length} notified; how many are to be notified is not known yet`))
    // the register entry counts them the same way
    const register = await run(['report', 'register', '--db', part, '--allow-incomplete', '--lang', 'en'])
    expect(register.stdout).not.toMatch(new RegExp(`\\b${controllers.length} of ${controllers.length}\\s*\\|`))
    expect(register.stdout).toMatch(new RegExp(`${controllers.length} of ${controllers.length} found so far; how many controllers are to be notified is not known yet`))
    const status = await run(['status', '--db', part])
    expect(status.stdout).toMatch(/how many are to be notified is not known yet: detection is incomplete/)
  }, 120_000)
})
