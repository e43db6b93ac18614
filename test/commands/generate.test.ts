import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {loadGroundTruth} from '../../src/generate/ground-truth.js'
import {run as runCommand} from '../helpers/commands.js'

const run = async (...args: string[]) => {
  const r = await runCommand(args)
  return {status: r.code, stdout: r.stdout, stderr: r.stderr}
}
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, {recursive: true, force: true})
})

describe('crosstalk generate', () => {
  it('writes logs, registry and ground truth and prints a GenerateResult under --json', async () => {
    const base = mkdtempSync(join(tmpdir(), 'ct-'))
    dirs.push(base)
    const out = join(base, 'incident')
    const r = await run('generate', '--out', out, '--records', '400', '--seed', '9', '--json')
    expect(r.status).toBe(0)
    const result = JSON.parse(r.stdout)
    expect(Object.keys(result).sort()).toEqual(['bytes', 'files', 'ground_truth', 'lines', 'out', 'records'])
    expect(result.records).toBe(400)
    expect(result.files).toBe(12)
    expect(result.lines).toBeGreaterThan(400)
    expect(existsSync(join(out, 'canaries.csv'))).toBe(true)
    const gt = loadGroundTruth(result.ground_truth)
    expect(gt.seed).toBe(9)
    expect(gt.totals.records).toBe(400)
  })

  it('refuses a non-empty directory with exit 1 and a one-line error', async () => {
    const base = mkdtempSync(join(tmpdir(), 'ct-'))
    dirs.push(base)
    expect((await run('generate', '--out', base, '--records', '50')).status).toBe(0)
    const again = await run('generate', '--out', base, '--records', '50', '--json')
    expect(again.status).toBe(1)
    expect(JSON.parse(again.stdout).error.message).toMatch(/not empty/)
    expect((await run('generate', '--out', base, '--records', '50', '--force')).status).toBe(0)
  })

  it('rejects a bad flag value with exit 2 and shows examples in --help', async () => {
    expect((await run('generate', '--out', '/tmp/x', '--records', '0')).status).toBe(2)
    const help = await run('generate', '--help')
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/generate --out \.\/incident/)
  })
})
