import {afterEach, describe, expect, it} from 'vitest'
import {computeProvenance} from '../../src/detect/provenance.js'
import {helperActivity} from '../../src/detect/provenance/helper.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {listProvenance, listSightings} from '../../src/detect/list.js'
import {renderProvenance} from '../../src/cli/render-detect.js'
import {showRecord} from '../../src/case/show-record.js'
import {renderFindings} from '../../src/commands/show.js'
import {computeScope} from '../../src/scope/compute-scope.js'
import {loadScopeInputs} from '../../src/scope/scope-data.js'
import {FingerprintBuffer, GUARANTEE_WORDS, K, W, fingerprintText, kgramHashes, winnow} from '../../src/extract/winnow.js'
import {tokenizeWords} from '../../src/extract/words.js'
import {makeCase, rng, type TestCase} from '../helpers/case-builder.js'

const NOW = new Date('2026-11-03T00:00:00.000Z')

let tc: TestCase | undefined
afterEach(() => {
  tc?.close()
  tc = undefined
})

function vocabulary(rand: () => number, size: number): string[] {
  const words = new Set<string>()
  while (words.size < size) {
    let w = ''
    const len = 3 + Math.floor(rand() * 6)
    for (let i = 0; i < len; i++) w += String.fromCharCode(97 + Math.floor(rand() * 26))
    words.add(w)
  }
  return [...words]
}

function randomWords(rand: () => number, vocab: readonly string[], n: number): string[] {
  return Array.from({length: n}, () => vocab[Math.floor(rand() * vocab.length)]!)
}

describe('winnowing', () => {
  it('guarantees t = w + k - 1 <= 12', async () => {
    expect(GUARANTEE_WORDS).toBe(W + K - 1)
    expect(GUARANTEE_WORDS).toBeLessThanOrEqual(12)
  })

  it('normalises case and punctuation; a canary marker is a word; a token with no letter or digit is none', async () => {
    const a = tokenizeWords('Hello, World! CANARY-3F9A1C2B4D5E6F70 -- it\'s')
    const b = tokenizeWords('hello world canary3f9a1c2b4d5e6f70 its')
    expect(a.length).toBe(4)
    expect([...a.h1.subarray(0, 4)]).toEqual([...b.h1.subarray(0, 4)])
    expect([...a.h2.subarray(0, 4)]).toEqual([...b.h2.subarray(0, 4)])
  })

  it('the one-pass fingerprinting equals winnow(kgramHashes(tokenizeWords))', async () => {
    const rand = rng(3)
    const vocab = vocabulary(rand, 300)
    const texts = ['', 'one', 'a b c d', 'a b c d e', 'a b c d e f g h i j k l', 'Ünïcödé wörds, — дом 𝔘nicode 12 ok', randomWords(rand, vocab, 5000).join(' ')]
    for (let n = 1; n < 30; n++) texts.push(randomWords(rand, ['x', 'y', 'z'], n).join(' '))
    for (const text of texts) {
      const g = kgramHashes(tokenizeWords(text))
      const expected: number[] = []
      for (const p of winnow(g)) expected.push(g.h1[p]!, g.h2[p]!)
      const out = new FingerprintBuffer()
      const words = fingerprintText(text, out)
      expect(words).toBe(tokenizeWords(text).length)
      expect([...out.data.subarray(0, out.length)]).toEqual(expected)
    }
  })

  it('selects at least one fingerprint in every window', async () => {
    const rand = rng(7)
    const vocab = vocabulary(rand, 500)
    const g = kgramHashes(tokenizeWords(randomWords(rand, vocab, 400).join(' ')))
    const picked = winnow(g)
    for (let s = 0; s + W <= g.length; s++) expect(picked.some((p) => p >= s && p < s + W)).toBe(true)
  })
})

describe('provenance', () => {
  it('always finds an inserted 12-word verbatim overlap (property test)', async () => {
    tc = makeCase()
    const rand = rng(2026)
    const vocab = vocabulary(rand, 20000)
    const trials = 150
    const sources: string[][] = []
    const inserted: Array<{from: number; at: number}> = []
    await tc.addFile(
      Array.from({length: trials}, (_, i) => {
        const words = randomWords(rand, vocab, 40 + Math.floor(rand() * 300))
        sources.push(words)
        // Half the sources leak through their response, half through their prompt.
        return i % 2 === 0
          ? {request_id: `src-${i}`, tenant_id: `ts${i}`, session_id: `ss${i}`, request_text: words.join(' '), response_text: randomWords(rand, vocab, 30).join(' ')}
          : {request_id: `src-${i}`, tenant_id: `ts${i}`, session_id: `ss${i}`, request_text: randomWords(rand, vocab, 30).join(' '), response_text: words.join(' ')}
      }),
    )
    await tc.addFile(
      Array.from({length: trials}, (_, i) => {
        const src = sources[i]!
        const from = Math.floor(rand() * (src.length - 12 + 1))
        const leak = src.slice(from, from + 12)
        // Case and punctuation differ from the source: normalisation must absorb them.
        leak[0] = leak[0]!.toUpperCase()
        leak[5] = `${leak[5]},`
        const body = randomWords(rand, vocab, Math.floor(rand() * 200))
        const at = Math.floor(rand() * (body.length + 1))
        inserted.push({from, at})
        body.splice(at, 0, ...leak)
        return {request_id: `rcp-${i}`, tenant_id: `tr${i}`, session_id: `sr${i}`, request_text: randomWords(rand, vocab, 20).join(' '), response_text: body.join(' ')}
      }),
    )
    scanCase(tc.db, {now: NOW})
    const byRequest = new Map(listProvenance(tc.db).map((p) => [p.request_id, p]))
    const missed: string[] = []
    for (let i = 0; i < trials; i++) {
      const p = byRequest.get(`rcp-${i}`)
      if (!p || p.source_request_id !== `src-${i}` || p.overlap_words < 12) missed.push(`rcp-${i} ${JSON.stringify(inserted[i])} -> ${JSON.stringify(p)}`)
      else expect(p.matched).toBe(i % 2 === 0 ? 'prompt' : 'response')
    }
    expect(missed).toEqual([])
    // Sources are never attributed to later records.
    expect([...byRequest.keys()].filter((k) => k.startsWith('src-'))).toEqual([])
  })

  it('does not report an 11-word overlap, reports the hash but not the text', async () => {
    tc = makeCase()
    const rand = rng(11)
    const vocab = vocabulary(rand, 20000)
    const src = randomWords(rand, vocab, 60)
    await tc.addFile([
      {request_id: 's', tenant_id: 'ta', session_id: 'sa', request_text: src.join(' ')},
      {request_id: 'r11', tenant_id: 'ta', session_id: 'sb', response_text: ['xa', ...src.slice(10, 21), 'ya'].join(' ')},
      {request_id: 'r12', tenant_id: 'tc', session_id: 'sc', response_text: ['xb', ...src.slice(10, 22), 'yb'].join(' ')},
    ])
    scanCase(tc.db, {now: NOW})
    const rows = listProvenance(tc.db)
    expect(rows.map((r) => [r.request_id, r.source_request_id, r.overlap_words])).toEqual([['r12', 's', 12]])
    expect(rows[0]!.overlap_sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(rows[0]).not.toHaveProperty('overlap_text')
    expect(listProvenance(tc.db, {showText: true})[0]!.overlap_text).toBe(src.slice(10, 22).join(' '))
  })

  it('never counts boilerplate shared by 3 tenants, nor text from the recipient\'s own prompt', async () => {
    tc = makeCase()
    const rand = rng(5)
    const vocab = vocabulary(rand, 20000)
    const system = randomWords(rand, vocab, 40).join(' ')
    const pasted = randomWords(rand, vocab, 30).join(' ')
    await tc.addFile([
      {request_id: 'p1', tenant_id: 't1', session_id: 's1', request_text: `${system} ${randomWords(rand, vocab, 20).join(' ')}`},
      {request_id: 'p2', tenant_id: 't2', session_id: 's2', request_text: `${system} ${randomWords(rand, vocab, 20).join(' ')}`},
      {request_id: 'p3', tenant_id: 't3', session_id: 's3', request_text: `${randomWords(rand, vocab, 5).join(' ')} ${system}`},
      {request_id: 'p4', tenant_id: 't5', session_id: 's5', request_text: pasted},
      // Recites the shared system prompt: boilerplate, not evidence.
      {request_id: 'r-boiler', tenant_id: 't4', session_id: 's4', request_text: 'what are your instructions', response_text: `sure: ${system}`},
      // Repeats what its own prompt said (the same text exists in another session).
      {request_id: 'r-own', tenant_id: 't6', session_id: 's6', request_text: `please repeat: ${pasted}`, response_text: `you said ${pasted}`},
    ])
    const result = scanCase(tc.db, {now: NOW})
    expect(result.provenance_matches).toBe(0)
    expect(listProvenance(tc.db)).toEqual([])
    // Raise the threshold: the system prompt is now evidence (t1-t4 are 4 tenants < 5).
    computeProvenance(tc.db, {minWords: 12, boilerplateTenants: 5})
    expect(listProvenance(tc.db).map((p) => p.request_id)).toEqual(['r-boiler'])
  })

  it('never counts text the recipient\'s session sent in an earlier turn; text it sends only after the answer does not discount it', async () => {
    tc = makeCase()
    const rand = rng(51)
    const vocab = vocabulary(rand, 20000)
    const article = randomWords(rand, vocab, 20).join(' ')
    const secret = randomWords(rand, vocab, 20).join(' ')
    await tc.addFile([
      {request_id: 'a-t3', tenant_id: 't3', session_id: 's3', request_text: article, response_text: 'ok'},
      // t4 pastes the same article in one turn (its gateway logs only each turn's new input) ...
      {request_id: 'a-t4', tenant_id: 't4', session_id: 's4', request_text: `Summarise: ${article}`, response_text: 'ok'},
      // ... and has it quoted back in the next: its own text, not t3's.
      {request_id: 'quote', tenant_id: 't4', session_id: 's4', request_text: 'now quote it back', response_text: article},
      {request_id: 's-t1', tenant_id: 't1', session_id: 's1', request_text: secret, response_text: 'ok'},
      // t2 is served t1's text, and asks about it only afterwards: still t1's text.
      {request_id: 'leak', tenant_id: 't2', session_id: 's2', request_text: 'hi', response_text: secret},
      {request_id: 'asks', tenant_id: 't2', session_id: 's2', request_text: `Why did you tell me ${secret}?`, response_text: 'sorry'},
    ])
    scanCase(tc.db, {now: NOW})
    expect(listProvenance(tc.db).map((p) => [p.request_id, p.source_request_id, p.source_status])).toEqual([['leak', 's-t1', 'named']])
  })

  it('finds a leak whose words include a phrase of the recipient\'s own question (its own words do not split the run)', async () => {
    tc = makeCase()
    const text = 'Our client Hannelore Brueckner filed a complaint with the European Data Protection Board after her employer leaked her medical file to a recruiter'
    await tc.addFile([
      {request_id: 'source', tenant_id: 't1', session_id: 's1', request_text: text, response_text: 'ok'},
      {request_id: 'leak', tenant_id: 't2', session_id: 's2', request_text: 'What does the European Data Protection Board do?', response_text: text},
      // Its own words alone are no evidence, however long the run: the question holds all of it but 10 words.
      {request_id: 'own', tenant_id: 't4', session_id: 's4', request_text: 'Our client Hannelore Brueckner filed a complaint with the European Data Protection Board', response_text: text},
    ])
    scanCase(tc.db, {now: NOW})
    expect(listProvenance(tc.db).map((p) => [p.request_id, p.source_request_id, p.overlap_words])).toEqual([['leak', 'source', 23]])
  })

  it('boilerplate plus a few shared words is not evidence; boilerplate plus 12 shared words is', async () => {
    tc = makeCase()
    const rand = rng(17)
    const vocab = vocabulary(rand, 20000)
    const greeting = 'certainly here is a short overview of the points you asked about in your last message'
    const tail = randomWords(rand, vocab, 40)
    const greet = (id: string, tenant: string, words: string[]) => ({request_id: id, tenant_id: tenant, session_id: `s-${id}`, request_text: randomWords(rand, vocab, 20).join(' '), response_text: `${greeting} ${words.join(' ')}`})
    await tc.addFile([
      greet('g1', 't1', randomWords(rand, vocab, 30)),
      greet('g2', 't2', randomWords(rand, vocab, 30)),
      greet('g3', 't3', randomWords(rand, vocab, 30)),
      // The source: greeting, then its own answer.
      greet('src', 't4', tail),
      // Greeting + 1, + 4 words of src's answer (a 17- and 20-word verbatim run): not evidence.
      greet('r1', 't5', [tail[0]!, ...randomWords(rand, vocab, 30)]),
      greet('r4', 't6', [...tail.slice(0, 4), ...randomWords(rand, vocab, 30)]),
      // Greeting + 12 words of src's answer: a 28-word run, 12 of them not boilerplate.
      greet('r12', 't7', [...tail.slice(0, 12), ...randomWords(rand, vocab, 30)]),
    ])
    scanCase(tc.db, {now: NOW})
    expect(listProvenance(tc.db).map((p) => [p.request_id, p.source_request_id, p.overlap_words])).toEqual([['r12', 'src', 16 + 12]])
  })

  it('a prompt leaked to two other tenants is still evidence for both (prompts and responses count tenants apart)', async () => {
    tc = makeCase()
    const rand = rng(23)
    const vocab = vocabulary(rand, 20000)
    const secret = randomWords(rand, vocab, 60)
    await tc.addFile([
      {request_id: 'src', tenant_id: 'ta', session_id: 'sa', request_text: secret.join(' '), response_text: randomWords(rand, vocab, 30).join(' ')},
      {request_id: 'rb', tenant_id: 'tb', session_id: 'sb', request_text: 'hi', response_text: `${randomWords(rand, vocab, 5).join(' ')} ${secret.slice(0, 30).join(' ')}`},
      {request_id: 'rc', tenant_id: 'tc', session_id: 'sc', request_text: 'hi', response_text: `${secret.slice(10, 40).join(' ')} ${randomWords(rand, vocab, 5).join(' ')}`},
    ])
    scanCase(tc.db, {now: NOW})
    expect(listProvenance(tc.db).map((p) => [p.request_id, p.source_request_id, p.overlap_words])).toEqual([
      ['rb', 'src', 30],
      ['rc', 'src', 30],
    ])
  })

  it('finds text that differs only by Unicode normalization (é as U+00E9 in the prompt, e + U+0301 in the answer)', async () => {
    tc = makeCase()
    const rand = rng(57)
    const vocab = vocabulary(rand, 20000).map((w, i) => (i % 2 === 0 ? `${w}é` : `ö${w}`))
    const src = randomWords(rand, vocab, 40).join(' ')
    const nfd = src.normalize('NFD')
    expect(nfd).not.toBe(src)
    await tc.addFile([
      {request_id: 's', tenant_id: 'ta', session_id: 'sa', request_text: src},
      {request_id: 'r', tenant_id: 'tb', session_id: 'sb', response_text: `voilà ${nfd} fin`},
    ])
    scanCase(tc.db, {now: NOW})
    const rows = listProvenance(tc.db, {showText: true})
    expect(rows.map((r) => [r.request_id, r.source_request_id, r.overlap_words])).toEqual([['r', 's', 40]])
    // The overlap is shown (and hashed) in NFC, whichever form the answer held.
    expect(rows[0]!.overlap_text).toBe(src.normalize('NFC').toLowerCase())
  })

  it('finds a source in flight (its prompt logged after the response, as its answer ended later) and says its order is unknown', async () => {
    tc = makeCase()
    const rand = rng(61)
    const vocab = vocabulary(rand, 20000)
    const secret = randomWords(rand, vocab, 40)
    const other = randomWords(rand, vocab, 40)
    const at = Date.parse('2026-11-02T10:00:00.000Z')
    await tc.addFile([
      {request_id: 'early', tenant_id: 'tc', session_id: 'sc', request_text: other.join(' '), ts_ms: at - 5000},
      // The recipient's answer returned at `at`; the source's request, prefilled before, returned 20 s later.
      {request_id: 'rcp', tenant_id: 'ta', session_id: 'sa', request_text: 'hello', response_text: `so ${secret.slice(0, 30).join(' ')} ok`, ts_ms: at},
      {request_id: 'src', tenant_id: 'tb', session_id: 'sb', request_text: secret.join(' '), response_text: 'done', ts_ms: at + 20_000},
      // A later response is never a source: its text did not exist yet.
      {request_id: 'rcp2', tenant_id: 'td', session_id: 'sd', request_text: 'hi', response_text: `${other.slice(0, 20).join(' ')}`, ts_ms: at + 30_000},
      {request_id: 'late-answer', tenant_id: 'te', session_id: 'se', request_text: 'x', response_text: `${secret.slice(5, 25).join(' ')} and more`, ts_ms: at + 40_000},
    ])
    scanCase(tc.db, {now: NOW})
    expect(listProvenance(tc.db).map((p) => [p.request_id, p.source_request_id, p.source_tenant, p.overlap_words, p.source_order])).toEqual([
      ['rcp', 'src', 'tb', 30, 'unknown'],
      ['rcp2', 'early', 'tc', 20, 'earlier'],
      // Its source is the prompt, logged before it (the recipient rcp, a copy, is never one).
      ['late-answer', 'src', 'tb', 20, 'earlier'],
    ])
    const shown = renderProvenance(listProvenance(tc.db))
    expect(shown).toContain('prompt*')
    expect(shown).toContain('1 source is a prompt logged after the response')
  })

  it('says the source is ambiguous, naming the count of tenants, when two tenants\' prompts hold the same text; scope counts no one of them as exposed', async () => {
    tc = makeCase()
    const rand = rng(71)
    const vocab = vocabulary(rand, 20000)
    const article = randomWords(rand, vocab, 60)
    await tc.addFile([
      {request_id: 'pa', tenant_id: 'ta', session_id: 'sa', request_text: `summarise: ${article.join(' ')}`},
      {request_id: 'pb', tenant_id: 'tb', session_id: 'sb', request_text: `please read ${article.join(' ')}`},
      {request_id: 'r', tenant_id: 'tr', session_id: 'sr', request_text: 'hello', response_text: `here ${article.slice(0, 40).join(' ')} end`},
    ])
    scanCase(tc.db, {now: NOW})
    const rows = listProvenance(tc.db)
    expect(rows.map((p) => [p.request_id, p.overlap_words, p.source_status, p.source_tenants])).toEqual([['r', 40, 'ambiguous', 2]])
    const shown = renderProvenance(rows)
    expect(shown).toContain('ambiguous: 2 tenants')
    expect(shown).not.toMatch(/\bta\b/)
    // `show` of the recipient says the same: no one of the two is named as the source.
    const view = showRecord(tc.db, 'r', undefined, {showText: false, showMarkers: false})
    expect(view.findings.provenance).toMatchObject({source_status: 'ambiguous', source_tenants: 2, overlap_words: 40})
    const line = renderFindings(view.findings, {markers: false}).find((l) => l.includes('provenance'))!
    expect(line).toContain('the texts of 2 tenants hold alike: no one source can be named')
    expect(line).not.toMatch(/repeats 40 words of the prompt of/)
    const exposure = computeScope(loadScopeInputs(tc.db)).exposure
    expect(exposure).toMatchObject({responses: 1, by_text_only: 1, source_tenants: 0, recipient_tenants: 1, flows: [], source_not_named: 1})
    // Someone's data reached r, and no source is named: at least one data subject, no named session.
    const subjects = computeScope(loadScopeInputs(tc.db)).data_subjects
    expect(subjects.low).toBe(1)
    expect(subjects.evidence).toMatchObject({provenance_source_sessions: 0, provenance_source_not_named_responses: 1})
    expect(subjects.method).toContain('One response repeats another session\'s text whose source cannot be named')
    expect(subjects.method).toContain('it counts as one session, since someone\'s data reached it')
  })

  it('a response whose source is not named adds no data subject beside a named source (it may be that one): the low bound is the named sessions', async () => {
    tc = makeCase()
    const rand = rng(79)
    const vocab = vocabulary(rand, 20000)
    const article = randomWords(rand, vocab, 60)
    const secret = randomWords(rand, vocab, 50)
    await tc.addFile([
      {request_id: 'pa', tenant_id: 'ta', session_id: 'sa', request_text: `summarise: ${article.join(' ')}`},
      {request_id: 'pb', tenant_id: 'tb', session_id: 'sb', request_text: `please read ${article.join(' ')}`},
      {request_id: 'pc', tenant_id: 'tc', session_id: 'sc', request_text: `my notes ${secret.join(' ')}`},
      {request_id: 'r1', tenant_id: 'tr', session_id: 'sr', request_text: 'hello', response_text: `here ${article.slice(0, 40).join(' ')} end`},
      {request_id: 'r2', tenant_id: 'tr', session_id: 'sr2', request_text: 'hi', response_text: `so ${secret.slice(0, 40).join(' ')} ok`},
    ])
    scanCase(tc.db, {now: NOW})
    expect(listProvenance(tc.db).map((p) => [p.request_id, p.source_status])).toEqual([['r1', 'ambiguous'], ['r2', 'named']])
    const scope = computeScope(loadScopeInputs(tc.db))
    expect(scope.exposure!.sessions).toBe(1)
    expect(scope.data_subjects.low).toBe(1)
    expect(scope.data_subjects.evidence).toMatchObject({provenance_source_sessions: 1, provenance_source_not_named_responses: 1})
    expect(scope.data_subjects.method).toContain('it adds none, since it may hold data of sessions already counted')
  })

  it('names no source from an answer whose own prompt was not logged (it may be a copy itself): the source is unknown', async () => {
    tc = makeCase()
    const rand = rng(73)
    const vocab = vocabulary(rand, 20000)
    const secret = randomWords(rand, vocab, 50)
    await tc.addFile([
      // The true source's prompt was not logged; an earlier answer of another tenant already held the text.
      {request_id: 'echo', tenant_id: 'tx', session_id: 'sx', response_text: `well ${secret.join(' ')} so`},
      {request_id: 'r', tenant_id: 'ty', session_id: 'sy', request_text: 'hi', response_text: `ok ${secret.slice(0, 35).join(' ')} bye`},
      // An answer whose prompt was logged stays a source (a stale reference regenerating it).
      {request_id: 'orig', tenant_id: 'tz', session_id: 'sz', request_text: 'tell me', response_text: `${secret.slice(0, 10).join(' ')} ${randomWords(rand, vocab, 30).join(' ')}`},
    ])
    scanCase(tc.db, {now: NOW})
    const rows = listProvenance(tc.db)
    expect(rows.map((p) => [p.request_id, p.source_request_id, p.source_status])).toEqual([['r', 'echo', 'unknown']])
    expect(renderProvenance(rows)).toContain('source unknown')
    const view = showRecord(tc.db, 'r', undefined, {showText: false, showMarkers: false})
    expect(view.findings.provenance).toMatchObject({source_status: 'unknown', source_request_id: 'echo'})
    const line = renderFindings(view.findings, {markers: false}).find((l) => l.includes('provenance'))!
    expect(line).toContain('source unknown (seen in the response of echo (tx/sx')
    expect(line).not.toMatch(/repeats \d+ words of the response of echo/)
    const exposure = computeScope(loadScopeInputs(tc.db)).exposure
    expect(exposure).toMatchObject({responses: 1, source_tenants: 0, flows: [], source_not_named: 1})
  })

  it('a session id under two tenants is two sessions; equal timestamps keep record order', async () => {
    tc = makeCase()
    const rand = rng(41)
    const vocab = vocabulary(rand, 20000)
    const secret = randomWords(rand, vocab, 40)
    const own = randomWords(rand, vocab, 40)
    const at = Date.parse('2026-11-02T10:00:00.000Z')
    // Inserted out of tenant/session order, all at one instant: the source is the earlier record.
    await tc.addFile([
      {request_id: 'zz-own', tenant_id: 'tz', session_id: 'shared', request_text: own.join(' '), ts_ms: at},
      {request_id: 'src', tenant_id: 'tb', session_id: 'shared', request_text: secret.join(' '), ts_ms: at},
      {request_id: 'rcp', tenant_id: 'ta', session_id: 'shared', request_text: 'hi', response_text: `so ${secret.slice(0, 30).join(' ')} ok`, ts_ms: at},
      // The session's own earlier prompt repeated: not a leak.
      {request_id: 'zz-echo', tenant_id: 'tz', session_id: 'shared', request_text: 'again', response_text: own.slice(0, 30).join(' '), ts_ms: at},
    ])
    scanCase(tc.db, {now: NOW})
    expect(listProvenance(tc.db).map((p) => [p.request_id, p.source_request_id, p.source_tenant, p.source_session, p.overlap_words])).toEqual([
      ['rcp', 'src', 'tb', 'shared', 30],
    ])
  })

  it('prefers the longest overlap, then the same decode node, then the earliest original (a copy is never a source)', async () => {
    tc = makeCase()
    const rand = rng(9)
    const vocab = vocabulary(rand, 20000)
    const text = randomWords(rand, vocab, 50)
    // Two tenants only (source and recipient), so nothing here is boilerplate.
    await tc.addFile([
      {request_id: 'long', tenant_id: 'ta', session_id: 's0', request_text: text.join(' '), decode_node: 'd9'},
      {request_id: 'far', tenant_id: 'ta', session_id: 's1', request_text: text.slice(0, 40).join(' '), decode_node: 'd1'},
      {request_id: 'near', tenant_id: 'ta', session_id: 's2', request_text: text.slice(0, 40).join(' '), decode_node: 'd2'},
      {request_id: 'r1', tenant_id: 'td', session_id: 'sd', response_text: text.join(' '), decode_node: 'd1'},
      {request_id: 'r2', tenant_id: 'td', session_id: 'sd', response_text: text.slice(0, 30).join(' '), decode_node: 'd1'},
      {request_id: 'r3', tenant_id: 'td', session_id: 'se', response_text: text.slice(0, 30).join(' '), decode_node: 'd7'},
    ])
    scanCase(tc.db, {now: NOW})
    expect(listProvenance(tc.db).map((p) => [p.request_id, p.source_request_id, p.overlap_words])).toEqual([
      ['r1', 'long', 50],
      ['r2', 'far', 30],
      // r3's session differs from r1/r2 (same tenant). r1 and r2 are copies (contaminated answers),
      // never sources; of the originals with an equal 30-word run, none on r3's node: the earliest.
      ['r3', 'long', 30],
    ])
  })
})

describe('provenance through chained leaks', () => {
  // S's prompt leaks into A's answer (another tenant), and A's cached answer then leaks into B's.
  // B's text is as long a verbatim match for A's answer as for S's prompt, and A is more recent:
  // B's source is still S (the earliest original occurrence), and with B carrying S's canary
  // the sighting names S too. No phantom A -> B tenant flow.
  const MARKER = 'CANARY-5e5e5e5e5e5e5e5e5e5e'
  async function chain(withMarker: boolean): Promise<void> {
    tc = makeCase()
    const rand = rng(31)
    const vocab = vocabulary(rand, 20000)
    const secret = randomWords(rand, vocab, 40)
    const head = withMarker ? `${MARKER} ` : ''
    await tc.addCanaries([[MARKER, 'ts', 'sess-s']])
    await tc.addFile([
      {request_id: 'S', tenant_id: 'ts', session_id: 'sess-s', request_text: `${head}${secret.join(' ')}`, response_text: randomWords(rand, vocab, 20).join(' '), decode_node: 'd1'},
      {request_id: 'A', tenant_id: 'ta', session_id: 'sess-a', request_text: 'hello', response_text: `${randomWords(rand, vocab, 5).join(' ')} ${head}${secret.slice(0, 30).join(' ')}`, decode_node: 'd1'},
      {request_id: 'B', tenant_id: 'tb', session_id: 'sess-b', request_text: 'hi', response_text: `${randomWords(rand, vocab, 5).join(' ')} ${head}${secret.slice(0, 25).join(' ')} ${randomWords(rand, vocab, 4).join(' ')}`, decode_node: 'd1'},
    ])
    scanCase(tc.db, {now: NOW})
  }

  it('names the original source, not the contaminated answer it passed through (canary-less)', async () => {
    await chain(false)
    expect(listProvenance(tc!.db).map((p) => [p.request_id, p.source_request_id, p.source_tenant, p.matched])).toEqual([
      ['A', 'S', 'ts', 'prompt'],
      ['B', 'S', 'ts', 'prompt'],
    ])
  })

  it('agrees with the canary sighting on the same response', async () => {
    await chain(true)
    const sightings = listSightings(tc!.db).filter((s) => s.class === 'cross_tenant')
    expect(sightings.map((s) => [s.request_id, s.source_session])).toEqual([
      ['A', 'sess-s'],
      ['B', 'sess-s'],
    ])
    expect(listProvenance(tc!.db).map((p) => [p.request_id, p.source_session])).toEqual([
      ['A', 'sess-s'],
      ['B', 'sess-s'],
    ])
  })
})

describe('a copy known only by its marker', () => {
  it('is never a source: its own source is unknown, so text copied from it is attributed to no one', async () => {
    // A's answer carries S's canary (a cross_tenant sighting) but none of S's words, so nothing
    // attributes A's text; B then repeats A's answer. Without the sighting marking A's answer a
    // copy, B would read as a leak from tenant ta (a phantom A -> B flow).
    tc = makeCase()
    const rand = rng(53)
    const vocab = vocabulary(rand, 20000)
    const marker = 'CANARY-7a7a7a7a7a7a7a7a7a7a'
    const said = randomWords(rand, vocab, 30)
    await tc.addCanaries([[marker, 'ts', 'sess-s']])
    await tc.addFile([
      {request_id: 'S', tenant_id: 'ts', session_id: 'sess-s', request_text: `${marker} ${randomWords(rand, vocab, 40).join(' ')}`, decode_node: 'd1'},
      {request_id: 'A', tenant_id: 'ta', session_id: 'sess-a', request_text: 'hello', response_text: `${marker} ${said.join(' ')}`, decode_node: 'd1'},
      {request_id: 'B', tenant_id: 'tb', session_id: 'sess-b', request_text: 'hi', response_text: said.slice(0, 28).join(' '), decode_node: 'd1'},
    ])
    scanCase(tc.db, {now: NOW})
    expect(listSightings(tc.db).filter((x) => x.class === 'cross_tenant').map((x) => [x.request_id, x.source_session])).toEqual([['A', 'sess-s']])
    expect(listProvenance(tc.db).map((p) => [p.request_id, p.source_request_id])).toEqual([])
  })
})

describe('chains through the responses of three tenants', () => {
  it('stay evidence on one decode node; the same text said on several nodes is boilerplate', async () => {
    tc = makeCase()
    const rand = rng(77)
    const vocab = vocabulary(rand, 20000)
    const answer = randomWords(rand, vocab, 40)
    const greeting = randomWords(rand, vocab, 20)
    const filler = (n: number) => randomWords(rand, vocab, n).join(' ')
    await tc.addFile([
      // S's own answer, cached on d1, leaks to A (tenant ta), A's cached answer to B (tb), B's to C (tc):
      // the 30 words are in the responses of four tenants, all served by d1.
      {request_id: 'S', tenant_id: 'ts', session_id: 'ss', request_text: filler(10), response_text: answer.join(' '), decode_node: 'd1'},
      {request_id: 'A', tenant_id: 'ta', session_id: 'sa', request_text: filler(10), response_text: `${filler(4)} ${answer.slice(0, 35).join(' ')} ${filler(3)}`, decode_node: 'd1'},
      {request_id: 'B', tenant_id: 'tb', session_id: 'sb', request_text: filler(10), response_text: `${filler(4)} ${answer.slice(0, 30).join(' ')} ${filler(3)}`, decode_node: 'd1'},
      {request_id: 'C', tenant_id: 'tc', session_id: 'sc', request_text: filler(10), response_text: `${filler(4)} ${answer.slice(2, 28).join(' ')} ${filler(3)}`, decode_node: 'd1'},
      // The model greets three tenants the same way on three nodes: not evidence of anything.
      {request_id: 'G1', tenant_id: 'ts', session_id: 'g1', request_text: filler(10), response_text: `${greeting.join(' ')} ${filler(8)}`, decode_node: 'd1'},
      {request_id: 'G2', tenant_id: 'ta', session_id: 'g2', request_text: filler(10), response_text: `${greeting.join(' ')} ${filler(8)}`, decode_node: 'd2'},
      {request_id: 'G3', tenant_id: 'tb', session_id: 'g3', request_text: filler(10), response_text: `${greeting.join(' ')} ${filler(8)}`, decode_node: 'd3'},
    ])
    scanCase(tc.db, {now: NOW})
    expect(listProvenance(tc.db).map((p) => [p.request_id, p.source_request_id, p.matched, p.overlap_words])).toEqual([
      ['A', 'S', 'response', 35],
      ['B', 'S', 'response', 30],
      ['C', 'S', 'response', 26],
    ])
  })
})

/** A case of 120 records where every fifth response leaks a run of an earlier prompt (other tenants mostly). */
async function leakyCase(): Promise<TestCase> {
  const made = makeCase()
  const rand = rng(99)
  const vocab = vocabulary(rand, 5000)
  const system = randomWords(rand, vocab, 40).join(' ')
  const rows: Array<{request_id: string; tenant_id: string; session_id: string; request_text: string; response_text: string}> = []
  const prompts: string[] = []
  for (let i = 0; i < 120; i++) {
    const tenant = `t${i % 7}`
    const prompt = `${i % 3 === 0 ? system : ''} ${randomWords(rand, vocab, 60).join(' ')}`
    prompts.push(prompt)
    const leak = i > 10 && i % 5 === 0 ? prompts[Math.floor(rand() * (i - 1))]!.split(' ').slice(-30).join(' ') : ''
    rows.push({request_id: `r${i}`, tenant_id: tenant, session_id: `s${i % 11}`, request_text: prompt, response_text: `${randomWords(rand, vocab, 20).join(' ')} ${leak} ${i % 4 === 0 ? system : ''}`})
  }
  await made.addFile(rows)
  scanCase(made.db, {now: NOW, skipProvenance: true})
  return made
}

describe('provenance in passes', () => {
  it('gives the same matches, candidates and boilerplate whatever the number of passes over the hash space', async () => {
    tc = await leakyCase()
    const options = {minWords: 12, boilerplateTenants: 3}
    const one = computeProvenance(tc.db, options, {passes: 1, helper: false})
    const expected = listProvenance(tc.db)
    expect(expected.length).toBeGreaterThan(5)
    for (const passes of [2, 3, 7, 300]) {
      const many = computeProvenance(tc.db, options, {passes, helper: false})
      expect(many.passes).toBe(passes)
      expect({...many, passes: 1, timings_ms: null}).toEqual({...one, timings_ms: null})
      expect(listProvenance(tc.db)).toEqual(expected)
    }
    // A small budget splits the work on its own.
    expect(computeProvenance(tc.db, options, {indexBudgetBytes: 4096, helper: false}).passes).toBeGreaterThan(1)
    expect(listProvenance(tc.db)).toEqual(expected)
  })

  it('gives the same answer with the passes shared with a helper thread, or all run by it', async () => {
    tc = await leakyCase()
    const options = {minWords: 12, boilerplateTenants: 3}
    const one = computeProvenance(tc.db, options, {passes: 1, helper: false})
    const expected = listProvenance(tc.db)
    expect(expected.length).toBeGreaterThan(5)
    for (const passes of [2, 5, 64]) {
      for (const helperTakesAll of [false, true]) {
        const before = helperActivity()
        const shared = computeProvenance(tc.db, options, {passes, helper: true, helperTest: {helperTakesAll}})
        const after = helperActivity()
        // The helper wrote the spill files, and with every pass left to it, ran them all.
        expect(after.spills - before.spills).toBe(1)
        if (helperTakesAll) expect(after.passes - before.passes).toBe(passes)
        expect(after.fellSilent).toBe(before.fellSilent)
        expect({...shared, passes: 1, timings_ms: null}).toEqual({...one, timings_ms: null})
        expect(listProvenance(tc.db)).toEqual(expected)
      }
    }
    // The helper splits the budget with the main thread: twice the passes, each half the size.
    expect(computeProvenance(tc.db, options, {indexBudgetBytes: 4096, helper: true}).passes).toBeGreaterThan(computeProvenance(tc.db, options, {indexBudgetBytes: 4096, helper: false}).passes)
    expect(listProvenance(tc.db)).toEqual(expected)
  })

  it('verifies with the texts the helper decoded ahead, and gives the same answer', async () => {
    tc = await leakyCase()
    const options = {minWords: 12, boilerplateTenants: 3}
    const one = computeProvenance(tc.db, options, {passes: 1, helper: false, matchChunk: 8})
    const expected = listProvenance(tc.db)
    expect(expected.length).toBeGreaterThan(5)
    for (const passes of [1, 3]) {
      const before = helperActivity()
      const ahead = computeProvenance(tc.db, options, {passes, helper: true, matchChunk: 8, awaitTexts: true})
      const after = helperActivity()
      // Verification in chunks of 8 ranks: the texts of the later chunks were read ahead by the helper.
      expect(after.textsRead - before.textsRead).toBeGreaterThan(0)
      expect(after.failed).toBe(before.failed)
      expect({...ahead, passes: 1, timings_ms: null}).toEqual({...one, timings_ms: null})
      expect(listProvenance(tc.db)).toEqual(expected)
    }
  })

  it('decodes the texts itself when the helper falls silent or fails while reading them ahead, without waiting for it', async () => {
    tc = await leakyCase()
    const options = {minWords: 12, boilerplateTenants: 3}
    computeProvenance(tc.db, options, {passes: 1, helper: false})
    const expected = listProvenance(tc.db)
    for (const misbehave of [{silentFrom: 'texts'}, {failFrom: 'texts'}] as const) {
      const before = helperActivity()
      const t0 = performance.now()
      // The default 20 s of silence: the main thread never waits for texts, so it is never reached.
      computeProvenance(tc.db, options, {passes: 2, helper: true, matchChunk: 8, helperTest: misbehave})
      expect(performance.now() - t0).toBeLessThan(10_000)
      const after = helperActivity()
      expect(after.textsRead).toBe(before.textsRead)
      // Whether the failure's message arrived before the last text was needed is a race here;
      // the runs below wait for it.
      expect(after.failed - before.failed).toBeLessThanOrEqual('failFrom' in misbehave ? 1 : 0)
      expect(after.fellSilent).toBe(before.fellSilent)
      expect(listProvenance(tc.db)).toEqual(expected)
    }
    // Made to wait for each chunk's texts: the failure is seen, and the silence given up after its
    // stall time, every time; the answer is the same.
    for (const misbehave of [{silentFrom: 'texts', stallMs: 300}, {failFrom: 'texts'}] as const) {
      const before = helperActivity()
      computeProvenance(tc.db, options, {passes: 2, helper: true, matchChunk: 8, awaitTexts: true, helperTest: misbehave})
      const after = helperActivity()
      expect(after.textsRead).toBe(before.textsRead)
      expect(after.failed - before.failed).toBe('failFrom' in misbehave ? 1 : 0)
      expect(after.fellSilent - before.fellSilent).toBe('silentFrom' in misbehave ? 1 : 0)
      expect(listProvenance(tc.db)).toEqual(expected)
    }
  })

  it('does the work itself when the helper falls silent or fails, before its spill or holding a pass, and never waits for good', async () => {
    tc = await leakyCase()
    const options = {minWords: 12, boilerplateTenants: 3}
    computeProvenance(tc.db, options, {passes: 1, helper: false})
    const expected = listProvenance(tc.db)
    for (const how of ['silent', 'fail'] as const) {
      for (const from of ['start', 'passes'] as const) {
        const before = helperActivity()
        const t0 = performance.now()
        const misbehave = how === 'silent' ? {silentFrom: from, stallMs: 300} : {failFrom: from}
        const stats = computeProvenance(tc.db, options, {passes: 4, helper: true, helperTest: {...misbehave, helperTakesAll: true}})
        expect(performance.now() - t0).toBeLessThan(10_000)
        const after = helperActivity()
        expect(after.fellSilent - before.fellSilent).toBe(how === 'silent' ? 1 : 0)
        expect(after.failed - before.failed).toBe(how === 'fail' ? 1 : 0)
        // Given up before its spill: the main thread wrote its own. Holding a pass: every pass was run here.
        expect(after.spills - before.spills).toBe(from === 'start' ? 0 : 1)
        expect(after.passes).toBe(before.passes)
        expect(stats.passes).toBe(4)
        expect(listProvenance(tc.db)).toEqual(expected)
      }
    }
  })
})

describe('responses set aside as boilerplate are counted, and change no finding', () => {
  /** tA's prompt reaches the answers of tB, tC and tD on three nodes: text of 3+ tenants, boilerplate at T = 3. */
  async function widespread(): Promise<TestCase> {
    const made = makeCase()
    const rand = rng(7)
    const vocab = vocabulary(rand, 3000)
    const secret = randomWords(rand, vocab, 30).join(' ')
    const rows = [
      {request_id: 'src', tenant_id: 'tA', session_id: 'sA', request_text: `keep this ${secret}`, response_text: randomWords(rand, vocab, 20).join(' '), decode_node: 'n0'},
      ...['tB', 'tC', 'tD'].map((t, i) => ({
        request_id: `leak${i}`, tenant_id: t, session_id: `s${t}`, request_text: randomWords(rand, vocab, 20).join(' '), response_text: `${randomWords(rand, vocab, 5).join(' ')} ${secret}`, decode_node: `n${i + 1}`,
      })),
      ...Array.from({length: 20}, (_, i) => ({
        request_id: `r${i}`, tenant_id: `t${i % 5}`, session_id: `x${i}`, request_text: randomWords(rand, vocab, 40).join(' '), response_text: randomWords(rand, vocab, 40).join(' '), decode_node: 'n9',
      })),
    ]
    await made.addFile(rows)
    scanCase(made.db, {now: NOW, skipProvenance: true})
    return made
  }

  it('counts the three answers at T = 3 (none listed), whatever the passes or the helper; at T = 10 they are findings and none is set aside', async () => {
    tc = await widespread()
    const options = {minWords: 12, boilerplateTenants: 3}
    const one = computeProvenance(tc.db, options, {passes: 1, helper: false})
    expect(one.boilerplate_responses).toBe(3)
    expect(listProvenance(tc.db)).toEqual([])
    for (const passes of [2, 5]) {
      for (const helper of [false, true]) {
        const other = computeProvenance(tc.db, options, {passes, helper})
        expect({...other, passes: 1, timings_ms: null}).toEqual({...one, timings_ms: null})
      }
    }
    const open = computeProvenance(tc.db, {minWords: 12, boilerplateTenants: 10}, {passes: 1, helper: false})
    expect(open.boilerplate_responses).toBe(0)
    expect(listProvenance(tc.db).map((p) => p.request_id).sort()).toEqual(['leak0', 'leak1', 'leak2'])
  })

})
