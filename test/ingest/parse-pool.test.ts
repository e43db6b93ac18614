import {describe, expect, it} from 'vitest'
import {INLINE_UNIT_BYTES, ParsePool} from '../../src/ingest/parse-pool.js'
import type {UnitTask} from '../../src/ingest/process-unit.js'
import {encodeParseSpec} from '../../src/extract/parse-spec.js'
import {UnconventionalSet} from '../../src/extract/extract.js'

// Parse workers run with a capped old space (it tunes V8's heap growth); a unit too large
// to parse safely under it goes to the main thread, and results still come back in order.

const line = (id: string, request: string): string =>
  JSON.stringify({ts: '2026-10-30T00:00:00Z', request_id: id, tenant_id: 't', session_id: 's', status: 200, request, response: 'ok'})

const task = (seq: number, text: string): UnitTask => ({
  seq, bytes: Buffer.from(`${text}\n`), offset: 0, firstLineNo: 1, spec: encodeParseSpec({format: 'native'}), file: '1', maxLineBytes: 1 << 30,
})

describe('ParsePool', () => {
  it('parses a unit over INLINE_UNIT_BYTES on the main thread, in order with the others', async () => {
    const pool = new ParsePool(1)
    try {
      expect(pool.threaded).toBe(true)
      const big = line('big', 'x'.repeat(INLINE_UNIT_BYTES + 1024))
      pool.submit(task(0, line('a', 'first')))
      const bigTask = task(1, big)
      pool.submit(bigTask)
      pool.submit(task(2, line('c', 'last')))
      const ids: string[] = []
      for (let i = 0; i < 3; i++) {
        const r = await pool.next()
        expect(r.seq).toBe(i)
        for (const item of r.items) if (item.k === 'r') ids.push(item.row.request_id)
        // Parsed here: the result hands back the very bytes submitted (a worker's are a transferred copy).
        if (i === 1) expect(r.input).toBe(bigTask.bytes)
        else expect(r.input).toBeUndefined() // small pooled buffers are copied to the worker, not handed back
      }
      expect(ids).toEqual(['a', 'big', 'c'])
    } finally {
      await pool.close()
    }
  }, 60_000)

  it('finds the registry\'s unconventional markers in the workers through the automaton built once and shared', async () => {
    const markers = Array.from({length: 500}, (_, i) => `HERON-SUMMIT-${String(i).padStart(4, '0')}`)
    const pool = new ParsePool(2, markers)
    try {
      const texts = ['answer HERON-SUMMIT-0042 and HERON-SUMMIT-0499', 'nothing here', 'HERON-SUMMIT-9999 is not one, HERON-SUMMIT-0000 is']
      texts.forEach((response, seq) => pool.submit({...task(seq, JSON.stringify({ts: '2026-10-30T00:00:00Z', request_id: `r${seq}`, tenant_id: 't', session_id: 's', status: 200, request: 'q', response}))}))
      const found: string[][] = []
      for (let i = 0; i < texts.length; i++) {
        const r = await pool.next()
        for (const item of r.items) if (item.k === 'r') found.push(item.unconventional.map((h) => `${h.token}@${h.position}`))
      }
      expect(found).toEqual([['HERON-SUMMIT-0042@7', 'HERON-SUMMIT-0499@29'], [], ['HERON-SUMMIT-0000@30']])
      // After the quick pass the workers drop the markers' strings and read hits from the texts: the same answers.
      pool.endQuickPass()
      texts.forEach((response, seq) => pool.submit({...task(10 + seq, JSON.stringify({ts: '2026-10-30T00:00:00Z', request_id: `s${seq}`, tenant_id: 't', session_id: 's', status: 200, request: 'q', response}))}))
      const after: string[][] = []
      for (let i = 0; i < texts.length; i++) {
        const r = await pool.next()
        for (const item of r.items) if (item.k === 'r') after.push(item.unconventional.map((h) => `${h.token}@${h.position}`))
      }
      expect(after).toEqual(found)
    } finally {
      await pool.close()
    }
  }, 60_000)

  it('starts its workers before the markers are known and reads every unit with the markers given later', async () => {
    // triage starts the workers while it reads the registry (ingest-logs.ts startedPool).
    const markers = Array.from({length: 500}, (_, i) => `HERON-SUMMIT-${String(i).padStart(4, '0')}`)
    const pool = new ParsePool(2, null)
    try {
      expect(pool.hasMarkers).toBe(false)
      expect(() => pool.submit(task(0, line('a', 'q')))).toThrow(/before useMarkers/)
      pool.useMarkers(new UnconventionalSet(markers))
      expect(() => pool.useMarkers(new UnconventionalSet([]))).toThrow(/already has its markers/)
      const texts = ['answer HERON-SUMMIT-0042', 'nothing here', 'HERON-SUMMIT-0000 is', 'and HERON-SUMMIT-0007']
      texts.forEach((response, seq) => pool.submit({...task(seq, JSON.stringify({ts: '2026-10-30T00:00:00Z', request_id: `r${seq}`, tenant_id: 't', session_id: 's', status: 200, request: 'q', response}))}))
      const found: string[][] = []
      for (let i = 0; i < texts.length; i++) {
        const r = await pool.next()
        for (const item of r.items) if (item.k === 'r') found.push(item.unconventional.map((h) => h.token))
      }
      expect(found).toEqual([['HERON-SUMMIT-0042'], [], ['HERON-SUMMIT-0000'], ['HERON-SUMMIT-0007']])
    } finally {
      await pool.close()
    }
  }, 60_000)

  it('rejects with the worker\'s cause in one line, no stack or machine path, the stack kept for --verbose (QA differential #3)', async () => {
    const pool = new ParsePool(1)
    try {
      // A spec no decoder reads: the worker's processUnit throws.
      pool.submit({...task(0, line('a', 'q')), spec: 'no such spec'})
      const error = await pool.next().then(() => null, (e: unknown) => e as Error)
      expect(error).toBeInstanceOf(Error)
      expect(error!.message).toMatch(/^parse worker failed: \w*Error: /)
      expect(error!.message).not.toMatch(/\n|file:|\bat /)
      expect(error!.stack).toContain('in the worker: ')
    } finally {
      await pool.close()
    }
  }, 60_000)
})
