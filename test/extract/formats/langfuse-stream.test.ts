import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {decodeResponse} from '../../../src/extract/decode.js'
import {runAdapter} from './run-adapter.js'

it('langfuse: a GENERATION whose output is a stream\'s chunks is read as the stream, a split marker whole', () => {
  const m = 'CANARY-5555eeee6666ffff'
  const chunks = ['Acct ', m.slice(0, 9), m.slice(9)].map((c) => ({id: 'c', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: c}}]}))
  const row = {id: 'lf1', traceId: 't1', type: 'GENERATION', startTime: '2026-11-02T10:00:00Z', endTime: '2026-11-02T10:00:01Z', input: [{role: 'user', content: 'hi'}], output: chunks, metadata: {tenant_id: 'ta'}, sessionId: 'A1'}
  const path = join(mkdtempSync(join(tmpdir(), 'ct-lf-')), 'lf.jsonl')
  writeFileSync(path, JSON.stringify(row) + '\n')
  const run = runAdapter('langfuse', [path])
  expect(run.produced).toHaveLength(1)
  expect(decodeResponse(run.produced[0]!.record.response).text).toBe(`Acct ${m}`)
})
