import {spawnSync} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, ROOT, tempDir} from '../helpers/cli.js'

// The Spark job's plan step (spark/crosstalk_spark/job.py, plan_units) runs `crosstalk extract
// --plan` with the reading flags of `ingest logs`. --map and --tenant-attribute take several
// values: without "--" before the shards they took the shards as mappings, and every job given a
// --map failed before it started. plan_units needs no Spark: it runs under any python3.

const python = process.env.CROSSTALK_SPARK_VENV ? join(process.env.CROSSTALK_SPARK_VENV, 'bin/python') : 'python3'
const probe = spawnSync(python, ['--version'], {encoding: 'utf8'})
if (probe.status !== 0) console.warn(`SKIPPED spark-plan.test.ts: no ${python}`)

describe.skipIf(probe.status !== 0)('crosstalk-spark plans shards read with --map and --tenant-attribute', () => {
  it('gives each shard its unit, the flags before "--" and the paths after', () => {
    const dir = tempDir('spark-plan')
    mkdirSync(join(dir, 'logs'))
    const line = (rid: string): string =>
      JSON.stringify({time: '2026-11-01T10:01:00Z', rid, meta: {org: 'tA', conv: 'sA'}, in: {messages: [{role: 'user', content: 'hi'}]}, out: {choices: [{message: {role: 'assistant', content: 'ok'}}]}})
    writeFileSync(join(dir, 'logs/gw-1.jsonl'), `${line('r1')}\n`)
    writeFileSync(join(dir, 'logs/gw-2.jsonl'), `${line('r2')}\n`)
    const script = [
      'import json, sys',
      'from crosstalk_spark.job import parse_args, format_flags, plan_units',
      'a = parse_args(sys.argv[1:])',
      'print(json.dumps(plan_units(a.crosstalk, a.shards, format_flags(a))))',
    ].join('\n')
    const res = spawnSync(
      python,
      ['-c', script, join(dir, 'logs'), '--registry', dir, '--out', dir, '--crosstalk', `${process.execPath} ${BIN}`, '--log-format', 'native',
        '--map', 'ts=time', '--map', 'request_id=rid', '--map', 'tenant_id=meta.org', '--map', 'session_id=meta.conv', '--map', 'request=in', '--map', 'response=out',
        '--tenant-attribute', 'org'],
      {encoding: 'utf8', env: {...process.env, PYTHONPATH: join(ROOT, 'spark')}},
    )
    expect(res.status, res.stderr).toBe(0)
    const units = JSON.parse(res.stdout) as string[][]
    expect(units).toEqual([[join(dir, 'logs/gw-1.jsonl')], [join(dir, 'logs/gw-2.jsonl')]])
  })
})
