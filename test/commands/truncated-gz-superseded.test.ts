import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A rotated .gz copied while gzip still wrote it is stored "not read whole", and no gate passes
// on it. Once the whole file was ingested at the same path, as the error advises, the gate still
// failed forever, `ingest dismiss` refused it, and only `drop` (said nowhere) cleared it.

const line = (i: number): string =>
  JSON.stringify({ts: `2026-11-01T10:00:${String(i % 60).padStart(2, '0')}Z`, request_id: `r-${i}`, tenant_id: `tn-${i % 3}`, session_id: `s-${i}`, status: 200, request: `question ${i} ${'x'.repeat(i % 50)}`, response: `answer ${i} ${'lorem ipsum '.repeat(i % 20)}`}) + '\n'

interface Status {unreadable_files: Array<{path: string; why: string}>}

describe('a truncated .gz, then its whole copy at the same path', () => {
  it('the whole copy settles it; until then the gate and dismiss name the way out; dropping the whole copy reopens it', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'logs'))
    const gz = join(dir, 'logs', 'app.log.2.gz')
    const db = join(dir, 'c.db')
    writeFileSync(join(dir, 'reg.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-00112233445566778899aabb,tn-1,s-1,2026-11-01T00:00:00Z\n')
    await runJson(['ingest', 'canaries', join(dir, 'reg.csv'), '--db', db])
    const whole = gzipSync(Buffer.from(Array.from({length: 300}, (_, i) => line(i)).join('')))
    writeFileSync(gz, whole.subarray(0, Math.floor(whole.length / 2)))
    await run(['ingest', 'logs', gz, '--db', db])

    const refused = await run(['scan', '--db', db, '--fail-on-leak', '--accept-bad-lines'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/not read whole: .*ingest a whole copy of it at the same path.*crosstalk drop [0-9a-f]{12} --reason/)
    const dismiss = await run(['ingest', 'dismiss', gz, '--reason', 'whole copy ingested', '--db', db])
    expect(dismiss.code).toBe(1)
    expect(dismiss.stderr).toMatch(/not read whole \(sha256 [0-9a-f]{12}\), which dismiss does not settle: ingest a whole copy of it at this path .*crosstalk drop [0-9a-f]{12}/)

    writeFileSync(gz, whole)
    const again = await run(['ingest', 'logs', gz, '--db', db])
    expect(again.code, again.stderr).toBe(0)
    expect((await runJson<Status>(['status', '--db', db])).unreadable_files).toEqual([])
    const gate = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(gate.code, gate.stderr).toBe(0)

    // Settled by the whole version the case holds, not by a note: dropping it reopens the truncated one.
    const wholeSha = /sha256:([0-9a-f]{12})/.exec(again.stdout + again.stderr)?.[1]
    expect(wholeSha).toBeDefined()
    await run(['drop', wholeSha!, '--reason', 'test', '--db', db])
    expect((await runJson<Status>(['status', '--db', db])).unreadable_files.map((u) => u.path)).toEqual([expect.stringMatching(/app\.log\.2\.gz$/)])
  }, 120_000)
})
