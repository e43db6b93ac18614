import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {bareLine} from '../helpers/log-lines.js'

// A line cut short (quarantined) or a log file never ingested may be the one that carried another
// session's marker: the gate fails on it, the HTML banner qualifies its all-clear, and so must
// every console "none" (timeline, sightings, scan, scope) and every HTML section's "none".

const A = 'CANARY-aaaaaaaaaaaaaaaaaaaaaaaa'
const B = 'CANARY-bbbbbbbbbbbbbbbbbbbbbbbb'
const REGISTRY = `marker,tenant_id,session_id,issued_at\n${A},tn-a,s-a,2026-11-01T00:00:00Z\n${B},tn-b,s-b,2026-11-01T00:00:00Z\n`
const first = bareLine('r1', 'tn-a', 's-a', `${A} hello`, 'ok', '2026-11-02T08:00:00Z')
const cut = `{"ts":"2026-11-02T08:01:00Z","request_id":"r2","tenant_id":"tn-b","session_id":"s-b","response":"here ${A} trunc`
const third = bareLine('r3', 'tn-b', 's-b', `${B} hi`, 'fine', '2026-11-02T08:02:00Z')

function section(html: string, id: string): string {
  const m = new RegExp(`<section id="${id}">(.*?)</section>`, 's').exec(html)
  return (m?.[1] ?? '').replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'")
}

describe('an all-clear over evidence not read is qualified on every console', () => {
  it('a quarantined line: timeline, sightings, scan, scope and scope --json say it; the HTML sections qualify their "none"', async () => {
    const dir = tempDir()
    const db = join(dir, 'x.db')
    writeFileSync(join(dir, 'reg.csv'), REGISTRY)
    writeFileSync(join(dir, 'app.jsonl'), `${first}\n${cut}\n${third}\n`)
    const t = await run(['triage', join(dir, 'app.jsonl'), '--canaries', join(dir, 'reg.csv'), '--db', db, '--fail-on-leak'])
    expect(t.code).toBe(1)
    const timeline = await run(['timeline', '--db', db])
    expect(timeline.stdout).not.toMatch(/^No contamination in this case/m)
    expect(timeline.stdout).toMatch(/1 quarantined line could not\s+be\s+read\s+and\s+was\s+not\s+judged/)
    const sightings = await run(['sightings', '--db', db])
    expect(sightings.stdout).toMatch(/No sightings\./)
    expect(sightings.stdout).toMatch(/1 quarantined line could not be read/)
    const scan = await run(['scan', '--db', db])
    expect(scan.stdout).toMatch(/Contaminated responses: 0/)
    expect(scan.stdout).toMatch(/1 quarantined line could not be read/)
    const scope = await run(['scope', '--db', db])
    expect(scope.stdout).toMatch(/1 quarantined line could not be read/)
    const json = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout) as {not_read?: {quarantined_lines: number; files: unknown[]}}
    expect(json.not_read).toEqual({quarantined_lines: 1, files: []})
    const out = join(dir, 'c.html')
    expect((await run(['report', 'case', '--db', db, '--out', out])).code).toBe(0)
    const html = readFileSync(out, 'utf8')
    expect(html).toMatch(/No leak found in the lines that could be read/)
    for (const id of ['flows', 'nodes']) {
      expect(section(html, id)).toMatch(/in what was read and examined; not everything was/)
    }
  })

  it('a log file not ingested (status NOT READ): timeline, sightings and scope --json name it', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    const db = join(dir, 'x.db')
    writeFileSync(join(dir, 'reg.csv'), REGISTRY)
    writeFileSync(join(logs, 'good.jsonl'), `${first}\n`)
    writeFileSync(join(logs, 'bad.jsonl'), `${cut}\n`)
    await run(['triage', logs, '--canaries', join(dir, 'reg.csv'), '--db', db])
    expect((await run(['scan', '--db', db, '--fail-on-leak'])).code).toBe(1)
    const timeline = await run(['timeline', '--db', db])
    expect(timeline.stdout).not.toMatch(/^No contamination in this case/m)
    expect(timeline.stdout).toMatch(/1 log file was not\s+read\s+whole:\s+\S*bad\.jsonl/)
    const sightings = await run(['sightings', '--db', db])
    expect(sightings.stdout).toMatch(/1 log file was not\s+read\s+whole:\s+\S*bad\.jsonl/)
    const json = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout) as {not_read?: {quarantined_lines: number; files: Array<{path: string}>}}
    expect(json.not_read?.files.map((f) => f.path)).toEqual([expect.stringMatching(/bad\.jsonl$/)])
  })
})
