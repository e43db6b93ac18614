import {z} from 'zod'

// The rule every draft, notice and register entry is built under: each statement rests on a
// recorded fact, or the document shows an open item ("to be completed: ...") in its place.
// Builders never write a sentence directly; they call `stated` (with the facts it rests on)
// or `open`, and `assertGrounded` refuses a document in which a statement of a measure, a
// notification, a decision or a cause rests on anything but what was recorded for it.
//
// A basis is a short reference to a recorded fact:
//   incident.<field>    a field recorded by `incident open` / `incident set` (incident.measures_taken, incident.cause, ...)
//   notification#<id>   a notification recorded by `notify record`
//   assessment#<id>     a risk decision recorded by `assess --decide`
//   replay_run#<id>     a replay run recorded by `replay`
//   scan.<what>         what detection recorded over the ingested evidence: scan.exposure (sightings and
//                       provenance together), scan.sightings, scan.provenance, scan.pii_findings, scan.at_risk,
//                       scan.duplicate_leaks (a later line of a counted request id, read again and classified)
//   evidence.files      the evidence files and their SHA-256 (ingest)
//   clock               the deadline computed from incident.aware_at and the notifications
//   rule:<citation>     not a fact of the case but the law or guidance the sentence states (Art. 34(2), Recital 86, ...)

export const basisSchema = z.string().regex(/^(incident\.[a-z_]+|notification#\d+|assessment#\d+|replay_run#\d+|scan\.[a-z_]+|evidence\.files|clock|rule:.+)$/)

export const statementSchema = z.object({
  section: z.string(),
  text: z.string(),
  rests_on: z.array(basisSchema).min(1),
})

export const openItemSchema = z.object({
  section: z.string(),
  item: z.string(),
  /** the article or form row it answers */
  ref: z.string(),
  /** how to record it (a crosstalk command), when crosstalk can: for the sender, never shown in a final document */
  record_with: z.string().nullable(),
  /**
   * the line the document shows for it: a draft's "to be completed: ..." with what records it; a final
   * document's "not yet known: ...; it will be provided ..." with no command (set on every document's
   * items; absent from an E_OPEN_ITEMS error's details)
   */
  text: z.string().optional(),
})

export type Basis = z.infer<typeof basisSchema>
export type Statement = z.infer<typeof statementSchema>
export type OpenItem = z.infer<typeof openItemSchema>

/** Sections whose statements may rest only on what was recorded for them (issue 14). */
export const RECORDED_ONLY: Record<string, RegExp> = {
  measures_taken: /^(incident\.measures_taken|notification#\d+)$/,
  measures_proposed: /^incident\.measures_proposed$/,
  containment: /^(incident\.measures_taken|incident\.measures_proposed)$/,
  notifications: /^notification#\d+$/,
  decision: /^assessment#\d+$/,
  article34: /^(assessment#\d+|notification#\d+)$/,
  cause: /^(incident\.cause|incident\.cause_category|replay_run#\d+)$/,
}

/** Collects a document's statements and open items in order. */
export class Lines {
  readonly statements: Statement[] = []
  readonly open_items: OpenItem[] = []

  stated(section: string, text: string, restsOn: Basis[]): string {
    this.statements.push({section, text, rests_on: restsOn})
    return text
  }

  open(section: string, item: string, ref: string, recordWith: string | null = null): OpenItem {
    const o = {section, item, ref, record_with: recordWith}
    this.open_items.push(o)
    return o
  }

  /** The texts of one section's statements. */
  texts(section: string): string[] {
    return this.statements.filter((s) => s.section === section).map((s) => s.text)
  }

  openIn(section: string): OpenItem[] {
    return this.open_items.filter((o) => o.section === section)
  }
}

export class UngroundedStatement extends Error {}

/**
 * Throws when a statement rests on nothing, or a statement of a measure, a notification, a
 * decision or a cause rests on something other than the fact recorded for it. A bug, not a
 * user error: it means a builder tried to state what the case does not hold.
 */
export function assertGrounded(statements: readonly Statement[]): void {
  for (const s of statements) {
    if (s.rests_on.length === 0) throw new UngroundedStatement(`statement rests on nothing: ${s.text.slice(0, 120)}`)
    const rule = RECORDED_ONLY[s.section]
    if (rule && !s.rests_on.some((b) => rule.test(b))) {
      throw new UngroundedStatement(`a ${s.section} statement must rest on what was recorded for it, not on ${s.rests_on.join(', ')}: ${s.text.slice(0, 120)}`)
    }
  }
}

/** Joins list items into one line without stacking punctuation (no ".;"). */
export function joinItems(items: readonly string[], separator = '; '): string {
  return items.map((s) => s.trim().replace(/[.;]+$/, '')).filter(Boolean).join(separator)
}

/** Recorded text set as a sentence of its own in prose: a capital first, a stop at the end. */
export function asSentence(text: string): string {
  const t = text.trim()
  if (!t) return t
  const head = t.charAt(0).toUpperCase() + t.slice(1)
  return /[.!?…]$/.test(head) ? head : `${head}.`
}

/** "a; b\nc" -> ["a", "b", "c"]: the way list fields are recorded with incident set. */
export function splitList(text: string | null | undefined): string[] {
  return (text ?? '')
    .split(/;|\n/)
    .map((s) => s.trim())
    .filter(Boolean)
}
