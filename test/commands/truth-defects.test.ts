import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, inject, it} from 'vitest'
import {startTestbed} from '../../src/testbed/server.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {caseWithRecords} from '../helpers/replay-case.js'

// Issue 14, defects 2, 8, 9 (PDF) and 10 (usage errors), from the command line.

describe('replay results by target and role (defect 2)', () => {
  it('cites distinct records per target, keeps a negative control apart, and names the simulator', async () => {
    const [m1, m2] = ['CANARY-0a0a0a0a0a0a0a0a0a0a', 'CANARY-0b0b0b0b0b0b0b0b0b0b']
    const {db, path: dbPath} = await caseWithRecords(
      [
        {request_id: 'req-1', prompt_tokens: 700_000, response_text: `leak ${m1}`},
        {request_id: 'req-2', prompt_tokens: 700_000, response_text: `leak ${m2}`},
      ],
      [[m1, 'tenant-x', 'sx'], [m2, 'tenant-y', 'sy']],
    )
    db.close()
    const stale = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, onOverflow: 'stale', disaggregated: true})
    const reject = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, onOverflow: 'reject'})
    try {
      const replay = (target: string, ...extra: string[]) => run(['replay', '--db', dbPath, '--target', target, '--trials', '3', '--pool-tokens', '1024', '--timeout', '2', ...extra])
      expect((await replay(stale.url, '--from-sightings')).code).toBe(0)
      // the same record again on the same target: still two distinct records there
      expect((await replay(stale.url, '--request-id', 'req-1')).code).toBe(0)
      const neg = await replay(reject.url, '--from-sightings')
      expect(neg.code).toBe(0)
      expect(neg.stdout).toMatch(/purpose: negative-control \(default\)/)
      expect(neg.stdout).toMatch(/crosstalk's built-in testbed \(a simulator built to leak/)
    } finally {
      await stale.close()
      await reject.close()
    }
    await run(['incident', 'open', '--db', dbPath, '--title', 't', '--aware-at', '2026-11-02T07:00:00Z', '--role', 'controller'])
    const d = await runJson<{replay: {groups: Array<{target: string; target_kind: string; purpose: string; records: number; confirmed: number; rejected: number; run_ids: number[]}>}; investigation: string[]; measures_taken: string[]; statements: Array<{text: string; rests_on: string[]}>}>(
      ['report', 'article33', '--db', dbPath, '--format', 'json', '--now', '2026-11-02T08:00:00Z'],
    )
    const groups = d.replay.groups
    expect(groups).toHaveLength(2)
    expect(groups[0]).toMatchObject({target_kind: 'simulator', purpose: 'confirmation', records: 2, confirmed: 2, rejected: 0, run_ids: [1, 2]})
    expect(groups[1]).toMatchObject({target_kind: 'simulator', purpose: 'negative-control', records: 2, confirmed: 0, rejected: 2, run_ids: [3]})
    // A replay confirms the mechanism and remedies nothing: the draft states it as investigation, never as a measure taken.
    expect(d.measures_taken.join('\n')).not.toMatch(/replayed/)
    const sentences = d.investigation.join('\n')
    expect(sentences).toMatch(/^To confirm the fault, 2 distinct affected requests were replayed on crosstalk's built-in testbed \(version [^)]*\), a simulator built to reproduce this fault: it shows the mechanism, not that the production stack has it/m)
    // The testbed's loopback address is this machine's, nothing a reader of the draft can use.
    expect(sentences).not.toMatch(/127\.0\.0\.1|localhost/)
    expect(sentences).toMatch(/^As a negative control, 2 distinct affected requests were replayed .*: 0 confirmed .*, 2 rejected by the target/m)
    expect(sentences).not.toMatch(/4 requests|3 run\(s\)/)
    expect(d.statements.find((s) => s.text.startsWith('As a negative control'))!.rests_on).toEqual(['replay_run#3'])
    const md = await run(['report', 'article33', '--db', dbPath, '--format', 'md', '--now', '2026-11-02T08:00:00Z'])
    const measures = md.stdout.slice(md.stdout.indexOf('Measures taken:'), md.stdout.indexOf('Measures proposed:'))
    expect(measures).not.toMatch(/replayed/)
    expect(md.stdout.slice(md.stdout.indexOf('Investigation:'), md.stdout.indexOf('Measures taken:'))).toMatch(/To confirm the fault, 2 distinct affected requests were replayed/)
    // The form's field 92 (measures taken to address and mitigate) holds no replay either.
    expect(md.stdout.split('\n').find((l) => l.startsWith('| 92 |'))).not.toMatch(/replayed/)
    // The register records replays as the investigation they are, not as remedial action.
    const reg = await runJson<{remedial_action: string; investigation: string | null}>(['report', 'register', '--db', dbPath, '--format', 'json'])
    expect(reg.remedial_action).not.toMatch(/replayed/)
    expect(reg.investigation).toMatch(/^To confirm the fault, 2 distinct affected requests were replayed/)
    expect(reg.investigation).toContain('As a negative control, 2 distinct affected requests were replayed')
  })
})

describe('empty and partial cases (defect 8)', () => {
  it('counts log files as logs, never the canary registry; re-ingested lines add up between ingest and status', async () => {
    const incident = inject('incident')
    const dir = tempDir()
    const db = path.join(dir, 'case.db')
    const log = path.join(incident.logs, fs.readdirSync(incident.logs).sort()[0]!)
    await runJson(['ingest', 'canaries', incident.canaries, '--db', db])
    const first = await runJson<{duplicates: number}>(['ingest', 'logs', log, '--db', db])
    const again = await runJson<{duplicates: number; records: number}>(['ingest', 'logs', log, '--db', db])
    expect(again.records).toBe(0)
    const status = await runJson<{files: number; registry_files: number; duplicates: number; reingested_duplicates: number; reingested_files: number; records: number}>(['status', '--db', db])
    expect(status.duplicates + status.reingested_duplicates).toBe(first.duplicates + again.duplicates)
    expect(status.reingested_files).toBe(1)
    const human = (await run(['status', '--db', db])).stdout
    expect(human).toMatch(/evidence files\s+2 {2}\(1 log, 1 canary registry\)/)
    expect(human).toContain(`${status.reingested_duplicates} more in 1 file ingested again (already in the case, nothing added)`)
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const d = await runJson<{investigation: string[]; scope: {log_files: number}}>(['report', 'article33', '--db', db, '--format', 'json'])
    expect(d.scope.log_files).toBe(1)
    expect(d.investigation[0]).toMatch(new RegExp(`^Logs of ${status.records} responses from 1 log file were searched for canary markers \\(1 canary registry file\\)`))
  })

  it('a case with no incident and no data: refused as unscanned; asked for anyway, a draft of open items, nothing "not applicable"', async () => {
    const db = path.join(tempDir(), 'empty.db')
    await runJson(['ingest', 'canaries', inject('incident').canaries, '--db', db])
    const refused = await run(['report', 'article33', '--db', db])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/crosstalk scan/)
    const r = await run(['report', 'article33', '--db', db, '--allow-incomplete'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toMatch(/not applicable \(within/)
    expect(r.stdout).toContain('| 49 | Reasons for late notification | to be completed: the incident record')
    expect(r.stdout).toContain('to be completed: the scope: responses, sessions and customers affected (detection has not run, or its findings do not cover the case as it is: the detection note says which)')
  })
})

describe('the PDF (defect 9)', () => {
  it('annex tables keep numbers and header words whole, name files not paths, and leave no near-empty page', async () => {
    const incident = inject('incident')
    const dir = tempDir()
    const db = path.join(dir, 'case.db')
    await runJson(['triage', incident.logs, '--canaries', incident.canaries, '--db', db, '--pool-tokens', '681280'])
    for (const authority of ['cnil', 'edpb']) {
      const out = path.join(dir, `${authority}.pdf`)
      const r = await run(['report', 'article33', '--db', db, '--authority', authority, '--format', 'pdf', '--out', out])
      expect(r.code, r.stderr).toBe(0)
      const text = execFileSync('pdftotext', ['-layout', out, '-'], {encoding: 'utf8'})
      const json = await runJson<{evidence: Array<{name: string; size: number; records: number; sha256: string}>}>(['report', 'article33', '--db', db, '--authority', authority, '--format', 'json'])
      expect(json.evidence.length).toBeGreaterThan(5)
      const tokens = new Set(text.split(/\s+/))
      for (const e of json.evidence) {
        expect(tokens.has(String(e.size)), `${authority}: size ${e.size} whole`).toBe(true)
        expect(tokens.has(String(e.records)), `${authority}: records ${e.records} whole`).toBe(true)
        expect(text).toContain(e.sha256)
        expect(text).toContain(e.name)
      }
      expect(tokens.has(authority === 'cnil' ? 'Enregistrements' : 'Records')).toBe(true)
      // nothing of this machine's paths
      expect(text).not.toContain(incident.logs)
      expect(text).not.toContain(dir)
      expect(text).not.toMatch(/\/tmp\//)
      // every page carries real content (the footer is two lines)
      const pages = text.split('\f').filter((p, i, all) => i < all.length - 1 || p.trim() !== '')
      const lines = pages.map((p) => p.split('\n').filter((l) => l.trim() !== '').length - 2)
      expect(lines.slice(0, -1).every((n) => n >= 8), `${authority}: lines per page ${lines.join(',')}`).toBe(true)
      expect(lines.at(-1)!).toBeGreaterThanOrEqual(3)
      if (authority === 'cnil') expect(text).toMatch(/Page 1 sur \d+/)
      // The hourly figure draws both kinds of evidence and says how many of each: verbatim-only leaks are not empty hours.
      const draft = await runJson<{scope: {exposure: {by_canary: number; by_text_only: number}; by_hour: Array<{responses: number; text_only_responses: number}>}}>(['report', 'article33', '--db', db, '--authority', authority, '--format', 'json'])
      const hours = draft.scope.by_hour
      expect(hours.reduce((a, h) => a + h.text_only_responses, 0)).toBe(draft.scope.exposure.by_text_only)
      expect(hours.reduce((a, h) => a + h.responses, 0)).toBe(draft.scope.exposure.by_canary)
      const flat = text.replace(/\s+/g, ' ')
      if (authority === 'cnil') expect(flat).toContain(`Foncé : ${draft.scope.exposure.by_canary} réponses avec un marqueur ; clair : ${draft.scope.exposure.by_text_only} réponses par texte reproduit seulement`)
      else expect(flat).toContain(`Dark: ${draft.scope.exposure.by_canary} responses with a marker; light: ${draft.scope.exposure.by_text_only} responses by verbatim text only`)
    }
  })
})

describe('assess inputs (defect 10)', () => {
  it('bad values are usage errors; the adjustments and their reasons are recorded', async () => {
    const incident = inject('incident')
    const db = path.join(tempDir(), 'case.db')
    await runJson(['triage', incident.logs, '--canaries', incident.canaries, '--db', db, '--pool-tokens', '681280'])
    for (const bad of [['--dpc', 'abc'], ['--dpc', '2.5'], ['--dpc', '5'], ['--ei', '0.3'], ['--individuals', '-1'], ['--reason', 'bogus=x']]) {
      const r = await run(['assess', '--db', db, ...bad])
      expect(r.code, `${bad.join(' ')}: ${r.stderr}`).toBe(2)
    }
    const scope = await runJson<{data_subjects: {high: number}}>(['scope', '--db', db])
    const plain = await runJson<{inputs: Array<{name: string; value: unknown; source: string}>}>(['assess', '--db', db])
    expect(plain.inputs.find((i) => i.name === 'individuals')).toMatchObject({value: scope.data_subjects.high, source: 'case default'})
    const r = await runJson<{severity: {dpc_base: number; dpc: number; dpc_adjustments: Array<{step: number}>}; inputs: Array<{name: string; value: unknown; why: string}>}>(
      ['assess', '--db', db, '--special-categories', '--vulnerable-subjects', '--reason', 'vulnerable_subjects=an education tenant (minors) is among the sources'],
    )
    expect(r.severity).toMatchObject({dpc_base: 4, dpc: 4})
    expect(r.inputs.find((i) => i.name === 'vulnerable_subjects')!.why).toMatch(/^an education tenant \(minors\) is among the sources/)
    const decided = await runJson<{decision: {outcome: string}}>(['assess', '--db', db, '--dpc', '2', '--data-volume', 'high', '--decide', 'notify', '--rationale', 'r'])
    expect(decided.decision.outcome).toBe('notify')
  })
})
