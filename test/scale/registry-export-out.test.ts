import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {runCli, tempDir} from '../helpers/cli.js'

// QA registry #10: registry-export replaced a registry.json of the user's own without --force
// (report --out refuses a file it did not write), and `--out FILE` failed with Node's raw EEXIST.

const dir = tempDir()
const db = join(dir, 'case.db')
beforeAll(() => {
  writeFileSync(join(dir, 'reg.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-0123456789abcdef,tenant-a,sess-a,\n')
  expect(runCli(['ingest', 'canaries', join(dir, 'reg.csv'), '--db', db]).code).toBe(0)
})

describe('registry-export --out', () => {
  it('replaces a previous export, but a file it did not write only with --force', () => {
    const out = join(dir, 'out')
    expect(runCli(['registry-export', '--db', db, '--out', out]).code).toBe(0)
    // A fresh export over its own earlier one.
    expect(runCli(['registry-export', '--db', db, '--out', out]).code).toBe(0)
    expect(JSON.parse(readFileSync(join(out, 'registry.json'), 'utf8'))).toMatchObject({format: 'crosstalk-registry/1', canaries: 1})

    const mine = join(dir, 'mine')
    mkdirSync(mine)
    const own = '{"my":"own notes"}\n'
    writeFileSync(join(mine, 'registry.json'), own)
    const refused = runCli(['registry-export', '--db', db, '--out', mine])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/registry\.json that registry-export did not write.*add --force/)
    expect(readFileSync(join(mine, 'registry.json'), 'utf8')).toBe(own)
    expect(existsSync(join(mine, 'registry.parquet'))).toBe(false)

    // A registry.parquet of the user's own, with no export's registry.json beside it.
    const parquet = join(dir, 'parquet')
    mkdirSync(parquet)
    writeFileSync(join(parquet, 'registry.parquet'), 'not mine to replace')
    expect(runCli(['registry-export', '--db', db, '--out', parquet]).code).toBe(2)
    expect(readFileSync(join(parquet, 'registry.parquet'), 'utf8')).toBe('not mine to replace')

    const forced = runCli(['registry-export', '--db', db, '--out', mine, '--force'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(mine, 'registry.json'), 'utf8'))).toMatchObject({format: 'crosstalk-registry/1'})
  })

  it('naming a file: one line saying it is not a directory, no raw EEXIST', () => {
    const file = join(dir, 'afile')
    writeFileSync(file, 'x')
    const r = runCli(['registry-export', '--db', db, '--out', file])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/afile: a file, not a directory/)
    expect(r.stderr).not.toMatch(/EEXIST/)
    expect(readFileSync(file, 'utf8')).toBe('x')
  })
})
