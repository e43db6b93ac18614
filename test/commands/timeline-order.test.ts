import {beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase} from '../helpers/case-builder.js'
import {run, runJson} from '../helpers/commands.js'

// Nobody becomes aware of, detects or starts investigating a breach before it began: a record
// saying so holds a wrong time (most likely the start). It is kept as recorded, but no draft
// states both as established: each shows the pair as an open item, and incident set, incident
// show and status warn. A breach that ends before it starts is refused outright.

const MARK = 'CANARY-c1c1c1c1c1c1c1c1c1c1'
const AWARE = '2026-10-23T08:00:00.000Z'
const DETECTED = '2026-10-23T07:00:00.000Z'
const START = '2026-10-23T09:00:00.000Z'

async function controllerCase(): Promise<string> {
  const c = makeCase()
  await c.addCanaries([[MARK, 'ta', 'ta-s1']])
  await c.addFile([
    {request_id: 'req-1', ts_ms: Date.parse('2026-10-23T09:10:00.000Z'), tenant_id: 'ta', session_id: 'ta-s1', decode_node: 'node-1', prompt_tokens: 100, request_text: `${MARK} my notes`, response_text: 'noted'},
    {request_id: 'req-2', ts_ms: Date.parse('2026-10-23T09:20:00.000Z'), tenant_id: 'ta', session_id: 'ta-s2', decode_node: 'node-1', prompt_tokens: 100, request_text: 'prompt', response_text: `Sure! ${MARK}`},
  ])
  scanCase(c.db, {now: new Date('2026-10-23T09:30:00.000Z')})
  c.close()
  const open = await run(['incident', 'open', '--db', c.path, '--title', 'KV leak', '--aware-at', AWARE, '--role', 'controller', '--detected-at', DETECTED])
  expect(open.code, open.stderr).toBe(0)
  return c.path
}

interface Draft {
  timeline: {aware_at: string | null; breach_started_at: string | null; detected_at: string | null}
  form_fields: Array<{id: string; value: string; open: boolean}>
  open_items: Array<{item: string; ref: string; record_with: string | null}>
}

describe('an awareness or detection before the recorded breach start', () => {
  let db: string
  let set: Awaited<ReturnType<typeof run>>
  beforeAll(async () => {
    db = await controllerCase()
    set = await run(['incident', 'set', '--db', db, '--breach-started-at', START])
  }, 60_000)

  it('is recorded as given, and incident set, incident show and status warn on stderr', async () => {
    expect(set.code, set.stderr).toBe(0)
    const awareness = new RegExp(`warning: the recorded awareness ${AWARE} precedes the recorded start of the breach ${START}: one of them is wrong \\(check both\\)`)
    const detection = new RegExp(`warning: the recorded detection \\(first alert\\) ${DETECTED} precedes the recorded start of the breach ${START}`)
    expect(set.stderr).toMatch(awareness)
    expect(set.stderr).toMatch(detection)
    for (const args of [['incident', 'show'], ['incident', 'show', '--json'], ['status']]) {
      const r = await run([...args, '--db', db])
      expect(r.code, args.join(' ')).toBe(0)
      expect(r.stderr, args.join(' ')).toMatch(awareness)
      expect(r.stderr, args.join(' ')).toMatch(detection)
      expect(r.stdout, args.join(' ')).not.toMatch(/warning:/)
    }
  })

  it('the Article 33 draft shows it as an open item and its form gives neither time as established', async () => {
    const d = await runJson<Draft>(['report', 'article33', '--db', db, '--format', 'json', '--lang', 'en', '--now', '2026-10-23T10:00:00Z'])
    const items = d.open_items.map((o) => o.item)
    expect(items).toContain(`the recorded awareness (${AWARE}) precedes the recorded start of the breach (${START}): check both; neither is stated as established until they agree`)
    expect(items).toContain(`the recorded detection (first alert) (${DETECTED}) precedes the recorded start of the breach (${START}): check both; neither is stated as established until they agree`)
    // Form rows 46 (start), 48 (awareness) and the detection comment: open, with the item beside the recorded value.
    for (const id of ['46', '48']) {
      const f = d.form_fields.find((x) => x.id === id)
      expect(f, id).toBeDefined()
      expect(f!.open, id).toBe(true)
      expect(f!.value, id).toMatch(/precedes the recorded start of the breach/)
    }
    const md = (await run(['report', 'article33', '--db', db, '--lang', 'en', '--now', '2026-10-23T10:00:00Z'])).stdout
    const row = (label: string) => md.split('\n').find((l) => l.startsWith(`| ${label} |`)) ?? ''
    expect(row('Breach start')).toMatch(/precedes the recorded start of the breach/)
    expect(row('Detection (first alert)')).toMatch(/precedes the recorded start of the breach/)
    for (const line of md.split('\n').filter((l) => l.startsWith('| Became aware |'))) expect(line).toMatch(/precedes the recorded start of the breach/)
  })

  it('the Article 34 letter does not tell people the recorded start, and says what to check', async () => {
    const d = await runJson<{when: string | null; open_items: Array<{item: string}>}>(['report', 'article34', '--db', db, '--format', 'json', '--lang', 'en'])
    expect(d.when ?? '').not.toContain('09:00')
    expect(d.open_items.map((o) => o.item)).toEqual(expect.arrayContaining([expect.stringMatching(/^the recorded awareness \(2026-10-23T08:00:00.000Z\) precedes the recorded start of the breach/)]))
  })

  it('a start put right clears every warning and item; an end before the start is refused (exit 1, one line)', async () => {
    const fixed = await run(['incident', 'set', '--db', db, '--breach-started-at', '2026-10-22T09:00:00Z'])
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(fixed.stderr).not.toMatch(/precedes the recorded start/)
    expect((await run(['status', '--db', db])).stderr).not.toMatch(/precedes the recorded start/)
    const d = await runJson<Draft>(['report', 'article33', '--db', db, '--format', 'json', '--lang', 'en', '--now', '2026-10-23T10:00:00Z'])
    expect(d.open_items.some((o) => /precedes the recorded start/.test(o.item))).toBe(false)
    const end = await run(['incident', 'set', '--db', db, '--breach-ended-at', '2026-10-21T00:00:00Z'])
    expect(end.code).toBe(1)
    expect(end.stderr.trim().split('\n')).toHaveLength(1)
    expect(end.stderr).toMatch(/incident set: --breach-ended-at 2026-10-21T00:00:00.000Z is before --breach-started-at 2026-10-22T09:00:00.000Z/)
  })
})

// The first alert is the first sign of the breach: an awareness or an investigation before it is
// as impossible as one before the breach began (QA time #13), and is shown the same way.
describe('an awareness or investigation before the recorded detection (first alert)', () => {
  const DETECTED_LATE = '2026-10-23T12:00:00.000Z'
  const INVESTIGATION = '2026-10-23T11:00:00.000Z'
  let db: string
  let set: Awaited<ReturnType<typeof run>>
  beforeAll(async () => {
    db = await controllerCase()
    set = await run(['incident', 'set', '--db', db, '--detected-at', DETECTED_LATE, '--investigation-started-at', INVESTIGATION])
  }, 60_000)

  it('is recorded as given, and incident set, incident show and status warn on stderr', async () => {
    expect(set.code, set.stderr).toBe(0)
    const awareness = new RegExp(`warning: the recorded awareness ${AWARE} precedes the recorded detection \\(first alert\\) ${DETECTED_LATE}: one of them is wrong \\(check both\\)`)
    const investigation = new RegExp(`warning: the recorded start of the investigation ${INVESTIGATION} precedes the recorded detection \\(first alert\\) ${DETECTED_LATE}: one of them is wrong`)
    for (const r of [set, await run(['incident', 'show', '--db', db]), await run(['status', '--db', db])]) {
      expect(r.stderr).toMatch(awareness)
      expect(r.stderr).toMatch(investigation)
    }
  })

  it('the Article 33 draft and the register show each as an open item, never the times alone', async () => {
    const d = await runJson<Draft>(['report', 'article33', '--db', db, '--format', 'json', '--lang', 'en', '--now', '2026-10-23T13:00:00Z'])
    const items = d.open_items.map((o) => o.item)
    expect(items).toContain(`the recorded awareness (${AWARE}) precedes the recorded detection (first alert) (${DETECTED_LATE}): check both; neither is stated as established until they agree`)
    expect(items).toContain(`the recorded start of the investigation (${INVESTIGATION}) precedes the recorded detection (first alert) (${DETECTED_LATE}): check both; neither is stated as established until they agree`)
    const aware = d.form_fields.find((x) => x.id === '48')
    expect(aware?.open).toBe(true)
    expect(aware?.value).toMatch(/precedes the recorded detection/)
    const md = (await run(['report', 'article33', '--db', db, '--lang', 'en', '--now', '2026-10-23T13:00:00Z'])).stdout
    const row = (label: string) => md.split('\n').find((l) => l.startsWith(`| ${label} |`)) ?? ''
    expect(row('Detection (first alert)')).toMatch(/precedes the recorded detection/)
    expect(row('Investigation started')).toMatch(/precedes the recorded detection/)
    // The breach start is not in question here: the letter's window is not touched by these.
    expect(row('Breach start')).not.toMatch(/precedes/)
    const reg = (await run(['report', 'register', '--db', db, '--lang', 'en'])).stdout
    expect(reg).toMatch(/precedes the recorded detection \(first alert\)/)
  })

  it('a detection put right clears them', async () => {
    const fixed = await run(['incident', 'set', '--db', db, '--detected-at', '2026-10-23T07:30:00Z'])
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(fixed.stderr).not.toMatch(/precedes the recorded detection/)
  })
})
