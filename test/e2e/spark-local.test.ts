import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {basename, join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, runCli, runJson, tempDir} from '../helpers/cli.js'
import {convertIncident} from '../helpers/convert-formats.js'
import {chatLine} from '../helpers/log-lines.js'

// The Spark audit in-process (local[2]) on small incidents, for development: the job's
// findings brought into a case by reference must say what single-machine crosstalk says
// (sightings, provenance with its chains, PII findings, scope, status), for native logs and
// for OpenTelemetry traces with their logs file (spans several to a line, content on other
// lines); verify must check the referenced originals, and a case of references must refuse
// what only the job can answer. The real cluster test (spark/ci/run-cluster-test.sh, run by
// .ci/run) does the same at 200,000 records on a standalone master and two workers.
//
// Needs pyspark in a Python environment (CROSSTALK_SPARK_VENV, which .ci/run sets after the
// cluster test installs it) and Java 17+; without them this file is skipped and says so. The
// job runs from this checkout (spark/ on PYTHONPATH; it ships itself to the executors).

const VENV = process.env.CROSSTALK_SPARK_VENV ?? ''
const python = join(VENV, 'bin/python')
const pyEnv = {...process.env, PYTHONPATH: join(ROOT, 'spark'), PYSPARK_PYTHON: python, SPARK_LOCAL_IP: '127.0.0.1'}
const probe = VENV ? spawnSync(python, ['-c', 'import pyspark, crosstalk_spark.job'], {encoding: 'utf8', env: pyEnv}) : null
const java = spawnSync('java', ['-version'], {encoding: 'utf8'})
const available = probe?.status === 0 && java.status === 0
if (!available) {
  console.warn(
    `SKIPPED spark-local.test.ts: ${!VENV ? 'CROSSTALK_SPARK_VENV is not set (a Python environment with pyspark: pip install ./spark)' : probe?.status !== 0 ? `pyspark not importable from ${python}: ${probe?.stderr.trim().split('\n').at(-1)}` : 'no Java'}`,
  )
}
const POOL = '681280'
const CT = `${process.execPath} ${BIN}`

interface Compared {
  compared: Record<string, number>
}

/** Single machine (ingest + scan) and Spark (job + ingest findings) on the same files; the comparison of the two cases. */
function bothWays(dir: string, name: string, files: string[], reading: string[]): Compared {
  const single = join(dir, `${name}-single.db`)
  const spark = join(dir, `${name}-spark.db`)
  for (const db of [single, spark]) runJson(['ingest', 'canaries', join(dir, 'incident/canaries.csv'), '--db', db])
  runJson(['ingest', 'logs', ...files, ...reading, '--db', single])
  runJson(['scan', '--db', single, '--pool-tokens', POOL])
  runJson(['registry-export', '--db', spark, '--out', join(dir, `${name}-registry`)])
  const job = spawnSync(
    python,
    ['-m', 'crosstalk_spark.job', ...files, '--registry', join(dir, `${name}-registry`), '--out', join(dir, `${name}-job`), '--crosstalk', CT, '--master', 'local[2]',
      '--pool-tokens', POOL, '--shuffle-partitions', '4', '--conf', 'spark.ui.enabled=false', '--conf', 'spark.driver.memory=1g', ...reading],
    {encoding: 'utf8', env: pyEnv, maxBuffer: 64 << 20},
  )
  expect(job.status, job.stderr.split('\n').slice(-15).join('\n')).toBe(0)
  runJson(['ingest', 'findings', join(dir, `${name}-job/findings`), '--db', spark])
  const cmp = spawnSync(python, [join(ROOT, 'spark/ci/compare_cases.py'), CT, single, spark], {encoding: 'utf8'})
  expect(cmp.status, cmp.stderr).toBe(0)
  return JSON.parse(cmp.stdout) as Compared
}

describe.skipIf(!available)('the Spark audit on local[2]', () => {
  let dir = ''
  let shards = ''
  let chained: Array<{request_id: string; source_request_id: string}> = []
  beforeAll(() => {
    dir = tempDir('ct-spark-')
    runJson(['generate', '--out', join(dir, 'incident'), '--records', '1500', '--seed', '4'])
    shards = join(dir, 'shards')
    cpSync(join(dir, 'incident/logs'), shards, {recursive: true})
    const truth = JSON.parse(readFileSync(join(dir, 'incident/ground-truth.json'), 'utf8')) as {leaks: Array<{request_id: string; source_request_id: string; via_request_id: string | null}>}
    chained = truth.leaks.filter((l) => l.via_request_id !== null)
  }, 120_000)

  it('finds what one machine finds in native logs, chains attributed to their original source', () => {
    const out = bothWays(dir, 'native', [shards], [])
    // Not a comparison of two empty answers.
    expect(out.compared.sightings).toBeGreaterThan(0)
    expect(out.compared.provenance).toBeGreaterThan(0)
    expect(out.compared.records).toBeGreaterThan(1400)
    // The incident (seed 4) holds a leak of a leak long enough for provenance, and the job attributes it to the original, as scan does.
    expect(chained.length).toBeGreaterThan(0)
    const prov = runJson<Array<{request_id: string; source_request_id: string}>>(['provenance', '--db', join(dir, 'native-spark.db')])
    for (const l of chained) {
      const p = prov.find((x) => x.request_id === l.request_id)
      if (p) expect(p.source_request_id).toBe(l.source_request_id)
    }
    expect(chained.some((l) => prov.some((x) => x.request_id === l.request_id))).toBe(true)
  }, 900_000)

  it('finds what one machine finds in OpenTelemetry traces with their logs file (several records a line, content on other lines)', () => {
    const converted = convertIncident(join(dir, 'incident/logs'), join(dir, 'otel'))
    const out = bothWays(dir, 'otel', [converted.otel.traces, converted.otel.logs], [])
    expect(out.compared.sightings).toBeGreaterThan(0)
    expect(out.compared.provenance).toBeGreaterThan(0)
    expect(out.compared.records).toBeGreaterThan(1400)
  }, 900_000)

  it('takes a prompt holding only a marker\'s hex for no echo, and the marker itself for one, as one machine does', () => {
    const small = tempDir('ct-spark-echo-')
    const hexA = '9f8e7d6c5b4a39281706f5e4'
    mkdirSync(join(small, 'incident'))
    mkdirSync(join(small, 'logs'))
    writeFileSync(join(small, 'incident/canaries.csv'), `marker,tenant_id,session_id,issued_at\nCANARY-${hexA},tenant-a,sess-a,2026-10-01T00:00:00Z\n`)
    const line = (request_id: string, prompt: string) => chatLine({request_id, tenant_id: 'tenant-b', session_id: 'sess-b', prompt, answer: `here: CANARY-${hexA}`})
    writeFileSync(join(small, 'logs/echo.jsonl'), `${line('r-bare', `build hash ${hexA}, canary-${hexA}`)}\n${line('r-echo', `what is CANARY-${hexA.toUpperCase()}?`)}\n`)
    const out = bothWays(small, 'echo', [join(small, 'logs')], [])
    expect(out.compared.sightings).toBeGreaterThan(0)
    const sightings = runJson<Array<{request_id: string; class: string}>>(['sightings', '--db', join(small, 'echo-spark.db')])
    expect(sightings.map((s) => [s.request_id, s.class])).toEqual([['r-bare', 'cross_tenant'], ['r-echo', 'echo']])
  }, 900_000)

  it('reads a token cut short of one marker that also extends a shorter one as the longer\'s partial, as one machine does', () => {
    const small = tempDir('ct-spark-prefix-')
    const SHORT = 'CANARY-aaaaaaaaaaaaaaaa'
    const LONG = 'CANARY-aaaaaaaaaaaaaaaa1111'
    mkdirSync(join(small, 'incident'))
    mkdirSync(join(small, 'logs'))
    writeFileSync(join(small, 'incident/canaries.csv'), `marker,tenant_id,session_id,issued_at\n${SHORT},tenant-b,sess-b,2026-10-01T00:00:00Z\n${LONG},tenant-a,sess-a,2026-10-01T00:00:00Z\n`)
    const line = (request_id: string, answer: string) => chatLine({request_id, tenant_id: 'tenant-b', session_id: 'sess-b', prompt: 'hello there', answer})
    writeFileSync(join(small, 'logs/prefix.jsonl'), `${line('r-between', `here ${SHORT}111 ok`)}\n${line('r-run-on', `here ${SHORT}1112 ok`)}\n`)
    const out = bothWays(small, 'prefix', [join(small, 'logs')], [])
    expect(out.compared.sightings).toBeGreaterThan(0)
    const sightings = runJson<Array<{request_id: string; class: string; partial: boolean; marker: string}>>(['sightings', '--db', join(small, 'prefix-spark.db')])
    expect(sightings.map((s) => [s.request_id, s.class, s.partial, s.marker])).toEqual([['r-between', 'cross_tenant', true, LONG], ['r-run-on', 'own', false, SHORT]])
  }, 900_000)

  it('keeps what verification established about a source: ambiguous and unknown sources stay unnamed, as one machine says', () => {
    const small = tempDir('ct-spark-prov-')
    mkdirSync(join(small, 'incident'))
    mkdirSync(join(small, 'logs'))
    writeFileSync(join(small, 'incident/canaries.csv'), `marker,tenant_id,session_id,issued_at\nCANARY-0a1b2c3d4e5f60718293a4b5,tenant-a,sess-a,2026-10-01T00:00:00Z\n`)
    // Words no other record holds, so that only these texts are fingerprinted alike.
    let seed = 97
    const word = (): string => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return `w${(seed % 900000).toString(36)}`
    }
    const article = Array.from({length: 60}, word)
    const secret = Array.from({length: 50}, word)
    const at = (s: number) => new Date(Date.parse('2026-11-02T06:00:00.000Z') + s * 1000).toISOString()
    const lines = [
      // Two tenants' prompts hold the same article: a response repeating it has no one source.
      chatLine({ts: at(0), request_id: 'pa', tenant_id: 'tenant-a', session_id: 'sess-a', prompt: `summarise: ${article.join(' ')}`, answer: 'ok'}),
      chatLine({ts: at(1), request_id: 'pb', tenant_id: 'tenant-b', session_id: 'sess-b', prompt: `please read ${article.join(' ')}`, answer: 'fine'}),
      chatLine({ts: at(2), request_id: 'r-amb', tenant_id: 'tenant-c', session_id: 'sess-c', prompt: 'hello', answer: `here ${article.slice(0, 40).join(' ')} end`}),
      // Only an answer whose prompt was not logged held the text before: its source is unknown.
      JSON.stringify({ts: at(3), request_id: 'seen', tenant_id: 'tenant-d', session_id: 'sess-d', status: 200,
        response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: `well ${secret.join(' ')} so`}}]}}),
      chatLine({ts: at(4), request_id: 'r-unk', tenant_id: 'tenant-e', session_id: 'sess-e', prompt: 'hi', answer: `ok ${secret.slice(0, 35).join(' ')} bye`}),
    ]
    writeFileSync(join(small, 'logs/prov.jsonl'), `${lines.join('\n')}\n`)
    const out = bothWays(small, 'prov', [join(small, 'logs')], [])
    expect(out.compared.provenance).toBe(2)
    const prov = runJson<Array<{request_id: string; source_status: string; source_tenants: number}>>(['provenance', '--db', join(small, 'prov-spark.db')])
    expect(prov.map((p) => [p.request_id, p.source_status, p.source_tenants])).toEqual([['r-amb', 'ambiguous', 2], ['r-unk', 'unknown', 1]])
  }, 900_000)

  it('judges a retry logged under a request id already counted, in its record\'s shard or another, as one machine does', () => {
    const small = tempDir('ct-spark-retry-')
    const A = 'CANARY-aaaaaaaaaaaaaaaa'
    const B = 'CANARY-bbbbbbbbbbbbbbbb'
    mkdirSync(join(small, 'incident'))
    mkdirSync(join(small, 'logs'))
    writeFileSync(join(small, 'incident/canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tA,sA,2026-10-01T00:00:00Z\n${B},tB,sB,2026-10-01T00:00:00Z\n`)
    const line = (ts: string, request_id: string, tenant: string, answer: string) =>
      chatLine({ts, request_id, tenant_id: tenant, session_id: tenant === 'tA' ? 'sA' : 'sB', prompt: `hi ${tenant === 'tA' ? A : B}`, answer})
    // r2's retry (same shard) carries tenant A's marker; r1's retry (the next shard) carries B's.
    writeFileSync(join(small, 'logs/gw-1.jsonl'), `${[
      line('2026-11-01T10:01:00.000Z', 'r1', 'tA', 'ok'),
      line('2026-11-01T10:02:00.000Z', 'r2', 'tB', 'clean'),
      line('2026-11-01T10:02:05.000Z', 'r2', 'tB', `retry ${A}`),
    ].join('\n')}\n`)
    writeFileSync(join(small, 'logs/gw-2.jsonl'), `${line('2026-11-01T10:03:00.000Z', 'r1', 'tA', `again ${B}`)}\n`)
    bothWays(small, 'retry', [join(small, 'logs')], [])
    type Dup = {duplicate_leaks_not_counted: Array<{path: string; line: number; request_id: string; class: string}>; duplicate_lines_not_examined: number}
    const pick = (db: string) => {
      const s = runJson<Dup>(['status', '--db', join(small, db), '--json'])
      return {leaks: s.duplicate_leaks_not_counted.map((d) => [basename(d.path), d.line, d.request_id, d.class]), unexamined: s.duplicate_lines_not_examined}
    }
    const single = pick('retry-single.db')
    expect(single.leaks).toEqual([['gw-1.jsonl', 3, 'r2', 'cross_tenant'], ['gw-2.jsonl', 1, 'r1', 'cross_tenant']])
    expect(pick('retry-spark.db')).toEqual(single)
    // No all-clear: the draft names the retries as an open item, as one machine's does.
    const a33 = runCli(['report', 'article33', '--db', join(small, 'retry-spark.db'), '--allow-incomplete', '--out', join(small, 'a33.md')])
    expect(a33.code, a33.stderr).toBe(0)
    const draft = readFileSync(join(small, 'a33.md'), 'utf8')
    expect(draft).toMatch(/2 further responses[^\n]*logged under the request id of a response already counted/)
  }, 900_000)

  it('stores only the findings’ lines, and keeps the totals of every record', () => {
    const status = runJson<{records: number; files: number}>(['status', '--db', join(dir, 'native-spark.db')])
    const single = runJson<{records: number; files: number}>(['status', '--db', join(dir, 'native-single.db')])
    expect(status.records).toBe(single.records)
    expect(status.files).toBe(single.files)
    const stored = spawnSync(python, ['-c', `import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from records').fetchone()[0])`, join(dir, 'native-spark.db')], {encoding: 'utf8'})
    expect(Number(stored.stdout)).toBeGreaterThan(0)
    expect(Number(stored.stdout)).toBeLessThan(single.records / 2)
  })

  it('refuses what only the job can answer: a scan, another pool size, dropping a shard', () => {
    const scan = runCli(['scan', '--db', join(dir, 'native-spark.db')])
    expect(scan.code).toBe(1)
    expect(scan.stderr).toMatch(/evidence by reference/)
    const scope = runCli(['scope', '--db', join(dir, 'native-spark.db'), '--pool-tokens', '100000'])
    expect(scope.code).toBe(1)
    expect(scope.stderr).toMatch(/--pool-tokens 681280/)
    const drop = runCli(['drop', join(shards, 'gw-fra1-2026-11-01.jsonl'), '--reason', 'test', '--db', join(dir, 'native-spark.db')])
    expect(drop.code).toBe(1)
    expect(drop.stderr).toMatch(/Spark findings by reference/)
  })

  it('verify checks the referenced originals: a changed shard is found', () => {
    const ok = runCli(['verify', '--db', join(dir, 'native-spark.db'), '--json'])
    expect(ok.code, ok.stdout).toBe(0)
    expect((JSON.parse(ok.stdout) as {originals_rehashed: number}).originals_rehashed).toBeGreaterThan(0)
    const shard = join(shards, 'gw-fra1-2026-11-01.jsonl')
    expect(existsSync(shard)).toBe(true)
    // One byte changed in place: same size, another SHA-256.
    const bytes = readFileSync(shard)
    const at = bytes.indexOf('"ts":"2026') + 7
    bytes[at] = bytes[at] === 0x31 ? 0x32 : 0x31
    writeFileSync(shard, bytes)
    const v = runCli(['verify', '--db', join(dir, 'native-spark.db'), '--json'])
    expect(v.code).toBe(1)
    expect(v.stdout).toMatch(/no longer matches the SHA-256/)
  })
})
