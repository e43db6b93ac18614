import {expect, it, vi} from 'vitest'
import {UnconventionalSet} from '../../src/extract/extract.js'
import {encodeParseSpec} from '../../src/extract/parse-spec.js'
import {quickUnit} from '../../src/ingest/quick-unit.js'

// A native extractor that fails or answers wrongly shaped (a bug in it) costs speed, never an
// answer: the unit is read by the TypeScript extractor, exactly as without the addon.

const state = vi.hoisted(() => ({mode: 'none' as 'none' | 'throw' | 'short' | 'records' | 'misshaped' | 'stray'}))
vi.mock('../../src/ingest/native-quick.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/ingest/native-quick.js')>()
  return {
    ...real,
    nativeQuickExtractor: () => {
      if (state.mode === 'none') return null
      return {
        lines: () => {
          if (state.mode === 'throw') throw new Error('native extractor failed')
          if (state.mode === 'misshaped' || state.mode === 'stray') {
            // Both records claimed with their columns, and a marked record that is wrong: a hit
            // on a marker the set does not have ('misshaped'), or one placed past the records ('stray').
            const m = {at: state.mode === 'stray' ? 7 : 0, requestId: 'a', tenantId: 't', sessionId: 's', tokens: [], tokenPositions: [], hits: [5], hitPositions: [4], tokenEcho: [], tokenWhole: [], hitEcho: [false]}
            const kinds = new Uint8Array([real.NATIVE_RECORD, real.NATIVE_BLANK, real.NATIVE_RECORD, real.NATIVE_LEFT])
            return {kinds, pairs: new Uint32Array(4), flags: new Uint8Array(2), ts: new Float64Array(2), marked: [m]}
          }
          // 'short': one line answered where the unit has four; 'records': every line claimed as a record, none handed over
          const kinds = state.mode === 'short' ? new Uint8Array([real.NATIVE_BLANK]) : new Uint8Array(4).fill(real.NATIVE_RECORD)
          return {kinds, pairs: new Uint32Array(0), flags: new Uint8Array(0), ts: new Float64Array(0)}
        },
      }
    },
  }
})

const lines = [
  '{"ts":"2026-11-02T06:00:00Z","request_id":"a","tenant_id":"t","session_id":"s","request":"hi","response":"see CANARY-0123456789abcdef"}',
  '',
  '{"ts":"2026-11-02T06:00:01Z","request_id":"b","tenant_id":"t","session_id":"s","request":"hi","response":"nothing"}',
  'not json',
]
const task = () => ({seq: 0, bytes: new Uint8Array(Buffer.from(lines.join('\n'))), offset: 0, firstLineNo: 1, spec: encodeParseSpec({format: 'native'}), file: '0', maxLineBytes: 1 << 20, quickSource: 's'})
const set = new UnconventionalSet([])

function run(mode: typeof state.mode) {
  state.mode = mode
  const {input: _input, ...result} = quickUnit(task(), set)
  return result
}

it.each(['throw', 'short', 'records', 'misshaped', 'stray'] as const)('a native extractor that fails (%s) leaves the unit to TypeScript, with the same result', (mode) => {
  const plain = run('none')
  expect(plain.lines).toBe(4)
  expect(plain.bad).toBe(1)
  expect(plain.flags.length).toBe(2)
  expect(plain.marked.map((m) => m.request_id)).toEqual(['a'])
  expect(run(mode)).toEqual(plain)
})
