import {mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {folderBytes, invocation, shellQuote} from '../../src/cli/invocation.js'
import {renderDemoSummary} from '../../src/cli/render-demo.js'
import type {DemoResult} from '../../src/demo/pipeline.js'
import {ROOT, tempDir} from '../helpers/cli.js'

describe('invocation: how the user runs this crosstalk', () => {
  it('is "crosstalk" when the first crosstalk on PATH is this one', () => {
    const bin = join(tempDir(), 'bin')
    mkdirSync(bin)
    symlinkSync(join(ROOT, 'bin/run.js'), join(bin, 'crosstalk'))
    expect(invocation(ROOT, 'crosstalk', {path: `/nonexistent:${bin}:/usr/bin`, cwd: '/'})).toBe('crosstalk')
  })

  it('is the path of bin/run.js when crosstalk on PATH is another program or absent', () => {
    const other = join(tempDir(), 'bin')
    mkdirSync(other)
    writeFileSync(join(other, 'crosstalk'), '#!/bin/sh\necho other\n', {mode: 0o755})
    expect(invocation(ROOT, 'crosstalk', {path: other, cwd: ROOT})).toBe('./bin/run.js')
    expect(invocation(ROOT, 'crosstalk', {path: '', cwd: join(ROOT, 'src')})).toBe(join(ROOT, 'bin/run.js'))
    expect(invocation('/opt/my tools/crosstalk', 'crosstalk', {path: '', cwd: '/tmp'})).toBe("'/opt/my tools/crosstalk/bin/run.js'")
  })

  it('quotes for a POSIX shell only when needed', () => {
    expect(shellQuote('/tmp/case.db')).toBe('/tmp/case.db')
    expect(shellQuote("/tmp/it's here")).toBe(`'/tmp/it'\\''s here'`)
  })
})

describe('the demo summary', () => {
  const result = {
    out: '/tmp/crosstalk-demo-x',
    db: '/tmp/crosstalk-demo-x/case.db',
    records: 20000,
    seed: 1,
    steps: [],
    outputs: {logs: '', canaries: '', ground_truth: '/tmp/crosstalk-demo-x/ground-truth.json', reports: '/tmp/crosstalk-demo-x/reports', article33: [], notices: '', junit: ''},
  } as DemoResult

  it('says where it left its temporary folder, how big it is, and how to remove it', () => {
    const text = renderDemoSummary(result, 8.2, {bin: './bin/run.js', folder: {path: result.out, bytes: 139_400_000, temporary: true}})
    expect(text).toContain('left on disk  139 MB in /tmp/crosstalk-demo-x (a temporary folder; remove it with: rm -rf /tmp/crosstalk-demo-x)')
    const given = renderDemoSummary(result, 8.2, {bin: 'crosstalk', folder: {path: result.out, bytes: 1e6, temporary: false}})
    expect(given).not.toContain('temporary')
  })

  it('prints each next command on its own line, with the invocation that works here', () => {
    const text = renderDemoSummary(result, 8.2, {bin: './bin/run.js', folder: {path: result.out, bytes: 0, temporary: true}})
    expect(text.split('Next, on this case:\n')[1]!.split('\n')).toEqual([
      '  ./bin/run.js status --db /tmp/crosstalk-demo-x/case.db',
      '  ./bin/run.js scope --db /tmp/crosstalk-demo-x/case.db --pool-tokens 681280',
      '  ./bin/run.js timeline --db /tmp/crosstalk-demo-x/case.db --pool-tokens 681280',
      '  ./bin/run.js report case --db /tmp/crosstalk-demo-x/case.db --format html --out /tmp/crosstalk-demo-x/reports/case.html',
    ])
  })

  it('gives a processor no deadline but the one recorded: the contract\'s 72-hour deadline is not the processor\'s duty', () => {
    const clock = (over: object) => ({...result, steps: [{command: 'crosstalk clock --db x', result: {aware_at: '2026-12-06T04:00:00.000Z', deadline: '2026-12-09T04:00:00.000Z', ...over}}]}) as unknown as DemoResult
    const options = {bin: 'crosstalk', folder: {path: result.out, bytes: 0, temporary: false}}
    const controllers = [{tenant_id: 'a', notified_at: null}, {tenant_id: 'b', notified_at: '2026-12-06T05:00:00.000Z'}]
    const undue = renderDemoSummary(clock({basis: 'art33(2)-without-undue-delay', duty_deadline: null, controllers}), 1, options)
    expect(undue).toContain('GDPR clock    processor: notify each of 2 controllers without undue delay (Art. 33(2)); 1 notified so far')
    expect(undue).not.toContain('2026-12-09')
    const contract = renderDemoSummary(clock({basis: 'art33(2)-contract', duty_deadline: '2026-12-07T04:00:00.000Z', controllers}), 1, options)
    expect(contract).toContain('notify each of 2 controllers by 2026-12-07T04:00:00.000Z (the contractual period); 1 notified so far')
  })

  it('folderBytes adds up the files below a folder', () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'a'))
    writeFileSync(join(dir, 'x'), Buffer.alloc(1000))
    writeFileSync(join(dir, 'a', 'y'), Buffer.alloc(234))
    expect(folderBytes(dir)).toBe(1234)
  })
})
