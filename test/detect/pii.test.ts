import {afterEach, describe, expect, it} from 'vitest'
import {createHash} from 'node:crypto'
import {findPii, hashPii, ibanValid, luhnValid} from '../../src/extract/pii.js'
import {referenceKey} from '../../src/detect/pii-ref.js'
import {scanCase, type ScanProgress} from '../../src/detect/scan-case.js'
import {EXTRACT_SCHEME, PRIOR_EXTRACT_SCHEMES} from '../../src/extract/extract.js'
import {listPiiFindings} from '../../src/detect/list.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

let tc: TestCase | undefined
afterEach(() => {
  tc?.close()
  tc = undefined
})

describe('value references', () => {
  it('are keyed per case: the same value gets one reference within a case and another in another case', async () => {
    const refs: string[] = []
    for (const _ of [0, 1]) {
      const c = makeCase()
      try {
        await c.addFile([
          {request_id: 'a', tenant_id: 'ta', session_id: 'sa', request_text: 'hi', response_text: 'call +49 30 1234567'},
          {request_id: 'b', tenant_id: 'tb', session_id: 'sb', request_text: 'hi', response_text: 'or +49 30 1234567'},
        ])
        scanCase(c.db, {now: new Date('2026-11-03T00:00:00Z'), skipProvenance: true})
        const rows = listPiiFindings(c.db)
        expect(rows).toHaveLength(2)
        expect(rows[0]!.value_ref).toBe(rows[1]!.value_ref)
        refs.push(rows[0]!.value_ref)
      } finally {
        c.close()
      }
    }
    expect(refs[0]).not.toBe(refs[1])
  })
})

describe('the reference key', () => {
  it('is made by scan (a listing writes nothing), and kept once stored', async () => {
    const c = makeCase()
    try {
      await c.addFile([{request_id: 'a', tenant_id: 'ta', session_id: 'sa', request_text: 'hi', response_text: 'mail x@y.net'}])
      const stored = () => (c.db.prepare(`SELECT pii_ref_key FROM case_settings`).pluck().get() as Buffer | null)?.toString('hex')
      expect(stored()).toBeUndefined()
      expect(referenceKey(c.db, {create: false})).toBeNull()
      scanCase(c.db, {now: new Date('2026-11-03T00:00:00Z'), skipProvenance: true})
      const made = stored()
      expect(made).toMatch(/^[0-9a-f]{64}$/)
      expect(referenceKey(c.db, {create: false})!.toString('hex')).toBe(made)
      // A second scan keeps it (references stay stable across scans).
      scanCase(c.db, {now: new Date('2026-11-03T00:00:00Z'), skipProvenance: true})
      expect(stored()).toBe(made)
      // The schema refuses a key that is not 32 bytes.
      expect(() => c.db.prepare(`UPDATE case_settings SET pii_ref_key = x'00'`).run()).toThrow(/CHECK/)
    } finally {
      c.close()
    }
  })
})

describe('hashPii', () => {
  it('is SHA-256 of "kind:value" in hex, as cases already store it', async () => {
    for (const [kind, value] of [['email', 'anna.berg@example.org'], ['phone', '+49 30 1234567'], ['iban', 'DE89370400440532013000'], ['email', 'zoë@bücher.de']] as const) {
      expect(hashPii(kind, value)).toBe(createHash('sha256').update(`${kind}:${value}`).digest('hex'))
    }
  })
})

describe('checksums', () => {
  it('IBAN mod-97', async () => {
    expect(ibanValid('DE89 3704 0044 0532 0130 00')).toBe(true)
    expect(ibanValid('GB82WEST12345698765432')).toBe(true)
    expect(ibanValid('DE89 3704 0044 0532 0130 01')).toBe(false)
    expect(ibanValid('GB82WEST1234569876543')).toBe(false)
  })
  it('Luhn', async () => {
    expect(luhnValid('4111111111111111')).toBe(true)
    expect(luhnValid('5500005555555559')).toBe(true)
    expect(luhnValid('4111111111111112')).toBe(false)
  })
})

describe('findPii', () => {
  it('finds each kind, normalised, and rejects bad checksums', async () => {
    const text = [
      'mail Jane.Doe@Example.org,',
      'card 4111-1111-1111-1111 bad 4111 1111 1111 1112,',
      'iban DE89 3704 0044 0532 0130 00 bad DE89370400440532013001,',
      'ip 81.2.69.160 and 2A02:C7F::1 at 12:30:45,',
      'phone +49 30 1234567 or (555) 123-4567, version 1.2.3',
    ].join(' ')
    const found = findPii(text).map((v) => [v.kind, v.value])
    expect(found).toEqual([
      ['email', 'jane.doe@example.org'],
      ['iban', 'DE89370400440532013000'],
      ['card', '4111111111111111'],
      ['ipv4', '81.2.69.160'],
      ['ipv6', '2a02:c7f::1'],
      ['phone', '301234567'],
      ['phone', '5551234567'],
    ])
  })

  it('gives a phone number one value however it is written: national or international, with the trunk 0 or "(0)", in full-width digits', () => {
    const value = (t: string): string[] => findPii(t).filter((v) => v.kind === 'phone').map((v) => v.value)
    for (const t of ['030 1234 5678', '+49 30 1234 5678', '+49 (0)30 1234 5678', '0049 30 1234 5678', '+4930 12345678', '電話０３０　１２３４　５６７８']) expect(value(t), t).toEqual(['3012345678'])
    for (const t of ['07700 900123', '+44 7700 900123', '+44 (0)7700 900123']) expect(value(t), t).toEqual(['7700900123'])
    for (const t of ['(555) 123-4567', '+1 555 123 4567', '555-123-4567']) expect(value(t), t).toEqual(['5551234567'])
    // Italy keeps its 0 after the country code: both forms still agree.
    expect(value('+39 06 1234 5678')).toEqual(value('06 1234 5678'))
    // Positions are those of the text as written.
    const [fw] = findPii('電話０３０　１２３４　５６７８')
    expect('電話０３０　１２３４　５６７８'.slice(fw!.start, fw!.end)).toBe('０３０　１２３４　５６７８')
  })

  it('recognises an IBAN in lower case, with dashes, in full-width forms, or followed by words; never as a phone', () => {
    const kinds = (t: string): string[][] => findPii(t).map((v) => [v.kind, v.value])
    for (const t of ['IBAN de89 3704 0044 0532 0130 00', 'DE89-3704-0044-0532-0130-00', 'de89370400440532013000', 'IBAN DE89 3704 0044 0532 0130 00 and more text here', 'ＤＥ８９ ３７０４ ００４４ ０５３２ ０１３０ ００']) {
      expect(kinds(t), t).toEqual([['iban', 'DE89370400440532013000']])
    }
    // Prose: lower-case words glued to digits are no IBAN, whatever mod-97 says of them.
    expect(findPii('meet at10 or so then we go home soon ok').filter((v) => v.kind === 'iban')).toEqual([])
  })

  it('takes an IBAN only where it stands alone and its country uses IBANs', () => {
    // A generated incident's orphan marker whose upper-case hex passes mod-97 ("AA" is no country).
    const marker = 'AA975EBADDFEC6737D2EC5329860EC8'
    expect(ibanValid(marker)).toBe(false)
    expect(findPii(`See CANARY-${marker} in the runbook.`).filter((v) => v.kind === 'iban')).toEqual([])
    // A real IBAN glued after a hyphen or inside a word is not one either; alone it is.
    expect(findPii('ref-DE89370400440532013000 and xDE89370400440532013000').filter((v) => v.kind === 'iban')).toEqual([])
    for (const text of ['DE89370400440532013000', 'IBAN: DE89 3704 0044 0532 0130 00.', '(GB82WEST12345698765432)']) {
      expect(findPii(text).filter((v) => v.kind === 'iban'), text).toHaveLength(1)
    }
  })

  it('takes a card number only where it stands alone, not digits inside a longer token such as a marker\'s hex', () => {
    // 5038170765445 passes Luhn; here it is part of an (orphan) marker, as a generated incident had it.
    expect(luhnValid('5038170765445')).toBe(true)
    expect(findPii('See CANARY-546c5038170765445ebb9b08 in the runbook.').filter((v) => v.kind === 'card')).toEqual([])
    expect(findPii('id x4111111111111111 and 4111111111111111y and _4111111111111111').filter((v) => v.kind === 'card')).toEqual([])
    // Standing alone, by punctuation or at either end of the text, it is one.
    for (const text of ['4111111111111111', 'card:4111111111111111.', '(4111 1111 1111 1111)', 'No.5038170765445']) {
      expect(findPii(text).map((v) => [v.kind, v.value]), text).toContainEqual(['card', text.includes('5038') ? '5038170765445' : '4111111111111111'])
    }
  })
})

describe('findPii: numbers as they are typeset', () => {
  const NB = '\u00a0' // no-break space
  const NNB = '\u202f' // narrow no-break space (French typography)
  const THIN = '\u2009'
  const kinds = (t: string): string[][] => findPii(t).map((v) => [v.kind, v.value])

  it('finds phones, IBANs and cards grouped with no-break, narrow no-break or thin spaces, or with dashes', () => {
    for (const sp of [NB, NNB, THIN, '\u2007']) {
      expect(kinds(`au +33${sp}6${sp}12${sp}34${sp}56${sp}78 avant`), JSON.stringify(sp)).toEqual([['phone', '612345678']])
      expect(kinds(`compte FR14${sp}2004${sp}1010${sp}0505${sp}0001${sp}3M02${sp}606 avec`), JSON.stringify(sp)).toEqual([['iban', 'FR1420041010050500013M02606']])
      expect(kinds(`carte 4111${sp}1111${sp}1111${sp}1111 comme`), JSON.stringify(sp)).toEqual([['card', '4111111111111111']])
    }
    for (const dash of ['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2212']) {
      expect(kinds(`+44${dash}20${dash}7946${dash}0958`), JSON.stringify(dash)).toEqual([['phone', '2079460958']])
      expect(kinds(`card 4111${dash}1111${dash}1111${dash}1111`), JSON.stringify(dash)).toEqual([['card', '4111111111111111']])
    }
    // The positions are those of the text as written.
    const text = `Tel. +33${NB}6${NB}12${NB}34${NB}56${NB}78.`
    const [phone] = findPii(text)
    expect(text.slice(phone!.start, phone!.end)).toBe(`+33${NB}6${NB}12${NB}34${NB}56${NB}78`)
    expect(ibanValid(`FR14${NNB}2004${NNB}1010${NNB}0505${NNB}0001${NNB}3M02${NNB}606`)).toBe(true)
  })

  it('finds the common phone forms, each as the value of its international form', () => {
    const phone = (t: string): string[] => findPii(t).filter((v) => v.kind === 'phone').map((v) => v.value)
    for (const [t, v] of [
      ['(+44) 20 7946 0958', '2079460958'], ['+44 20 7946 0958', '2079460958'],
      ['1-415-555-0132', '4155550132'], ['415 555 0132', '4155550132'], ['+1 (415) 555-0132', '4155550132'], ['1 (415) 555-0132', '4155550132'],
      ['+49 30/1234567', '301234567'], ['030/1234567', '301234567'],
    ] as const) expect(phone(`call ${t} now`), t).toEqual([v])
  })

  it('takes no ordinary number, date, time, amount or order id for a phone, IBAN or card', () => {
    for (const t of [
      'on 01.12.2024 10:30 we met', '01/12/2024 10:30', 'Order 2024-11-03 12345 shipped', 'invoice 2024/11/03 no. 4471', 'ISBN 978-3-16-148410-0',
      'Order #A-1029-3345', 'order 4471-2210-9932', 'total 1 234 567 890 units', `1${NNB}234${NNB}567,89 €`, 'Tracking 1Z999AA10123456784',
      'between 100 and 250 and 3000', 'ref 12/34/5678901', 'ticket 123 456 7890', 'the years 2024 2025 2026', `page 12${NB}–${NB}18`,
    ]) expect(kinds(t), t).toEqual([])
  })
})

describe('findPii: e-mail addresses in any script', () => {
  const emails = (t: string): string[] => findPii(t).filter((v) => v.kind === 'email').map((v) => v.value)

  it('reads a local part with non-ASCII letters whole, never from its last ASCII letter on', () => {
    expect(emails('Schreib an jürgen.müller@firma.de und anna.müller@firma.de.')).toEqual(['jürgen.müller@firma.de', 'anna.müller@firma.de'])
    expect(emails('renée.dupont@exemple.fr, josé@ejemplo.es, jöhn@x.de, δοκιμή@παράδειγμα.δοκιμή')).toEqual(['renée.dupont@exemple.fr', 'josé@ejemplo.es', 'jöhn@x.de', 'δοκιμή@παράδειγμα.δοκιμή'])
    // A letter and its accent typed as two characters is the same address.
    expect(emails('ju\u0308rgen@firma.de')).toEqual(['jürgen@firma.de'])
  })

  it('finds an address with an internationalised domain, one value in its Unicode and its ASCII (xn--) form', () => {
    expect(emails('Die Adresse lautet info@müller.de.')).toEqual(['info@müller.de'])
    expect(emails('or INFO@xn--mller-kva.DE')).toEqual(['info@müller.de'])
    expect(emails('ASCII stays as it was: Jane.Doe@Example.org')).toEqual(['jane.doe@example.org'])
  })

  it('ends an address at a letter of a script written without spaces', () => {
    expect(emails('请联系zhang@example.com请回复')).toEqual(['zhang@example.com'])
    expect(emails('メールはtaro@example.jpまで')).toEqual(['taro@example.jp'])
  })
})

describe('findPii: addresses that identify no one', () => {
  const ips = (t: string): string[] => findPii(t).filter((v) => v.kind === 'ipv4' || v.kind === 'ipv6').map((v) => v.value)

  it('are not personal data: loopback, private, shared, link-local, documentation, multicast addresses and public resolvers', () => {
    const none = [
      '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.254', '192.168.1.1', '100.64.0.1', '169.254.169.254', '192.0.2.10', '198.51.100.7', '203.0.113.9', '198.18.0.1',
      '224.0.0.251', '255.255.255.255', '0.0.0.0', '8.8.8.8', '8.8.4.4', '1.1.1.1', '9.9.9.9', '208.67.222.222',
      '::1', '::', 'fe80::1', 'fd12:3456:789a::1', '2001:db8::1', '2001:DB8:0:0:0:0:0:1', 'ff02::1', '3fff::1', '::ffff:192.168.1.1', '2001:4860:4860::8888', '2606:4700:4700::1111',
    ]
    for (const a of none) expect(ips(`open http://${a.includes(':') ? `[${a}]` : a}:8000 or ping ${a} now`), a).toEqual([])
  })

  it('are personal data where they may single out a device: any other address', () => {
    for (const a of ['81.2.69.160', '172.32.0.1', '100.128.0.1', '11.0.0.1', '2a02:c7f:1234::42', '2001:db9::1', '::ffff:81.2.69.160'])
      expect(ips(`client ${a} connected`), a).toHaveLength(1)
  })
})

describe('a case extracted under the prior scheme', () => {
  it('has its personal data extracted again by the next scan, and then holds the current scheme', async () => {
    const c = makeCase()
    tc = c
    await c.addFile([
      {request_id: 'owner', tenant_id: 'ta', session_id: 'sa', request_text: 'my card is 4111 1111 1111 1111'},
      {request_id: 'leak', tenant_id: 'tb', session_id: 'sb', request_text: 'hello', response_text: 'card 4111111111111111; see CANARY-546c5038170765445ebb9b08 in the runbook'},
    ])
    scanCase(c.db, {now: new Date('2026-11-03T00:00:00Z'), skipProvenance: true})
    const leak = c.db.prepare("SELECT id FROM records WHERE request_id = 'leak'").pluck().get() as number
    // What the prior rules stored: the digits inside the marker's hex as a card number too.
    c.db.prepare('UPDATE files SET extract_scheme = ?').run(PRIOR_EXTRACT_SCHEMES[0])
    c.db.prepare('INSERT INTO pii_values (record_id, in_response, kind, value_sha256) VALUES (?, 1, ?, ?)').run(leak, 'card', hashPii('card', '5038170765445'))
    // The one-time re-extraction says how far it is, in records, before the scan's own phases.
    const heard: ScanProgress[] = []
    expect(scanCase(c.db, {now: new Date('2026-11-03T01:00:00Z'), skipProvenance: true, onProgress: (p) => heard.push(p)})).toMatchObject({pii_findings: 1, pii_attributed: 1})
    expect(heard.filter((p) => p.phase === 'reextract')).toEqual([{phase: 'reextract', done: 0, total: 2}, {phase: 'reextract', done: 2, total: 2}])
    expect(heard[0]!.phase).toBe('reextract')
    expect(c.db.prepare('SELECT DISTINCT extract_scheme FROM files WHERE kind = ?').pluck().all('log')).toEqual([EXTRACT_SCHEME])
    expect(c.db.prepare('SELECT count(*) FROM pii_values WHERE value_sha256 = ?').pluck().get(hashPii('card', '5038170765445'))).toBe(0)
    expect(listPiiFindings(c.db).map((r) => [r.request_id, r.kind, r.source_request_id])).toEqual([['leak', 'card', 'owner']])
    // Another scheme still is refused, as before.
    c.db.prepare('UPDATE files SET extract_scheme = ?').run('x0/other')
    c.db.prepare('DELETE FROM scanned_files').run()
    expect(() => scanCase(c.db, {now: new Date('2026-11-03T02:00:00Z'), skipProvenance: true})).toThrow(/extracted under scheme x0\/other/)
  })
})

describe('PII you never sent', () => {
  it('reports values the session never sent, attributed to an earlier other session', async () => {
    tc = makeCase()
    await tc.addFile([
      {request_id: 'owner', tenant_id: 'ta', session_id: 'sa', request_text: 'my card is 4111 1111 1111 1111 and mail a@b.com'},
      {request_id: 'self', tenant_id: 'tb', session_id: 'sb', request_text: 'reach me at me@mine.org', response_text: 'noted me@mine.org'},
      {request_id: 'leak', tenant_id: 'tb', session_id: 'sb', request_text: 'hello', response_text: 'card 4111111111111111, also x@y.net'},
    ])
    const result = scanCase(tc.db, {now: new Date('2026-11-03T00:00:00Z'), skipProvenance: true})
    expect(result).toMatchObject({pii_findings: 2, pii_attributed: 1})
    const rows = listPiiFindings(tc.db)
    expect(rows.map((r) => [r.request_id, r.kind, r.source_request_id, r.source_tenant])).toEqual([
      ['leak', 'card', 'owner', 'ta'],
      ['leak', 'email', null, null],
    ])
    expect(rows[0]!.value).toBeUndefined()
    // Neither the value nor its (enumerable) unsalted hash by default: a keyed reference.
    expect(rows[0]!.value_sha256).toBeUndefined()
    expect(rows[0]!.value_ref).toMatch(/^[0-9a-f]{16}$/)
    expect(JSON.stringify(rows)).not.toContain(hashPii('card', '4111111111111111').slice(0, 12))
    const shown = listPiiFindings(tc.db, {showValues: true})
    expect(shown.map((r) => r.value)).toEqual(['4111111111111111', 'x@y.net'])
    expect(shown[0]!.value_sha256).toBe(hashPii('card', '4111111111111111'))
    // The same reference in every output of this case.
    expect(listPiiFindings(tc.db).map((r) => r.value_ref)).toEqual(rows.map((r) => r.value_ref))
    // Stored hashed only.
    const dump = JSON.stringify(tc.db.prepare('SELECT * FROM pii_values').all()) + JSON.stringify(tc.db.prepare('SELECT * FROM pii_findings').all())
    expect(dump).not.toContain('4111')
  })
})

describe('PII written in another form', () => {
  it('is the recipient\'s own number in another form (no finding), and another customer\'s number or lower-case IBAN attributed to it', async () => {
    tc = makeCase()
    await tc.addFile([
      {request_id: 'own-de', tenant_id: 't1', session_id: 's1', request_text: 'Please call me back on 030 1234 5678 tomorrow', response_text: 'Sure, I noted +49 30 1234 5678 as your number.'},
      {request_id: 'own-uk', tenant_id: 't2', session_id: 's2', request_text: 'My UK mobile is 07700 900123', response_text: 'Saved +44 (0)7700 900123.'},
      {request_id: 'owner', tenant_id: 't3', session_id: 's3', request_text: 'Reach me at +49 (0)40 1234 5678, IBAN de89 3704 0044 0532 0130 00', response_text: 'Noted.'},
      {request_id: 'leak', tenant_id: 't4', session_id: 's4', request_text: 'hi', response_text: 'Reach me at +49 40 1234 5678, IBAN DE89 3704 0044 0532 0130 00'},
    ])
    expect(scanCase(tc.db, {now: new Date('2026-11-03T00:00:00Z'), skipProvenance: true})).toMatchObject({pii_findings: 2, pii_attributed: 2})
    expect(listPiiFindings(tc.db).map((r) => [r.request_id, r.kind, r.source_request_id]).sort()).toEqual([['leak', 'iban', 'owner'], ['leak', 'phone', 'owner']])
  })
})

describe('PII sent by the recipient only later', () => {
  it('is still a finding: only what the session sent in this request or before it is its own', async () => {
    tc = makeCase()
    await tc.addFile([
      {request_id: 'owner', tenant_id: 'ta', session_id: 'sa', request_text: 'Please ring me on +44 7700 900123 after five'},
      {request_id: 'leak', tenant_id: 'tb', session_id: 'sb', request_text: 'hi', response_text: 'Please ring me on +44 7700 900123'},
      // The recipient asks about the number it was served, in a later turn.
      {request_id: 'asks', tenant_id: 'tb', session_id: 'sb', request_text: 'Whose number is +44 7700 900123? I never gave you that.', response_text: 'I cannot say.'},
      // Its own number, sent first, then repeated to it: not a finding.
      {request_id: 'own', tenant_id: 'tb', session_id: 'sb', request_text: 'mine is me@mine.org', response_text: 'ok'},
      {request_id: 'echo', tenant_id: 'tb', session_id: 'sb', request_text: 'and?', response_text: 'yours is me@mine.org'},
    ])
    expect(scanCase(tc.db, {now: new Date('2026-11-03T00:00:00Z'), skipProvenance: true})).toMatchObject({pii_findings: 1, pii_attributed: 1})
    expect(listPiiFindings(tc.db).map((r) => [r.request_id, r.kind, r.source_request_id])).toEqual([['leak', 'phone', 'owner']])
  })
})

describe('over-pool risk', () => {
  it('flags status-200 responses at or above the pool, as scope counts them (a 200 stream that ended in an error event too)', async () => {
    // Each answer has text: a log whose every answer decodes to no text is refused at ingest.
    tc = makeCase()
    await tc.addFile([
      {request_id: 'small', tenant_id: 't', session_id: 's', response_text: 'ok', prompt_tokens: 100},
      {request_id: 'at', tenant_id: 't', session_id: 's', response_text: 'ok', prompt_tokens: 1000},
      {request_id: 'over', tenant_id: 't', session_id: 's', response_text: 'ok', prompt_tokens: 5000},
      {request_id: 'rejected', tenant_id: 't', session_id: 's', response_text: 'ok', prompt_tokens: 5000, status: 400},
      {request_id: 'sse-error', tenant_id: 't', session_id: 's', prompt_tokens: 5000, is_error: 1},
    ])
    const now = new Date('2026-11-03T00:00:00Z')
    expect(scanCase(tc.db, {now, skipProvenance: true}).at_risk).toBeNull()
    expect(scanCase(tc.db, {now, skipProvenance: true, poolTokens: 1000, advertisedTokens: 4096})).toMatchObject({at_risk: 3, above_advertised: 2})
    // The pool is a recorded fact of the case: later incremental scans use it.
    await tc.addFile([{request_id: 'later', tenant_id: 't', session_id: 's', response_text: 'ok', prompt_tokens: 2000}])
    expect(scanCase(tc.db, {now, skipProvenance: true}).at_risk).toBe(4)
  })
})
