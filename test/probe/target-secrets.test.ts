import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {replayFacts} from '../../src/notify/facts.js'
import {listReplayResults} from '../../src/replay/replay-store.js'
import {openCase} from '../../src/store/open-case.js'
import {shownTargetText} from '../../src/probe/target-guard.js'
import {run} from '../helpers/commands.js'
import {caseWithRecords} from '../helpers/replay-case.js'
import {chatAnswer, startScriptedServer, type Ask, type ScriptedServer} from '../helpers/scripted-server.js'

// QA: `--target 'http://host/?api-version=2024-02-01&api-key=...'` (Azure OpenAI's form; others
// take `?key=`, `?token=`) printed the key, stored it in the case's replay run and the audit log,
// and wrote it into the JUnit report: every place the target is shown. The requests must still
// carry the query as given; a parameter known to be plain (api-version) stays readable.

const MARKER = 'CANARY-0000aaaa0000aaaa'
const QUERY_KEY = 'Qk3yS3cretValue'
const ENV_KEY = 'EnvK3yS3cretValue'
const POOL = 1024
const WINDOW = 4096

let server: ScriptedServer | null = null
let dir: string | null = null
afterEach(async () => {
  await server?.close()
  server = null
  if (dir) rmSync(dir, {recursive: true, force: true})
  dir = null
})

const completion = (ask: Ask): boolean => ask.path.includes('completions')
const words = (ask: Ask): number => ask.prompt.split(/\s+/).length

describe('shownTargetText', () => {
  it.each([
    ['http://h:1/openai?api-version=2024-02-01&api-key=abcd1234', 'http://h:1/openai?api-version=2024-02-01&api-key=(withheld)'],
    ['http://h:1/?key=abcd1234&token=efgh5678', 'http://h:1/?key=(withheld)&token=(withheld)'],
    ['http://u:pw12@h:1/p?sk-abcd1234#access_token=zz', 'http://h:1/p?(withheld)'],
    ['http://h:1/p', 'http://h:1/p'],
    ['no url?key=abcd1234', 'no url?(withheld)'],
  ])('%s is shown as %s', (given, shown) => {
    expect(shownTargetText(given)).toBe(shown)
  })
})

describe('crosstalk replay: a key in --target\'s query or in CROSSTALK_API_KEY', () => {
  it('is sent, and never printed, stored in the case or the audit log, or put in a draft', async () => {
    server = await startScriptedServer((ask) => (completion(ask) ? {json: chatAnswer('answer none')} : undefined))
    const {db, path} = await caseWithRecords([{request_id: 'req-chat', prompt_tokens: 120, response_text: `leak ${MARKER}`}], [[MARKER, 'tenant-x', 'sx']])
    db.close()
    const target = `${server.url}/?api-version=2024-02-01&api-key=${QUERY_KEY}`
    for (const json of [true, false]) {
      const r = await run(['replay', '--db', path, '--target', target, '--from-sightings', '--trials', '1', '--advertised-tokens', '4096', '--timeout', '2', ...(json ? ['--json'] : [])], {env: {CROSSTALK_API_KEY: ENV_KEY}})
      expect(r.code).toBe(0)
      expect(r.stdout + r.stderr).not.toContain(QUERY_KEY)
      expect(r.stdout + r.stderr).not.toContain(ENV_KEY)
      expect(r.stdout + r.stderr).toContain('api-version=2024-02-01&api-key=(withheld)')
      expect(r.stderr).toMatch(/--target's query held a value that may be a secret/)
    }
    const again = openCase(path)
    const runs = again.prepare('SELECT target FROM replay_runs').all() as Array<{target: string}>
    const texts = JSON.stringify([runs, again.prepare('SELECT * FROM audit_log').all(), listReplayResults(again)])
    again.close()
    expect(texts).not.toContain(QUERY_KEY)
    expect(texts).not.toContain(ENV_KEY)
    expect(runs.map((r) => r.target)).toEqual([`${server.url}/?api-version=2024-02-01&api-key=(withheld)`, `${server.url}/?api-version=2024-02-01&api-key=(withheld)`])
    // The requests carried both, as given.
    const trigger = server.asks.find((a) => completion(a))!
    expect(trigger.url).toBe(`/v1/chat/completions?api-version=2024-02-01&api-key=${QUERY_KEY}`)
    expect(trigger.headers.authorization).toBe(`Bearer ${ENV_KEY}`)
  })

  it('a case that stored a target with its key (an earlier release) does not hand it on in a draft', () => {
    const stored = listReplayResultsLike(`http://10.0.0.5:8000/?api-version=2024-02-01&api-key=${QUERY_KEY}`)
    const facts = replayFacts(stored)
    expect(facts).not.toBeNull()
    expect(JSON.stringify(facts)).not.toContain(QUERY_KEY)
    expect(facts!.groups[0]!.target).toBe('http://10.0.0.5:8000/?api-version=2024-02-01&api-key=(withheld)')
  })
})

describe('crosstalk probe: a key in --target\'s query', () => {
  it('is sent, and never printed or written to the JUnit report', async () => {
    server = await startScriptedServer((ask) => {
      if (!completion(ask)) return undefined
      return words(ask) > POOL ? {status: 400, json: {object: 'error', message: 'too long', code: 400}} : {json: chatAnswer('answer none')}
    })
    dir = mkdtempSync(join(tmpdir(), 'crosstalk-target-secrets-'))
    const junit = join(dir, 'probe.xml')
    const target = `${server.url}/?key=${QUERY_KEY}`
    const r = await run(['probe', '--target', target, '--pool-tokens', String(POOL), '--advertised-tokens', String(WINDOW), '--timeout', '2', '--json', '--junit', junit], {env: {CROSSTALK_API_KEY: ENV_KEY}})
    const all = r.stdout + r.stderr + readFileSync(junit, 'utf8')
    expect(all).not.toContain(QUERY_KEY)
    expect(all).not.toContain(ENV_KEY)
    expect(JSON.parse(r.stdout).target).toBe(`${server.url}/?key=(withheld)`)
    expect(server.asks[0]!.url).toBe(`/v1/models?key=${QUERY_KEY}`)
    expect(server.asks[0]!.headers.authorization).toBe(`Bearer ${ENV_KEY}`)
  })

  it('a target that echoes the key it refused does not get it printed or reported', async () => {
    server = await startScriptedServer((ask) => ({status: 401, json: {error: {message: `Incorrect API key provided: ${String(ask.headers.authorization).replace('Bearer ', '')} (query ${ask.url})`}}}))
    dir = mkdtempSync(join(tmpdir(), 'crosstalk-target-secrets-'))
    const junit = join(dir, 'probe.xml')
    const r = await run(['probe', '--target', `${server.url}/?token=${QUERY_KEY}`, '--pool-tokens', String(POOL), '--advertised-tokens', String(WINDOW), '--timeout', '2', '--json', '--junit', junit], {env: {CROSSTALK_API_KEY: ENV_KEY}})
    const all = r.stdout + r.stderr + readFileSync(junit, 'utf8')
    expect(all).toMatch(/Incorrect API key provided: \(withheld\)/)
    expect(all).not.toContain(QUERY_KEY)
    expect(all).not.toContain(ENV_KEY)
  })

  it('a key the target echoes encoded (percent-encoded, lower-cased, base64, "user:key" base64) is withheld too', async () => {
    const key = 'sk-ab/cd+ef=='
    server = await startScriptedServer((ask) => {
      const sent = String(ask.headers.authorization).replace('Bearer ', '')
      const forms = [encodeURIComponent(sent), encodeURIComponent(sent).toLowerCase(), sent.toLowerCase(), Buffer.from(sent).toString('base64'), Buffer.from(`:${sent}`).toString('base64')]
      return {status: 401, json: {error: {message: `Incorrect API key provided: ${forms.join(' | ')}`}}}
    })
    dir = mkdtempSync(join(tmpdir(), 'crosstalk-target-secrets-'))
    const junit = join(dir, 'probe.xml')
    const r = await run(['probe', '--target', server.url, '--pool-tokens', String(POOL), '--advertised-tokens', String(WINDOW), '--timeout', '2', '--json', '--junit', junit], {env: {CROSSTALK_API_KEY: key}})
    const all = r.stdout + r.stderr + readFileSync(junit, 'utf8')
    expect(all).toMatch(/Incorrect API key provided: \(withheld\)/)
    for (const form of [encodeURIComponent(key), encodeURIComponent(key).toLowerCase(), key.toLowerCase(), Buffer.from(key).toString('base64'), Buffer.from(`:${key}`).toString('base64')]) {
      expect(all).not.toContain(form)
      expect(all).not.toContain(JSON.stringify(form).slice(1, -1))
    }
  })
})

/** One stored replay result as an earlier release could have stored it (the target as given). */
function listReplayResultsLike(target: string): Parameters<typeof replayFacts>[0] {
  return [
    {
      run_id: 1, request_id: 'req-chat', trials: 3, reproduced: 3, rejected: 0, hung: 0, errors: 0, verdict: 'confirmed', started_at: '2026-11-02T07:00:00.000Z', finished_at: '2026-11-02T07:01:00.000Z',
      target, model: 'm', target_kind: 'external', target_version: null, purpose: 'confirmation',
    } as unknown as Parameters<typeof replayFacts>[0][number],
  ]
}
