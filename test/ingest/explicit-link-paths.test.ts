import {mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {expandLogPaths} from '../../src/ingest/expand-paths.js'

const base = mkdtempSync(join(tmpdir(), 'ct-links-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))

function refusal(path: string): {message: string; code: string} {
  try {
    expandLogPaths([path])
  } catch (error) {
    return {message: (error as Error).message, code: (error as {code: string}).code}
  }
  throw new Error(`${path} was accepted`)
}

describe('a path given by name that is a symbolic link it cannot follow', () => {
  it('names a loop and a broken link as the walk does, not as a missing file', () => {
    const a = join(base, 'loopa')
    const b = join(base, 'loopb')
    symlinkSync(b, a)
    symlinkSync(a, b)
    const dangling = join(base, 'dangling.jsonl')
    symlinkSync(join(base, 'missing-target.jsonl'), dangling)
    expect(refusal(a)).toEqual({message: `${a}: symbolic link loop`, code: 'E_NOT_FOUND'})
    expect(refusal(dangling)).toEqual({message: `${dangling}: broken symbolic link (its target does not exist)`, code: 'E_NOT_FOUND'})
  })

  it('still says a path with nothing at it is no such file', () => {
    const none = join(base, 'none.jsonl')
    expect(refusal(none)).toEqual({message: `${none}: no such file or directory`, code: 'E_NOT_FOUND'})
    writeFileSync(join(base, 'f.jsonl'), '')
    expect(refusal(join(base, 'f.jsonl', 'below'))).toEqual({message: `${join(base, 'f.jsonl', 'below')}: no such file or directory`, code: 'E_NOT_FOUND'})
  })
})
