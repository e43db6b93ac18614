import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA investigate #1: after a canary registry ingested late (or a file dropped) without a rescan,
// assess stated the findings that still stand as "none": the personal data the scan attributed to
// another session as "no financial data detected", the cross-tenant verbatim text as "no
// cross-tenant corruption", and the suggestion fell from notify-subjects to document.

const dir = tempDir('ct-assess-stale-')
const gen = join(dir, 'gen')
const other = join(dir, 'gen2')
const db = (name: string): string => join(dir, `${name}.db`)
const ok = async (args: string[]): Promise<void> => {
  const r = await run(args)
  if (r.code !== 0) throw new Error(`crosstalk ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
}

interface Assess {suggested: string; inputs: Array<{name: string; value: unknown; why: string}>}
const input = (a: Assess, name: string) => a.inputs.find((i) => i.name === name)!

beforeAll(async () => {
  await ok(['generate', '--out', gen, '--records', '3000', '--seed', '3'])
  await ok(['generate', '--out', other, '--records', '300', '--seed', '9'])
  // each case built on its own (a copied database could miss what its WAL still held)
  for (const name of ['base', 'late', 'drop']) {
    await ok(['ingest', 'logs', '--db', db(name), join(gen, 'logs')])
    await ok(['ingest', 'canaries', '--db', db(name), join(gen, 'canaries.csv')])
    await ok(['scan', '--db', db(name)])
  }
  // five markers of unrelated sessions: the registry changed since the scan
  const late = join(dir, 'late.csv')
  writeFileSync(late, readFileSync(join(other, 'canaries.csv'), 'utf8').split('\n').slice(0, 6).join('\n') + '\n')
  await ok(['ingest', 'canaries', '--db', db('late'), late])
  await ok(['drop', '--db', db('drop'), '--reason', 'test', join(gen, 'logs', 'gw-ams1-2026-10-30.jsonl')])
}, 240_000)

describe('assess over findings out of date', () => {
  it('a late registry leaves the attributed personal data and the cross-tenant verbatim text standing', async () => {
    const before = await runJson<Assess>(['assess', '--db', db('base')])
    const after = await runJson<Assess>(['assess', '--db', db('late')])
    for (const name of ['dpc', 'ei', 'cb_integrity']) expect(input(after, name).value, name).toBe(input(before, name).value)
    expect(input(after, 'dpc').value).toBe(3)
    expect(input(after, 'cb_integrity').why).toMatch(/cross-tenant\)/)
    expect(after.suggested).toBe(before.suggested)
    for (const i of after.inputs) expect(i.why, i.name).not.toMatch(/no financial data detected|no direct identifiers detected|no cross-tenant corruption of responses found/)
  })

  it('after a drop, what the standing findings do not show is not known, never none', async () => {
    const after = await runJson<Assess>(['assess', '--db', db('drop')])
    for (const name of ['dpc', 'ei']) {
      expect(input(after, name).why, name).toMatch(/is not known until then/)
      expect(input(after, name).why, name).not.toMatch(/no financial data detected|no direct identifiers detected/)
    }
    expect(after.suggested).not.toBe('document')
  })
})
