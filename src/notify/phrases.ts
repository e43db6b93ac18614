import {EN, type Phrases} from './phrases-en.js'
import {FR} from './phrases-fr.js'
import type {Language} from './labels.js'

// One phrase table per language (phrases-en.ts, phrases-fr.ts), the same keys in each; the
// category labels are in labels.ts. A document is written in one language from end to end.

export {CATEGORY_LABELS, categoryLabel, type Language} from './labels.js'
export type {Phrases} from './phrases-en.js'

export const LANGUAGES = ['en', 'fr'] as const

export const PHRASES: Record<Language, Phrases> = {en: EN, fr: FR}

/** "7 to 19", "7", or "at least 7 (upper bound not yet known)"; `approx` adds the word. */
export function formatRange(r: {low: number; high: number | null} | null, lang: Language, unknown: string, approx = false): string {
  return r ? PHRASES[lang].range(r, approx) : unknown
}
