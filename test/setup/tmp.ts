import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

// Every test run gets one private temporary directory: the tests' cases, generated logs and
// the CLI children they spawn (which inherit TMPDIR) all land in it, and it is removed when
// the run ends. The cases hold generated personal data; none of it should outlive the run.
// Each project runs its global setups; the first one makes the directory, the others reuse it.
export default function setup(): (() => void) | undefined {
  if (process.env.CROSSTALK_TEST_TMP) return undefined
  const dir = mkdtempSync(join(tmpdir(), 'crosstalk-test-'))
  const previous = process.env.TMPDIR
  process.env.TMPDIR = dir
  process.env.CROSSTALK_TEST_TMP = dir
  return () => {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
    delete process.env.CROSSTALK_TEST_TMP
    if (!process.env.CROSSTALK_KEEP_TEST_TMP) rmSync(dir, {recursive: true, force: true})
  }
}
