import {tokenize} from '../testbed/tokenizer.js'
import {randomHex, type Rng} from '../util/rng.js'
import type {Endpoint, ServingClient} from './client.js'
import {freshCanary} from './markers.js'

// Synthetic prompts: a header naming a made-up tenant and session and carrying a fresh canary,
// then filler words. No real text is ever sent. Filler words are common English words that
// nearly every BPE vocabulary holds as one token, so sizes converge in a couple of /tokenize calls.

const WORDS = (
  'the of and to in is was for on are with as by at from that this it be or have an they which one you were her all ' +
  'she there would their we him been has when who will more no if out so said what up its about into than them can only ' +
  'other new some could time these two may then do first any my now such like our over man me even most made after also'
).split(' ')

export interface Persona {
  tenant: string
  session: string
  canary: string
}

export function newPersona(rng: Rng, label: string): Persona {
  return {tenant: `probe-${label}-${randomHex(rng, 6)}`, session: `s-${randomHex(rng, 8)}`, canary: freshCanary(rng)}
}

export function fillerWords(rng: Rng, count: number): string[] {
  return Array.from({length: count}, () => WORDS[Math.floor(rng() * WORDS.length)]!)
}

export function buildPrompt(persona: Persona, filler: readonly string[], words: number): string {
  return `Synthetic crosstalk probe for tenant ${persona.tenant} session ${persona.session}. Reference ${persona.canary}. ${filler.slice(0, words).join(' ')}`
}

export interface SizedPrompt {
  /** Filler words that make the prompt the wanted size. */
  words: number
  /** Token count the server's tokenizer reported for the template, or our estimate. */
  tokens: number
  method: 'tokenize' | 'estimate'
}

/**
 * Finds how many filler words make a prompt of `target` tokens on this server. With /tokenize
 * the count is the server's own (chat template included); without, our word tokenizer estimates.
 */
export async function sizePrompt(client: ServingClient | null, opts: {endpoint: Endpoint; model: string; target: number; template: Persona; filler: readonly string[]}): Promise<SizedPrompt> {
  const header = tokenize(buildPrompt(opts.template, [], 0)).length
  let words = Math.max(0, opts.target - header)
  if (client !== null) {
    let measured: number | null = null
    for (let round = 0; round < 6; round++) {
      const counted = await client.tokenize(buildPrompt(opts.template, opts.filler, words), opts.endpoint, opts.model)
      if (counted === null) break
      measured = counted.count
      if (measured === opts.target) break
      const next = Math.max(0, Math.min(opts.filler.length, words + (opts.target - measured)))
      if (next === words) break
      words = next
    }
    if (measured !== null) return {words, tokens: measured, method: 'tokenize'}
  }
  return {words, tokens: header + words, method: 'estimate'}
}
