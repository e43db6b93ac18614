import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {beforeAll, describe, expect, inject, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// `crosstalk report case` from the command line, on a small generated incident. The page
// itself is checked in a browser by test/browser/case-report.browser.test.ts.

const POOL = '681280'

describe('crosstalk report case', () => {
  let dir: string
  let db: string
  let markers: string[]
  let logs: string
  beforeAll(async () => {
    dir = tempDir()
    db = join(dir, 'case.db')
    // The run's shared generated incident.
    const incident = inject('incident')
    logs = incident.logs
    const triage = await run(['triage', incident.logs, '--canaries', incident.canaries, '--db', db, '--pool-tokens', POOL])
    expect(triage.code, triage.stderr).toBe(0)
    markers = readFileSync(incident.canaries, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',')[0]!)
  }, 60_000)

  it('--json prints the data the page is drawn from, with the scope numbers of scope --json', async () => {
    const data = await runJson<{kind: string; scope: Record<string, unknown>; flows: unknown[]; sightings: {markers: string; rows: Array<{marker: string; class: string}>}; detection: {complete: boolean}}>(['report', 'case', '--db', db])
    const scope = await runJson<Record<string, unknown>>(['scope', '--db', db, '--pool-tokens', POOL])
    expect(data.kind).toBe('case_report')
    expect(data.detection.complete).toBe(true)
    for (const k of ['contaminated_responses', 'cross_tenant_responses', 'cross_session_responses', 'exposed_sessions', 'exposed_tenants', 'recipient_tenants', 'first_seen', 'last_seen', 'at_risk_responses']) {
      expect(data.scope[k], k).toEqual(scope[k])
    }
    expect(data.flows).toEqual(scope.flows)
    expect(data.sightings.markers).toBe('shortened')
    expect(data.sightings.rows.length).toBeGreaterThan(0)
    expect(data.sightings.rows.some((r) => r.class === 'own')).toBe(false)
  })

  it('writes one 0600 HTML file with no full marker in it; --show-markers shows them and is audited', async () => {
    const out = join(dir, 'case.html')
    const written = await runJson<{report: string; format: string; out: string; sha256: string; bytes: number}>(['report', 'case', '--db', db, '--format', 'html', '--out', out])
    expect(written).toMatchObject({report: 'case', format: 'html', out})
    expect(statSync(out).mode & 0o777).toBe(0o600)
    const html = readFileSync(out, 'utf8')
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(markers.filter((m) => html.includes(m))).toEqual([])
    expect(html).toMatch(/CANARY-[0-9a-f]{4}…/)

    const full = join(dir, 'case-full.html')
    expect((await run(['report', 'case', '--db', db, '--out', full, '--show-markers'])).code).toBe(0)
    const shown = readFileSync(full, 'utf8')
    expect(markers.filter((m) => shown.includes(m)).length).toBeGreaterThan(0)
    const timeline = await runJson<{events: Array<{kind: string; command?: string; summary?: {markers?: string}}>}>(['timeline', '--db', db])
    const audited = timeline.events.filter((e) => e.kind === 'audit' && e.command === 'report:case').map((e) => e.summary?.markers)
    expect(audited).toEqual(expect.arrayContaining(['shortened', 'full']))
  })

  it('refuses a case that is not fully scanned, naming crosstalk scan; --allow-incomplete reports it as partial', async () => {
    const partial = join(tempDir(), 'partial.db')
    expect((await run(['ingest', 'logs', logs, '--db', partial])).code).toBe(0)
    const refused = await run(['report', 'case', '--db', partial, '--out', join(dir, 'x.html')])
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim()).toBe('Error: report case: detection is incomplete (the case was never scanned (12 log files, 3000 records)); run `crosstalk scan` first, or pass --allow-incomplete to report what has been scanned')
    const allowed = await run(['report', 'case', '--db', partial, '--allow-incomplete'])
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(allowed.stdout).toContain('Not scanned: nothing is known yet')
    expect(allowed.stdout).not.toMatch(/No response (in|among)/)
    // Its data says unknown as null, never the zeros nothing was counted into.
    const data = await runJson<{scope: Record<string, unknown>; flows: unknown; sightings: {by_class: unknown}; detection: {never_scanned: boolean}}>(['report', 'case', '--db', partial, '--allow-incomplete', '--format', 'json'])
    expect(data.detection.never_scanned).toBe(true)
    for (const k of ['contaminated_responses', 'cross_tenant_responses', 'exposed_sessions', 'provenance_responses', 'orphan_sightings', 'exposure', 'data_subjects']) expect(data.scope[k], k).toBeNull()
    expect(data.flows).toBeNull()
    expect(data.sightings.by_class).toBeNull()
  })

  it('--help says no leaked text is ever included, and --show-markers prints the markers in full', async () => {
    const help = (await run(['report', 'case', '--help'])).stdout.replace(/\s+/g, ' ')
    expect(help).toContain('No leaked text is included; canary markers are shortened (CANARY-3f2a…) unless --show-markers, which prints them in full.')
    expect(help).not.toMatch(/no leaked text is included unless/i)
  })

  it('gives every listed sighting, orphans and echoes too, the decode node of the response it was found in', async () => {
    const data = await runJson<{sightings: {rows: Array<{request_id: string; class: string; decode_node: string | null}>}}>(['report', 'case', '--db', db, '--format', 'json'])
    const rows = data.sightings.rows
    const classes = new Set(rows.map((r) => r.class))
    expect(classes.has('orphan') || classes.has('echo')).toBe(true)
    // one row per class, each checked against the record itself
    for (const cls of classes) {
      const row = rows.find((r) => r.class === cls)!
      const record = await runJson<{decode_node: string | null}>(['show', row.request_id, '--db', db])
      expect(record.decode_node, cls).not.toBeNull()
      expect(row.decode_node, cls).toBe(record.decode_node)
    }
  })

  it('--advertised-tokens is reported where its help says: the responses at or over it, on the page, in --json and on scope\'s console', async () => {
    const adv = POOL
    const scope = await runJson<{over_advertised_responses: number | null; at_risk_responses: number}>(['scope', '--db', db, '--pool-tokens', POOL, '--advertised-tokens', adv])
    expect(scope.over_advertised_responses).toBeGreaterThan(0)
    const data = await runJson<{scope: {advertised_tokens: number | null; over_advertised_responses: number | null}}>(['report', 'case', '--db', db, '--format', 'json', '--advertised-tokens', adv])
    expect(data.scope).toMatchObject({advertised_tokens: Number(adv), over_advertised_responses: scope.over_advertised_responses})
    const page = (await run(['report', 'case', '--db', db, '--pool-tokens', POOL, '--advertised-tokens', adv])).stdout
    expect(/data-k="over_advertised_responses">([^<]*)</.exec(page)?.[1]).toBe(scope.over_advertised_responses!.toLocaleString('en-US'))
    expect(page).toContain('at or over the advertised window (681,280 tokens)')
    const console = (await run(['scope', '--db', db, '--pool-tokens', POOL, '--advertised-tokens', adv])).stdout
    expect(console).toMatch(new RegExp(`at or over the advertised ${adv}-token window\\s+${scope.over_advertised_responses}\\n`))
    // No window given: nothing said of one.
    expect((await run(['report', 'case', '--db', db])).stdout).not.toContain('over_advertised_responses')
  })

  it('names a log file not read whole (a truncated .gz) and why, as status does', async () => {
    const cut = join(tempDir(), 'cut.db')
    expect((await run(['triage', logs, '--canaries', inject('incident').canaries, '--db', cut, '--pool-tokens', POOL])).code).toBe(0)
    const gz = gzipSync(Array.from({length: 200}, (_, i) => chatLine({request_id: `g${i}`, prompt: `prompt number ${i} `.repeat(20)})).join('\n') + '\n')
    const file = join(tempDir(), 'trunc.jsonl.gz')
    writeFileSync(file, gz.subarray(0, Math.floor(gz.length * 0.6)))
    // Not read whole: stored as far as it goes, and the ingest exits 1.
    expect((await run(['ingest', 'logs', file, '--db', cut])).code).toBe(1)
    expect((await run(['scan', '--db', cut])).code).toBe(0)
    const data = await runJson<{unjudgeable_files: Array<{name: string; why: string}>}>(['report', 'case', '--db', cut, '--format', 'json'])
    expect(data.unjudgeable_files).toEqual([{name: 'trunc.jsonl.gz', why: expect.stringMatching(/^not read whole: gzip stream is truncated/)}])
    const page = (await run(['report', 'case', '--db', cut])).stdout
    expect(page).toContain('<td class="mono">trunc.jsonl.gz</td>')
    expect(page).toContain('whether the part not read carried another session')
  })
})
