import {afterEach, describe, expect, it} from 'vitest'
import {createHash} from 'node:crypto'
import {findPii, hashPii, ibanValid, luhnValid} from '../../src/extract/pii.js'
import {referenceKey} from '../../src/detect/pii-ref.js'
import {scanCase} from '../../src/detect/scan-case.js'
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
      'ip 192.168.10.7 and 2001:DB8::1 at 12:30:45,',
      'phone +49 30 1234567 or (555) 123-4567, version 1.2.3',
    ].join(' ')
    const found = findPii(text).map((v) => [v.kind, v.value])
    expect(found).toEqual([
      ['email', 'jane.doe@example.org'],
      ['iban', 'DE89370400440532013000'],
      ['card', '4111111111111111'],
      ['ipv4', '192.168.10.7'],
      ['ipv6', '2001:db8::1'],
      ['phone', '+49301234567'],
      ['phone', '5551234567'],
    ])
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
