import {expect, it, vi} from 'vitest'
import {UnconventionalSet} from '../../src/extract/extract.js'
import {encodeParseSpec} from '../../src/extract/parse-spec.js'
import {quickUnit} from '../../src/ingest/quick-unit.js'

// A native extractor that fails (a bug in it) costs speed, never an answer: the unit is read by
// the TypeScript extractor, exactly as without the addon.

const state = vi.hoisted(() => ({broken: false}))
vi.mock('../../src/ingest/native-quick.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/ingest/native-quick.js')>()),
  nativeQuickExtractor: () =>
    state.broken
      ? {
          lines: () => {
            throw new Error('native extractor failed')
          },
        }
      : null,
}))

it('a native extractor that throws leaves the unit to TypeScript, with the same result', () => {
  const lines = [
    '{"ts":"2026-11-02T06:00:00Z","request_id":"a","tenant_id":"t","session_id":"s","request":"hi","response":"see CANARY-0123456789abcdef"}',
    '',
    '{"ts":"2026-11-02T06:00:01Z","request_id":"b","tenant_id":"t","session_id":"s","request":"hi","response":"nothing"}',
    'not json',
  ]
  const task = () => ({seq: 0, bytes: new Uint8Array(Buffer.from(lines.join('\n'))), offset: 0, firstLineNo: 1, spec: encodeParseSpec({format: 'native'}), file: '0', maxLineBytes: 1 << 20, quickSource: 's'})
  const set = new UnconventionalSet([])
  state.broken = false
  const {input: _a, ...plain} = quickUnit(task(), set)
  state.broken = true
  const {input: _b, ...fallen} = quickUnit(task(), set)
  expect(fallen).toEqual(plain)
  expect(fallen.lines).toBe(4)
  expect(fallen.bad).toBe(1)
  expect(fallen.marked.map((m) => m.request_id)).toEqual(['a'])
})
