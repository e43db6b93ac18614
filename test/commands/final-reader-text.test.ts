import {beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {namesCommand, withoutCommands} from '../../src/notify/reader-text.js'
import {makeCase} from '../helpers/case-builder.js'
import {buildNotifyCase} from '../helpers/notify-case.js'
import {run} from '../helpers/commands.js'

// A document finalised with open items accepted (--final --accept-open-items) goes to a regulator,
// a controller or the data subjects: it showed each open item as the DPO's worksheet line, "to be
// completed: ... (Art. 34(2); crosstalk incident set --dpo-name ...)". A final document says each as
// what is not yet known and that it will follow (Art. 33(4)), in its language, with no command,
// flag or field name; a draft keeps its worksheet lines.

const NOW = '2026-10-25T12:00:00+01:00'
const BY = 'Jane Roe, DPO'
const COMMAND = /\bcrosstalk (?:[a-z]+)\b|(?:^|[\s(`"])--[a-z]/m

interface Doc {
  draft: boolean
  open_items: Array<{section: string; item: string; record_with: string | null; text?: string}>
  form_fields?: Array<{value: string; open: boolean}>
}

describe('a final document states its accepted open items for its reader, never as commands', () => {
  let controllerDb: string
  let processorDb: string
  beforeAll(async () => {
    ;({db: controllerDb} = await buildNotifyCase())
    expect((await run(['incident', 'open', '--db', controllerDb, '--title', 'KV-cache leak', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'controller'])).code).toBe(0)
    ;({db: processorDb} = await buildNotifyCase())
    expect((await run(['incident', 'open', '--db', processorDb, '--title', 'KV-cache leak', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'processor'])).code).toBe(0)
  })

  const documents = (): Array<{name: string; db: string; args: string[]; fr: boolean}> => [
    {name: 'article33', db: controllerDb, args: ['report', 'article33', '--now', NOW], fr: false},
    {name: 'article33 cnil', db: controllerDb, args: ['report', 'article33', '--now', NOW, '--authority', 'cnil'], fr: true},
    {name: 'article34', db: controllerDb, args: ['report', 'article34', '--lang', 'en'], fr: false},
    {name: 'article34 fr', db: controllerDb, args: ['report', 'article34', '--lang', 'fr'], fr: true},
    {name: 'processor-notice', db: processorDb, args: ['report', 'processor-notice', '--tenant', 'acme'], fr: false},
    {name: 'processor-notice fr', db: processorDb, args: ['report', 'processor-notice', '--tenant', 'acme', '--lang', 'fr'], fr: true},
    {name: 'register', db: controllerDb, args: ['report', 'register'], fr: false},
    {name: 'register fr', db: controllerDb, args: ['report', 'register', '--lang', 'fr'], fr: true},
  ]

  it('the draft keeps its worksheet lines: to be completed, with the command that records each', async () => {
    for (const d of documents()) {
      const md = await run([...d.args, '--db', d.db])
      expect(md.code, `${d.name}: ${md.stderr}`).toBe(0)
      expect(md.stdout, d.name).toMatch(d.fr ? /à compléter : / : /to be completed: /)
      expect(md.stdout, d.name).toMatch(COMMAND)
      const json = JSON.parse((await run([...d.args, '--db', d.db, '--format', 'json'])).stdout) as Doc
      for (const o of json.open_items) expect(o.text, d.name).toContain(o.record_with ?? o.item)
    }
  })

  it('final with open items accepted: every open item is said as not yet known and to follow, with no command, flag or "to be completed" (Markdown and JSON)', async () => {
    for (const d of documents()) {
      const md = await run([...d.args, '--db', d.db, '--final', '--accept-open-items', BY])
      expect(md.code, `${d.name}: ${md.stderr}`).toBe(0)
      const lines = md.stdout.split('\n')
      const commands = lines.filter((l) => COMMAND.test(l))
      expect(commands, d.name).toEqual([])
      expect(lines.filter((l) => (d.fr ? /à compléter :/ : /to be completed:/i).test(l)), d.name).toEqual([])
      const json = JSON.parse((await run([...d.args, '--db', d.db, '--final', '--accept-open-items', BY, '--format', 'json'])).stdout) as Doc
      expect(json.draft, d.name).toBe(false)
      expect(json.open_items.length, d.name).toBeGreaterThan(0)
      for (const o of json.open_items) {
        // The machine's key is kept (the contract never removes a field); the line the document shows names no command.
        expect(o.text, d.name).toMatch(d.fr ? /^pas encore connu : |^Pas encore connu : / : /^not yet known: |^Not yet known: /)
        expect(o.text, d.name).toMatch(d.fr ? /(transmise|informerons)/ : /(will be provided|will tell you)/)
        expect(namesCommand(o.text!), `${d.name}: ${o.text}`).toBe(false)
      }
      // The Markdown shows each of them (the letter in the sections it answers; the others in their lists).
      const plain = md.stdout.replace(/\\/g, '')
      for (const o of json.open_items) if (!d.name.startsWith('article34') || (o.section !== 'language' && o.section !== 'decision' && o.section !== 'recipients')) expect(plain, `${d.name}: ${o.text}`).toContain(o.text!.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'))
      for (const f of json.form_fields ?? []) expect(namesCommand(f.value) || /to be completed:|à compléter :/.test(f.value), `${d.name}: ${f.value}`).toBe(false)
    }
  })
})

describe('a final Article 33 notification of a case with no canary registry', () => {
  it('says the flows are not known without naming the commands that would record them (the draft names them)', async () => {
    const c = makeCase()
    const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'
    await c.addFile([
      {request_id: 'a', ts_ms: Date.parse('2026-10-22T10:00:00Z'), tenant_id: 'acme', session_id: 's1', request_text: `my secret ${words}`, response_text: 'ok'},
      {request_id: 'b', ts_ms: Date.parse('2026-10-22T10:05:00Z'), tenant_id: 'globex', session_id: 's2', request_text: 'hi', response_text: `here ${words} CANARY-abcdef012345`},
    ])
    scanCase(c.db, {now: new Date('2026-10-23T09:00:00Z')})
    c.close()
    expect((await run(['incident', 'open', '--db', c.path, '--title', 'KV', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'controller'])).code).toBe(0)
    const draft = await run(['report', 'article33', '--db', c.path, '--now', NOW])
    expect(draft.stdout).toMatch(/Flows by verbatim text only: .*crosstalk ingest canaries FILE/)
    const final = await run(['report', 'article33', '--db', c.path, '--now', NOW, '--final', '--accept-open-items', BY])
    expect(final.code, final.stderr).toBe(0)
    expect(final.stdout).toMatch(/Flows by verbatim text only: whose data the marker-shaped tokens found in answers carry, and who received it, is not known \(the case holds no canary registry\)\./)
    expect(final.stdout.split('\n').filter((l) => COMMAND.test(l))).toEqual([])
  }, 60_000)
})

describe('withoutCommands', () => {
  it('leaves out a parenthesis or clause that names a command or flag, keeping the rest as written', () => {
    expect(withoutCommands('reproduction of the fault on a test system (crosstalk replay) to confirm the root cause')).toBe('reproduction of the fault on a test system to confirm the root cause')
    expect(withoutCommands('content of the message to data subjects (draft: crosstalk report article34)')).toBe('content of the message to data subjects (draft)')
    expect(withoutCommands('detection is incomplete (2 log files not scanned; the detection note and crosstalk status say what is missing): what was found counts')).toBe('detection is incomplete (2 log files not scanned): what was found counts')
    expect(withoutCommands('high: not bounded; give --pool-tokens to bound it by exposure.')).toBe('high: not bounded')
    expect(withoutCommands('Borne haute : non déterminée (taille du pool KV inconnue, --pool-tokens).')).toBe('Borne haute : non déterminée (taille du pool KV inconnue).')
    expect(withoutCommands("crosstalk's built-in testbed (version 3)")).toBe("crosstalk's built-in testbed (version 3)")
    expect(withoutCommands('a text with no command (Art. 33(3)(d))')).toBe('a text with no command (Art. 33(3)(d))')
  })
})
