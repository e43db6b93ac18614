import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {startTestbed} from '../../src/testbed/server.js'
import {runCliAsync} from '../helpers/cli.js'

describe('crosstalk probe (spawned CLI)', () => {
  it('exits 3 with --fail-on-leak against stale+disaggregated, printing the result JSON and JUnit', async () => {
    const testbed = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, onOverflow: 'stale', disaggregated: true})
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-'))
    try {
      const junit = path.join(dir, 'probe.xml')
      const run = await runCliAsync(['probe', '--target', testbed.url, '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', '2', '--fail-on-leak', '--json', '--junit', junit])
      expect(run.code).toBe(3)
      const result = JSON.parse(run.stdout)
      expect(result.verdict).toBe('fail')
      expect(result.checks.find((c: {name: string}) => c.name === 'contamination.gap')).toMatchObject({outcome: 'leak', ok: false})
      for (const c of result.checks) expect(Object.keys(c)).toEqual(expect.arrayContaining(['name', 'size_tokens', 'outcome', 'ok']))
      expect(run.stderr).toContain('probe verdict fail')
      expect(fs.readFileSync(junit, 'utf8')).toContain('<testsuites')
    } finally {
      await testbed.close()
    }
  })

  it('exits 0 against a correct server and renders a table', async () => {
    const testbed = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, onOverflow: 'reject', errorStyle: 'sglang'})
    try {
      const run = await runCliAsync(['probe', '--target', testbed.url, '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', '2', '--fail-on-leak'])
      expect(run.stdout).toMatch(/context\.gap_stream\s+\d+\s+rejected\s+ok/)
      expect(run.stdout).toContain('verdict: pass')
      expect(run.code).toBe(0)
    } finally {
      await testbed.close()
    }
  })

  it('refuses a public target (exit 1, JSON error)', async () => {
    const run = await runCliAsync(['probe', '--target', 'http://8.8.8.8:8000', '--pool-tokens', '1024', '--advertised-tokens', '4096', '--json'])
    expect(run.code).toBe(1)
    expect(JSON.parse(run.stdout)).toMatchObject({error: {code: 'E_REMOTE_TARGET'}})
  })

  it('an unwritable --junit path is refused before any request, so no result is lost', async () => {
    const testbed = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, onOverflow: 'stale', disaggregated: true})
    try {
      const run = await runCliAsync(['probe', '--target', testbed.url, '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', '2', '--fail-on-leak', '--json', '--junit', path.join(os.tmpdir(), 'ct-no-such-folder', 'probe.xml')])
      expect(run.code).toBe(1)
      expect(JSON.parse(run.stdout)).toMatchObject({error: {code: 'E_JUNIT'}})
      expect(run.stderr).not.toContain('probe:')
    } finally {
      await testbed.close()
    }
  })

  it('a malformed --target or an unrepresentable --timeout is a usage error (exit 2), probe and replay alike', async () => {
    for (const command of ['probe', 'replay']) {
      for (const target of ['notaurl', 'ftp://127.0.0.1/']) {
        const run = await runCliAsync([command, '--target', target, '--pool-tokens', '10', '--advertised-tokens', '100', ...(command === 'replay' ? ['--db', 'none.db', '--from-sightings'] : []), '--json'])
        expect(run.code, `${command} ${target}`).toBe(2)
        expect(JSON.parse(run.stdout)).toMatchObject({error: {code: 'E_TARGET'}})
      }
      const run = await runCliAsync([command, '--target', 'http://127.0.0.1:9', '--pool-tokens', '10', '--advertised-tokens', '100', '--timeout', '3000000'])
      expect(run.code, `${command} --timeout`).toBe(2)
    }
  })
})

describe('crosstalk probe --junit when the run cannot start', () => {
  it('writes one errored testcase naming why (nothing listening), replacing a stale report, and exits 1', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-'))
    try {
      const junit = path.join(dir, 'probe.xml')
      // An earlier run's passing report must not survive a run that never started.
      fs.writeFileSync(junit, '<testsuites tests="9" failures="0"/>')
      const run = await runCliAsync(['probe', '--target', 'http://127.0.0.1:9', '--pool-tokens', '1024', '--advertised-tokens', '4096', '--timeout', '2', '--fail-on-leak', '--junit', junit])
      expect(run.code).toBe(1)
      const xml = fs.readFileSync(junit, 'utf8')
      expect(xml).toContain('errors="1"')
      expect(xml).toMatch(/<testcase name="target\.reachable"[^>]*>\s*<error message="cannot reach http:\/\/127\.0\.0\.1:9[^"]*" type="E_TARGET_UNREACHABLE">/)
      expect(xml).not.toContain('tests="9"')
    } finally {
      fs.rmSync(dir, {recursive: true, force: true})
    }
  })
})
