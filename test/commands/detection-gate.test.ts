import {readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, inject, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// Never a silent zero: on a case that was never scanned, or that holds files ingested after
// its last scan, every command that reports findings refuses (exit 1, one line naming
// `crosstalk scan`) unless --allow-incomplete, and then says so (--json: a detection key).
const FINDING_COMMANDS: string[][] = [
  ['scope'],
  ['timeline'],
  ['report', 'article33', '--format', 'json'],
  ['report', 'article34', '--format', 'json'],
  ['report', 'processor-notice', '--all', '--format', 'json', '--out', 'OUT'],
  ['report', 'register', '--format', 'json'],
  ['report', 'case', '--format', 'json'],
  ['sightings'],
  ['pii'],
]
/** Outputs that are arrays by contract: the gap is on stderr only. */
const ARRAY_OUTPUTS = new Set(['sightings', 'pii'])

async function expectRefusedThenAllowed(db: string, notScanned: number, gap: RegExp = /not scanned|never scanned|since the last scan/): Promise<void> {
  for (const cmd of FINDING_COMMANDS) {
    const args = cmd.map((a) => (a === 'OUT' ? join(tempDir(), 'notices') : a))
    const refused = await run([...args, '--db', db])
    expect(refused.code, `${cmd.join(' ')}: ${refused.stderr}`).toBe(1)
    expect(refused.stderr.trim().split('\n'), cmd.join(' ')).toHaveLength(1)
    expect(refused.stderr, cmd.join(' ')).toMatch(/detection is incomplete .*`crosstalk scan`/)
    const allowed = await run([...args, '--db', db, '--allow-incomplete', ...(args.includes('--format') ? [] : ['--json'])])
    expect(allowed.code, `${cmd.join(' ')} --allow-incomplete: ${allowed.stderr}`).toBe(0)
    expect(allowed.stderr, cmd.join(' ')).toMatch(/incomplete detection/)
    expect(allowed.stderr, cmd.join(' ')).toMatch(gap)
    if (cmd[1] === 'processor-notice' || ARRAY_OUTPUTS.has(cmd[0]!)) continue // writes files (the notices carry the key), or an array
    expect(JSON.parse(allowed.stdout).detection, cmd.join(' ')).toMatchObject({complete: false, files_not_scanned: notScanned})
  }
}

describe('reports over an incomplete detection', () => {
  it('an ingested but never scanned case: refused, or reported as incomplete', async () => {
    const incident = inject('incident')
    const db = join(tempDir(), 'case.db')
    await runJson(['ingest', 'canaries', incident.canaries, '--db', db])
    await runJson(['ingest', 'logs', incident.logs, '--db', db])
    await expectRefusedThenAllowed(db, 12)
    // Allowed, what detection would count is unknown: null in --json, "unknown" on the console, never 0.
    const scope = await runJson<Record<string, unknown>>(['scope', '--db', db, '--allow-incomplete', '--pool-tokens', '681280'])
    for (const key of ['contaminated_responses', 'cross_tenant_responses', 'cross_session_responses', 'exposed_sessions', 'exposed_tenants', 'recipient_tenants', 'flows', 'exposure', 'data_subjects']) {
      expect(scope[key], key).toBeNull()
    }
    expect(scope.at_risk_responses).toEqual(expect.any(Number))
    const text = await run(['scope', '--db', db, '--allow-incomplete'])
    expect(text.stdout).toMatch(/contaminated responses\s+unknown/)
    expect(text.stdout).not.toMatch(/contaminated responses\s+0/)
    const tenant = await run(['scope', '--db', db, '--allow-incomplete', '--tenant', 'anyone'])
    expect(tenant.code).toBe(1)
    expect(tenant.stderr).toMatch(/never scanned.*crosstalk scan/)
    const timeline = await runJson<Record<string, unknown>>(['timeline', '--db', db, '--allow-incomplete'])
    expect(timeline.exposure).toBeNull()
    expect(timeline.pairs).toBeNull()
    const timelineText = await run(['timeline', '--db', db, '--allow-incomplete'])
    expect(timelineText.stdout).not.toContain('No contamination')
    expect(timelineText.stdout).toMatch(/contamination is not known yet/)
  })

  it('a case with a file ingested after its last scan: refused until scanned again', async () => {
    const incident = inject('incident')
    const dir = tempDir()
    const db = join(dir, 'case.db')
    await runJson(['triage', incident.logs, '--canaries', incident.canaries, '--db', db])
    expect((await runJson<{detection: {complete: boolean}}>(['scope', '--db', db])).detection.complete).toBe(true)
    const late = join(dir, 'late.jsonl')
    writeFileSync(late, chatLine({request_id: 'late-1', tenant_id: 'late-tenant', session_id: 'late-s'}) + '\n')
    await runJson(['ingest', 'logs', late, '--db', db])
    await expectRefusedThenAllowed(db, 1)
    await runJson(['scan', '--db', db])
    expect((await runJson<{detection: {complete: boolean; files_not_scanned: number}}>(['scope', '--db', db])).detection).toMatchObject({complete: true, files_not_scanned: 0})
  })

  it('a case whose provenance no longer covers it (a file dropped): refused, and the warning says why', async () => {
    const incident = inject('incident')
    const db = join(tempDir(), 'case.db')
    await runJson(['triage', incident.logs, '--canaries', incident.canaries, '--db', db])
    const first = readdirSync(incident.logs).filter((f) => /\.jsonl(\.gz)?$/.test(f)).sort()[0]!
    expect((await run(['drop', join(incident.logs, first), '--reason', 'test', '--db', db])).code).toBe(0)
    await expectRefusedThenAllowed(db, 0, /evidence was dropped/)
  })
})
