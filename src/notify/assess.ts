import {InputError} from '../errors.js'
import type {CaseFacts} from './facts.js'
import type {Outcome} from './assessment-store.js'

// ENISA 2013 severity: SE = DPC x EI + CB (reference/enisa-severity.md). The score is
// advisory: the legal test is risk to rights and freedoms (Art. 33(1), 34(1)), and a low
// ENISA score did not protect Link4 from a fine (UODO). So the suggestion is shown with
// every input and why it was chosen, and only a human --decide is ever recorded.

export const EI_LEVELS = [0.25, 0.5, 0.75, 1] as const
export const CB_LEVELS = [0, 0.25, 0.5] as const

export interface SeverityInputs {
  dpc: number
  ei: number
  cb_confidentiality: number
  cb_integrity: number
  cb_availability: number
  malicious: boolean
}

export interface InputExplained {
  name: keyof SeverityInputs
  value: number | boolean
  source: 'case default' | 'given'
  why: string
}

export interface Severity {
  dpc: number
  ei: number
  cb: number
  se: number
  band: 'low' | 'medium' | 'high' | 'very high'
  band_description: string
}

/** `crosstalk assess --json` */
export interface AssessResult {
  inputs: InputExplained[]
  severity: Severity
  suggested: Outcome
  suggestion_reasons: string[]
  decision: {outcome: Outcome; rationale: string; decided_by: string | null; at: string} | null
  note: string
}

const BANDS: Array<[number, Severity['band'], string]> = [
  [4, 'very high', 'individuals may encounter significant, or even irreversible, consequences'],
  [3, 'high', 'individuals may encounter significant consequences, which they should be able to overcome albeit with serious difficulties'],
  [2, 'medium', 'individuals may encounter significant inconveniences, which they will be able to overcome despite a few difficulties'],
  [-Infinity, 'low', 'individuals either will not be affected or may encounter a few inconveniences, which they will overcome without any problem'],
]

export function computeSeverity(inputs: SeverityInputs): Severity {
  if (!(inputs.dpc >= 1 && inputs.dpc <= 4)) throw new InputError(`--dpc must be between 1 and 4 (got ${inputs.dpc})`)
  if (!EI_LEVELS.includes(inputs.ei as (typeof EI_LEVELS)[number])) throw new InputError(`--ei must be one of ${EI_LEVELS.join(', ')} (got ${inputs.ei})`)
  for (const k of ['cb_confidentiality', 'cb_integrity', 'cb_availability'] as const) {
    if (!CB_LEVELS.includes(inputs[k] as (typeof CB_LEVELS)[number])) throw new InputError(`${k}: must be one of ${CB_LEVELS.join(', ')} (got ${inputs[k]})`)
  }
  const cb = inputs.cb_confidentiality + inputs.cb_integrity + inputs.cb_availability + (inputs.malicious ? 0.5 : 0)
  const se = Math.round((inputs.dpc * inputs.ei + cb) * 1000) / 1000
  const [, band, band_description] = BANDS.find(([min]) => se >= min)!
  return {dpc: inputs.dpc, ei: inputs.ei, cb, se, band, band_description}
}

/** What the case suggests for each input, with the reason shown to the assessor. */
export function defaultInputs(facts: CaseFacts): InputExplained[] {
  const kinds = new Set((facts.scope?.categories ?? []).filter((c) => c.kind !== 'free_text' && c.count > 0).map((c) => c.kind))
  const financial = kinds.has('iban') || kinds.has('card')
  const dpc = financial ? 3 : 1
  const direct = kinds.has('email') || kinds.has('phone') || kinds.has('iban') || kinds.has('card')
  const crossTenant = (facts.scope?.cross_tenant_responses ?? 0) > 0
  return [
    {
      name: 'dpc',
      value: dpc,
      source: 'case default',
      why: financial
        ? 'financial data (IBAN / card numbers) found in leaked content: ENISA "financial" base score 3. Raise to 4 if the leaked prompts held health, Art. 9 or similar data; the detectors do not classify free text'
        : 'no financial or special-category data detected: ENISA "simple" base score 1. Leaked prompts are free text and may hold anything: read a sample and raise it if they held behavioural (2), financial (3) or sensitive (4) data',
    },
    {
      name: 'ei',
      value: direct ? 1 : 0.5,
      source: 'case default',
      why: direct
        ? 'direct identifiers (e-mail, phone, IBAN or card number) present in leaked content: identification needs no research (maximum, 1)'
        : 'no direct identifiers detected; leaked free text may still identify people in context (limited, 0.5)',
    },
    {
      name: 'cb_confidentiality',
      value: crossTenant ? 0.25 : facts.scope && facts.scope.contaminated_responses > 0 ? 0.25 : 0,
      source: 'case default',
      why: 'disclosed to known, limited recipients (the receiving tenants are identified in the logs): +0.25. Use 0.5 if the receiving applications showed responses to an unknown number of end users (e.g. a public chatbot)',
    },
    {
      name: 'cb_integrity',
      value: crossTenant ? 0.25 : 0,
      source: 'case default',
      why: crossTenant
        ? "recipients' responses were corrupted with foreign content and may have been acted on, recoverable: +0.25"
        : 'no cross-tenant corruption of responses found: 0',
    },
    {name: 'cb_availability', value: 0, source: 'case default', why: 'no data was lost or made unavailable: 0'},
    {name: 'malicious', value: false, source: 'case default', why: 'a serving bug (non-malicious) unless someone is found to have exploited it'},
  ]
}

export function suggestOutcome(severity: Severity, facts: CaseFacts): {suggested: Outcome; reasons: string[]} {
  const reasons = [`ENISA severity ${severity.se} (${severity.band}): ${severity.band_description}`]
  let suggested: Outcome = severity.se >= 3 ? 'notify-subjects' : severity.se >= 2 ? 'notify' : 'document'
  if (severity.se >= 3) reasons.push('high severity: likely high risk, so communicate to data subjects (Art. 34(1)) as well as notify the authority')
  else if (severity.se >= 2) reasons.push('medium severity or above: practitioner convention treats this as notifiable (Art. 33(1))')
  const subjects = facts.scope ? (facts.scope.data_subjects.high ?? facts.scope.data_subjects.low) : 0
  if (suggested === 'document' && (facts.scope?.cross_tenant_responses ?? 0) > 0) {
    suggested = 'notify'
    reasons.push(
      'personal data reached another organisation (cross-tenant): notification can be skipped only if the risk is demonstrably unlikely (Recital 85); in doubt, notify (CNIL: "En cas de doute, notifiez")',
    )
  }
  if (subjects > 100) reasons.push(`more than 100 people possibly affected (up to ${subjects}): ENISA asks to weigh the number of individuals`)
  return {suggested, reasons}
}

export interface AssessOptions {
  overrides: Partial<SeverityInputs>
  decide?: {outcome: Outcome; rationale: string; decidedBy?: string}
  now: Date
}

/** Pure: the severity, the suggestion and (when a human decided) the decision to record. */
export function planAssessment(facts: CaseFacts, options: AssessOptions): AssessResult {
  const inputs = defaultInputs(facts).map((i) => {
    const given = options.overrides[i.name]
    return given === undefined ? i : {...i, value: given, source: 'given' as const, why: `set by the assessor (case default was ${i.value}: ${i.why})`}
  })
  const get = <K extends keyof SeverityInputs>(k: K): SeverityInputs[K] => inputs.find((i) => i.name === k)!.value as SeverityInputs[K]
  const severity = computeSeverity({
    dpc: get('dpc'),
    ei: get('ei'),
    cb_confidentiality: get('cb_confidentiality'),
    cb_integrity: get('cb_integrity'),
    cb_availability: get('cb_availability'),
    malicious: get('malicious'),
  })
  const {suggested, reasons} = suggestOutcome(severity, facts)
  const decide = options.decide
  if (decide && !decide.rationale.trim()) throw new InputError('--decide needs --rationale: the register must show why (Art. 33(5))')
  return {
    inputs,
    severity,
    suggested,
    suggestion_reasons: reasons,
    decision: decide ? {outcome: decide.outcome, rationale: decide.rationale.trim(), decided_by: decide.decidedBy ?? null, at: options.now.toISOString()} : null,
    note: decide
      ? decide.outcome === suggested
        ? 'Decision recorded; it agrees with the suggestion.'
        : `Decision recorded; it differs from the suggestion (${suggested}), and the rationale is kept.`
      : 'Suggestion only: nothing recorded. Record a decision with --decide notify|document|notify-subjects --rationale TEXT.',
  }
}
