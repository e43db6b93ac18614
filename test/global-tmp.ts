import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

// Every test run gets one private temporary directory: the tests' cases, generated logs and
// the CLI children they spawn (which inherit TMPDIR) all land in it, and it is removed when
// the run ends. The cases hold generated personal data; none of it should outlive the run.
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'crosstalk-test-'))
  const previous = process.env.TMPDIR
  process.env.TMPDIR = dir
  return () => {
    if (previous === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = previous
    if (!process.env.CROSSTALK_KEEP_TEST_TMP) rmSync(dir, {recursive: true, force: true})
  }
}
