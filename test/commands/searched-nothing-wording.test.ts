import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A case whose only log gave no record, then scanned: a scan ran and searched nothing. scope
// --csv (and --tenant) refused saying "the case was never scanned ... run `crosstalk scan`",
// and the case page said "never been scanned" in its chart and sections: a scan did run, and
// running it again searches nothing again. Each says what is true and what to run.

const dir = tempDir('ct-searched-nothing-words-')
const db = join(dir, 'c.db')
const NEVER = /never (been )?scanned/

beforeAll(async () => {
  writeFileSync(join(dir, 'b.jsonl'), 'garbage\n{"ts":"x"}\n')
  writeFileSync(join(dir, 'reg.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-aaaaaaaaaaaaaaaaaaaa01,tA,sA,2026-11-01T09:00:00Z\n')
  await run(['ingest', 'logs', join(dir, 'b.jsonl'), '--db', db])
  await run(['ingest', 'canaries', join(dir, 'reg.csv'), '--db', db])
  const scan = await run(['scan', '--db', db])
  expect(scan.code, scan.stderr).toBe(0)
}, 60_000)

describe('outputs over a scan that searched nothing', () => {
  it('scope --csv and scope --tenant say the scan searched nothing and name the logs to ingest', async () => {
    for (const args of [['--csv'], ['--csv', '--table', 'exposure'], ['--tenant', 'tA'], ['--tenant', 'tA', '--csv']]) {
      const r = await run(['scope', '--db', db, '--allow-incomplete', ...args])
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stdout, args.join(' ')).toBe('')
      const error = r.stderr.split('\n').find((l) => l.startsWith('Error:')) ?? ''
      expect(error, args.join(' ')).toMatch(/the case holds no log record, so the scan searched nothing/)
      expect(error, args.join(' ')).toContain('crosstalk ingest logs PATH; crosstalk scan')
      expect(error, args.join(' ')).not.toMatch(NEVER)
    }
  })

  it('the console scope and timeline name the logs to ingest, not a scan alone', async () => {
    for (const cmd of ['scope', 'timeline']) {
      const r = await run([cmd, '--db', db, '--allow-incomplete'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/the scan searched nothing/)
      expect(r.stdout).toContain('crosstalk ingest logs PATH; crosstalk scan')
      expect(r.stdout).not.toMatch(NEVER)
    }
  })

  it('the case page says a scan ran and searched nothing, in its verdict, chart and sections', async () => {
    const out = join(dir, 'case.html')
    const r = await run(['report', 'case', '--db', db, '--allow-incomplete', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    const page = readFileSync(out, 'utf8')
    expect(page).toContain('Scanned, but nothing was searched')
    expect(page).toMatch(/nothing to chart yet/)
    expect(page).toMatch(/Not known: the case holds no log record, so the scan searched nothing \(crosstalk ingest logs PATH; crosstalk scan\)/)
    // Only the files not read whole may be "never scanned" (what they held beyond what was read): none here says the case was.
    expect(page).not.toMatch(/case (has )?never (been )?scanned|Not scanned:/)
  })
})
