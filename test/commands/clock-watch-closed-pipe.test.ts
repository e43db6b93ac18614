import {spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {BIN, tempDir} from '../helpers/cli.js'

// `clock --watch | head -1`: head exits after one line, and the watch went on redrawing into the
// closed pipe for ever (bin/run.js swallows EPIPE so that one-shot commands keep their own exit
// code), so the pipeline never ended. With nobody left to read, the watch stops and exits 0.

describe('clock --watch whose reader goes away', () => {
  it('stops and exits 0 instead of redrawing into the closed pipe', () => {
    const dir = tempDir('ct-watch-')
    const script = `timeout 30 '${process.execPath}' '${BIN}' clock --watch --aware-at 2026-11-02T08:00:00Z 2>/dev/null | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"`
    const r = spawnSync('bash', ['-c', script], {cwd: dir, encoding: 'utf8', env: {...process.env, NO_COLOR: '1', CROSSTALK_DB: ''}, timeout: 60_000})
    // 124: still redrawing when timeout stopped it.
    expect(r.stdout.trim()).toBe('0')
  }, 90_000)
})
