import {spawnSync} from 'node:child_process'
import {appendFileSync, cpSync, existsSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, runCli, runJson, tempDir} from '../helpers/cli.js'

// The Spark audit in-process (local[2]) on a small incident, for development: the job's
// findings brought into a case by reference must say what single-machine crosstalk says
// (sightings, provenance, PII findings, scope, status), verify must check the referenced
// originals, and a case of references must refuse what only the job can answer. The real
// cluster test (spark/ci/run-cluster-test.sh, run by .ci/run) does the same at 200,000
// records on a standalone master and two workers.
//
// Needs the job installed in a Python environment (CROSSTALK_SPARK_VENV, which .ci/run sets
// after the cluster test installs it) and Java 17+; without them this file is skipped and says so.

const VENV = process.env.CROSSTALK_SPARK_VENV ?? ''
const python = join(VENV, 'bin/python')
const probe = VENV ? spawnSync(python, ['-c', 'import pyspark, crosstalk_spark'], {encoding: 'utf8'}) : null
const java = spawnSync('java', ['-version'], {encoding: 'utf8'})
const available = probe?.status === 0 && java.status === 0
if (!available) {
  console.warn(
    `SKIPPED spark-local.test.ts: ${!VENV ? 'CROSSTALK_SPARK_VENV is not set (a Python environment with pip install ./spark)' : probe?.status !== 0 ? `pyspark or crosstalk_spark not importable from ${python}` : 'no Java'}`,
  )
}
const POOL = '681280'
const CT = `${process.execPath} ${BIN}`

describe.skipIf(!available)('the Spark audit on local[2]', () => {
  let dir = ''
  let shards = ''
  beforeAll(() => {
    dir = tempDir('ct-spark-')
    runJson(['generate', '--out', join(dir, 'incident'), '--records', '1500', '--seed', '5'])
    shards = join(dir, 'shards')
    cpSync(join(dir, 'incident/logs'), shards, {recursive: true})
    for (const db of ['single.db', 'spark.db']) runJson(['ingest', 'canaries', join(dir, 'incident/canaries.csv'), '--db', join(dir, db)])
    runJson(['ingest', 'logs', shards, '--db', join(dir, 'single.db')])
    runJson(['scan', '--db', join(dir, 'single.db'), '--pool-tokens', POOL])
    runJson(['registry-export', '--db', join(dir, 'spark.db'), '--out', join(dir, 'registry')])
    const job = spawnSync(
      join(VENV, 'bin/crosstalk-spark'),
      [shards, '--registry', join(dir, 'registry'), '--out', join(dir, 'job'), '--crosstalk', CT, '--master', 'local[2]', '--pool-tokens', POOL,
        '--shuffle-partitions', '4', '--conf', 'spark.ui.enabled=false', '--conf', 'spark.driver.memory=1g'],
      {encoding: 'utf8', env: {...process.env, PYSPARK_PYTHON: python, SPARK_LOCAL_IP: '127.0.0.1'}, maxBuffer: 64 << 20},
    )
    expect(job.status, job.stderr.split('\n').slice(-15).join('\n')).toBe(0)
    runJson(['ingest', 'findings', join(dir, 'job/findings'), '--db', join(dir, 'spark.db')])
  }, 900_000)

  it('finds what one machine finds', () => {
    const cmp = spawnSync(python, [join(ROOT, 'spark/ci/compare_cases.py'), CT, join(dir, 'single.db'), join(dir, 'spark.db')], {encoding: 'utf8'})
    expect(cmp.status, cmp.stderr).toBe(0)
    const out = JSON.parse(cmp.stdout) as {compared: Record<string, number>}
    // Not a comparison of two empty answers.
    expect(out.compared.sightings).toBeGreaterThan(0)
    expect(out.compared.provenance).toBeGreaterThan(0)
    expect(out.compared.records).toBeGreaterThan(1400)
  })

  it('stores only the findings’ lines, and keeps the totals of every record', () => {
    const status = runJson<{records: number; files: number}>(['status', '--db', join(dir, 'spark.db')])
    const single = runJson<{records: number; files: number}>(['status', '--db', join(dir, 'single.db')])
    expect(status.records).toBe(single.records)
    expect(status.files).toBe(single.files)
    const stored = spawnSync(python, ['-c', `import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from records').fetchone()[0])`, join(dir, 'spark.db')], {encoding: 'utf8'})
    expect(Number(stored.stdout)).toBeLessThan(single.records / 2)
  })

  it('refuses what only the job can answer: a scan, another pool size', () => {
    const scan = runCli(['scan', '--db', join(dir, 'spark.db')])
    expect(scan.code).toBe(1)
    expect(scan.stderr).toMatch(/evidence by reference/)
    const scope = runCli(['scope', '--db', join(dir, 'spark.db'), '--pool-tokens', '100000'])
    expect(scope.code).toBe(1)
    expect(scope.stderr).toMatch(/--pool-tokens 681280/)
  })

  it('verify checks the referenced originals: a changed shard is found', () => {
    expect(runCli(['verify', '--db', join(dir, 'spark.db')]).code).toBe(0)
    const shard = join(shards, 'gw-fra1-2026-11-01.jsonl')
    expect(existsSync(shard)).toBe(true)
    appendFileSync(shard, '\n')
    const v = runCli(['verify', '--db', join(dir, 'spark.db'), '--json'])
    expect(v.code).toBe(1)
    expect(v.stdout).toMatch(/no longer matches the SHA-256/)
  })
})
