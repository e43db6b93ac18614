import {readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

function commandIds(dir = join(ROOT, 'src/commands')): string[] {
  const ids: string[] = []
  for (const name of readdirSync(dir)) {
    const full = join(dir, name)
    if (statSync(full).isDirectory()) ids.push(...commandIds(full))
    else if (name.endsWith('.ts')) ids.push(relative(join(ROOT, 'src/commands'), full).replace(/\.ts$/, '').split('/').join(' '))
  }
  return ids.sort()
}

describe('--help on every command', () => {
  const ids = commandIds()
  it('finds the commands', async () => {
    expect(ids).toEqual(expect.arrayContaining(['ingest logs', 'scan', 'scope', 'report article33', 'probe', 'demo']))
  })
  for (const id of ids) {
    it(`${id} --help shows usage and an example`, async () => {
      const r = await run([...id.split(' '), '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain(`$ crosstalk ${id}`)
      expect(r.stdout).toMatch(/EXAMPLES/)
    })
  }
  it('an unknown command exits 2 and says so', async () => {
    const r = await run(['nonsense-command'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/not found/)
  })
})

describe('errors are one line that says why', () => {
  it('a bad flag value: exit 2, the flag and the reason on one line', async () => {
    const r = await run(['scan', '--db', '/nonexistent/x.db', '--pool-tokens', 'abc'])
    expect(r.code).toBe(2)
    const [first] = r.stderr.split('\n')
    expect(first).toBe('Error: --pool-tokens: expected an integer but received: abc')
  })
  it('an unreachable target: exit 1 with the network cause, no stack', async () => {
    const r = await run(['probe', '--target', 'http://127.0.0.1:1', '--pool-tokens', '10', '--advertised-tokens', '20', '--timeout', '2'])
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toMatch(/^Error: cannot reach http:\/\/127\.0\.0\.1:1: (bad port|ECONNREFUSED)$/)
  })
})
