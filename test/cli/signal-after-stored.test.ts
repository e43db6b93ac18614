import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, runCli, tempDir} from '../helpers/cli.js'

// QA crash (minor): a SIGINT or SIGTERM arriving just after a command had stored its work ended
// it with 130 or 143 and no word, the work fully stored. It still ends by the signal, and says so.

describe('a signal after the work is stored', () => {
  it('incident open: exit 130, one line saying the work was stored, and the incident is there', () => {
    const dir = tempDir('ct-sig-stored-')
    // Sends SIGINT as the command prints its result (after the incident and its audit entry committed), and keeps the event loop turning.
    const preload = join(dir, 'interrupt-on-output.mjs')
    writeFileSync(preload, [
      'const write = process.stdout.write.bind(process.stdout)',
      'let sent = false',
      'process.stdout.write = (...args) => {',
      '  if (!sent) { sent = true; process.kill(process.pid, "SIGINT"); setTimeout(() => {}, 2000) }',
      '  return write(...args)',
      '}',
    ].join('\n'))
    const db = join(dir, 'c.db')
    const r = spawnSync(process.execPath, [BIN, 'incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T10:00:00Z', '--role', 'processor'], {
      env: {...process.env, NO_COLOR: '1', CROSSTALK_DB: '', NODE_OPTIONS: `--import=${preload}`},
      encoding: 'utf8',
      timeout: 120_000,
    })
    expect(r.status === 130 || r.signal === 'SIGINT', `${r.status} ${r.signal} ${r.stderr}`).toBe(true)
    expect(r.stderr).toMatch(/^SIGINT received after crosstalk incident open stored its work in .*c\.db \(audit log entry 1\); stopped before it finished/m)
    const shown = runCli(['incident', 'show', '--db', db, '--json'])
    expect(shown.code, shown.stderr).toBe(0)
    expect(JSON.parse(shown.stdout)).toMatchObject({incident: {title: 'T', role: 'processor'}})
  })
})
