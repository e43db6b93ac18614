// The testbed's tokenizer: deterministic and transparent, so a test can count tokens by eye.
// A token is a word (letters, digits, underscore, with inner hyphens: `CANARY-0f3a…` is one
// token) or a single non-space character. Real tokenizers are BPE; the mechanics the testbed
// models (pages, pool, prefix hashes) only need a stable count and stable token strings.

const TOKEN = /[\p{L}\p{N}_]+(?:-[\p{L}\p{N}_]+)*|\S/gu

export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? []
}

/** A stable id per token string (FNV-1a, 31 bits), for `/tokenize`'s `tokens` array. */
export function tokenId(token: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < token.length; i++) {
    hash ^= token.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash & 0x7fffffff
}

/** Tokens back to text: words joined by spaces, punctuation attached to the word before it. */
export function detokenize(tokens: readonly string[]): string {
  let out = ''
  for (const token of tokens) {
    const attach = out === '' || /^[.,;:!?)\]}]$/.test(token)
    out += attach ? token : ` ${token}`
  }
  return out
}
