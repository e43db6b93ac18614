import {readdirSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT, runCli} from '../helpers/cli.js'

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
  it('finds the commands', () => {
    expect(ids).toEqual(expect.arrayContaining(['ingest logs', 'scan', 'scope', 'report article33', 'probe', 'demo']))
  })
  for (const id of ids) {
    it(`${id} --help shows usage and an example`, () => {
      const r = runCli([...id.split(' '), '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain(`$ crosstalk ${id}`)
      expect(r.stdout).toMatch(/EXAMPLES/)
    })
  }
  it('an unknown command exits 2 and says so', () => {
    const r = runCli(['nonsense-command'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/not found/)
  })
})
