import {describe, expect, it} from 'vitest'
import {SourceChain, type AttributionContext} from '../../src/detect/provenance/attribute.js'

// The chain rule in SourceChain alone: a response that repeats a copy is attributed to the
// copy's own source, which the chain must still know when the later response comes. The scan's
// tests reach this through whole incidents; here each step is pinned, so that a chain that
// forgets a source (or keeps one it never had) fails by name.

const SECRET =
  'quarterly retention figures for the northwind pilot show churn falling from nine to four percent after the loyalty change ' +
  'while support tickets about invoices doubled in the same weeks and the finance lead asked to keep this out of the board pack'

interface Rec {
  request_text: string
  response_text: string
  tenant_id: string
  session_id: string
}

function context(records: Rec[]): AttributionContext {
  return {
    text: (part, rank) => records[rank]![part],
    node: () => -1,
    session: (rank) => records[rank],
    isBoiler: () => false,
    minWords: 12,
  }
}

const records: Rec[] = [
  {request_text: `please summarise: ${SECRET}`, response_text: 'Here is a short summary of the figures.', tenant_id: 'tn-a', session_id: 'sess-a'},
  {request_text: 'what is the capital of portugal', response_text: SECRET, tenant_id: 'tn-b', session_id: 'sess-b'},
  {request_text: 'write me a haiku about autumn', response_text: `sure. ${SECRET}`, tenant_id: 'tn-c', session_id: 'sess-c'},
]

// Postings: rank * 2 + part (0 prompt, 1 response).
const prompt = (rank: number): number => rank * 2
const response = (rank: number): number => rank * 2 + 1

describe('SourceChain', () => {
  it('attributes a response that repeats a copy to the copy\'s own source', () => {
    const ctx = context(records)
    const chain = new SourceChain(records.length)
    const first = chain.attribute(1, [[prompt(0), 30]], ctx)
    expect(first?.v).toBe(prompt(0))
    expect(first?.matched).toBe('prompt')
    // Rank 2 shares fingerprints only with rank 1's response, a copy: its source is rank 0's prompt.
    const second = chain.attribute(2, [[response(1), 30]], ctx)
    expect(second).not.toBeNull()
    expect(second!.v).toBe(prompt(0))
    expect(second!.matched).toBe('prompt')
    expect(second!.candidates).toBe(1)
  })

  it('merges a copy and its source into one candidate, counted once', () => {
    const ctx = context(records)
    const chain = new SourceChain(records.length)
    chain.attribute(1, [[prompt(0), 30]], ctx)
    const second = chain.attribute(2, [[response(1), 30], [prompt(0), 5]], ctx)
    expect(second!.v).toBe(prompt(0))
    expect(second!.candidates).toBe(1)
  })

  it('drops a copy whose source it was never told (a marker sighting only)', () => {
    const ctx = context(records)
    const chain = new SourceChain(records.length)
    chain.markCopy(1, {tenant: 'tn-a', session: 'sess-a'})
    expect(chain.attribute(2, [[response(1), 30]], ctx)).toBeNull()
  })

  it('names an uncontaminated response as a source', () => {
    const clean: Rec[] = [
      {request_text: 'tell me something', response_text: SECRET, tenant_id: 'tn-a', session_id: 'sess-a'},
      {request_text: 'another thing', response_text: `well, ${SECRET}`, tenant_id: 'tn-b', session_id: 'sess-b'},
    ]
    const chain = new SourceChain(clean.length)
    const r = chain.attribute(1, [[response(0), 30]], context(clean))
    expect(r?.v).toBe(response(0))
    expect(r?.matched).toBe('response')
  })

  it('refuses ranks out of time order', () => {
    const ctx = context(records)
    const chain = new SourceChain(records.length)
    chain.attribute(2, [[prompt(0), 30]], ctx)
    expect(() => chain.attribute(1, [[prompt(0), 30]], ctx)).toThrow(/time order/)
  })
})
