import {exposureKnown, staleFindings, staleFindingsReason} from '../scope/unscanned.js'
import {InputError} from '../errors.js'
import type {CaseFacts} from './facts.js'
import type {IncidentRecord} from './incident.js'
import type {Outcome} from './assessment-store.js'
import {count} from '../util/plural.js'
import {noneFoundGaps} from './none-found.js'
import {EN} from './phrases-en.js'

// ENISA 2013 severity: SE = DPC x EI + CB (reference/enisa-severity.md). The score is
// advisory: the legal test is risk to rights and freedoms (Art. 33(1), 34(1)), and a low
// ENISA score did not protect Link4 from a fine (UODO). So the suggestion is shown with
// every input and why it was chosen, and only a human --decide is ever recorded.
//
// DPC is a base score for the category of data (simple 1, behavioural 2, financial 3,
// sensitive 4) adjusted for the context ENISA names (data volume per person, special
// characteristics of the individuals, public availability, invalidity of the data), each
// adjustment a whole step and DPC kept within 1-4. After scoring, ENISA asks to weigh the
// number of individuals and whether the data was unintelligible: both are explicit inputs
// here too. Every input says whether it was given or defaulted from the case, and why.

export const EI_LEVELS = [0.25, 0.5, 0.75, 1] as const
export const CB_LEVELS = [0, 0.25, 0.5] as const
/** ENISA's post-score criterion as calculators apply it: more than this many individuals weighs towards notification. */
export const MANY_INDIVIDUALS = 100

export interface SeverityInputs {
  /** DPC base score of the data category, 1-4 */
  dpc: number
  ei: number
  cb_confidentiality: number
  cb_integrity: number
  cb_availability: number
  malicious: boolean
}

/** The context adjustments and post-score criteria (ENISA 2013, DPC step 3 and the final criteria). */
export interface AdjustmentInputs {
  /** Art. 9/10 data in the breach (sets the default base to sensitive, 4) */
  special_categories: boolean
  /** children or other vulnerable data subjects: DPC +1 */
  vulnerable_subjects: boolean
  /** much data about each person (a detailed profile): DPC +1 */
  data_volume_high: boolean
  /** the data was already public: DPC -1 */
  public_data: boolean
  /** the data was invalid or inaccurate: DPC -1 */
  inaccurate_data: boolean
  /** the data was unintelligible to those who got it (e.g. encrypted, key safe) */
  unintelligible: boolean
  /** individuals affected (post-score criterion); null when not known */
  individuals: number | null
}

export type AssessInputs = SeverityInputs & AdjustmentInputs

export interface InputExplained {
  name: keyof AssessInputs
  value: number | boolean | null
  /** 'case record': from a fact recorded in the case (incident set), not assumed */
  source: 'case default' | 'case record' | 'given'
  why: string
}

export interface Severity {
  /** DPC after the adjustments */
  dpc: number
  dpc_base: number
  dpc_adjustments: Array<{factor: string; step: number}>
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
  /** A processor's case: whose decision the suggestion is (null for a controller, or with no incident) */
  role_note: string | null
  /** inputs given with a flag that contradict a fact recorded in the case (the flag's value is used; the record is not changed) */
  conflicts: string[]
}

const BANDS: Array<[number, Severity['band'], string]> = [
  [4, 'very high', 'individuals may encounter significant, or even irreversible, consequences'],
  [3, 'high', 'individuals may encounter significant consequences, which they should be able to overcome albeit with serious difficulties'],
  [2, 'medium', 'individuals may encounter significant inconveniences, which they will be able to overcome despite a few difficulties'],
  [-Infinity, 'low', 'individuals either will not be affected or may encounter a few inconveniences, which they will overcome without any problem'],
]

const ORDER: readonly Outcome[] = ['document', 'notify', 'notify-subjects']
const raise = (o: Outcome): Outcome => ORDER[Math.min(ORDER.length - 1, ORDER.indexOf(o) + 1)]!

const NO_ADJUSTMENTS: AdjustmentInputs = {special_categories: false, vulnerable_subjects: false, data_volume_high: false, public_data: false, inaccurate_data: false, unintelligible: false, individuals: null}

export function computeSeverity(inputs: SeverityInputs & Partial<AdjustmentInputs>): Severity {
  if (!Number.isInteger(inputs.dpc) || inputs.dpc < 1 || inputs.dpc > 4) throw new InputError(`--dpc must be a whole number from 1 to 4 (got ${inputs.dpc})`)
  if (!EI_LEVELS.includes(inputs.ei as (typeof EI_LEVELS)[number])) throw new InputError(`--ei must be one of ${EI_LEVELS.join(', ')} (got ${inputs.ei})`)
  for (const k of ['cb_confidentiality', 'cb_integrity', 'cb_availability'] as const) {
    if (!CB_LEVELS.includes(inputs[k] as (typeof CB_LEVELS)[number])) throw new InputError(`${k}: must be one of ${CB_LEVELS.join(', ')} (got ${inputs[k]})`)
  }
  const a = {...NO_ADJUSTMENTS, ...inputs}
  // ENISA Assessment Table 1: whole-step adjustments of the base score, DPC kept within 1-4.
  const adjustments: Array<{factor: string; step: number}> = []
  if (a.vulnerable_subjects) adjustments.push({factor: 'vulnerable data subjects (special characteristics of the individuals)', step: 1})
  if (a.data_volume_high) adjustments.push({factor: 'large volume of data about each person (detailed profile)', step: 1})
  if (a.public_data) adjustments.push({factor: 'data publicly available before the breach', step: -1})
  if (a.inaccurate_data) adjustments.push({factor: 'invalid or inaccurate data', step: -1})
  const dpc = Math.max(1, Math.min(4, inputs.dpc + adjustments.reduce((s, x) => s + x.step, 0)))
  const cb = inputs.cb_confidentiality + inputs.cb_integrity + inputs.cb_availability + (inputs.malicious ? 0.5 : 0)
  const se = Math.round((dpc * inputs.ei + cb) * 1000) / 1000
  const [, band, band_description] = BANDS.find(([min]) => se >= min)!
  return {dpc, dpc_base: inputs.dpc, dpc_adjustments: adjustments, ei: inputs.ei, cb, se, band, band_description}
}

/**
 * The suggestion from the severity and the post-score criteria:
 * - the band: low -> document, medium -> notify the authority, high or above -> also the data subjects;
 * - data unintelligible to whoever got it: a risk is unlikely (Art. 33(1)), so document (Art. 33(5)),
 *   unless its integrity or availability was lost beyond recovery (CB 0.5), then notify. Art. 34(3)(a)
 *   exempts only the communication to data subjects, not the notification to the authority;
 * - more than 100 individuals, with data actually exposed (some CB): one step more (ENISA asks
 *   to weigh the number of individuals; EDPB 9/2022 lists it among the risk factors);
 * - from a case: personal data that reached another organisation is never "document" (in doubt, notify).
 */
export function suggestOutcome(severity: Severity, inputs: AssessInputs, fromCase: {crossTenant: boolean; crossTenantUnknown?: boolean; individualsAtLeast?: boolean; unknownBecause?: string} = {crossTenant: false}): {suggested: Outcome; reasons: string[]} {
  const reasons = [`ENISA severity ${severity.se} (${severity.band}): ${severity.band_description}`]
  for (const adj of severity.dpc_adjustments) reasons.push(`DPC ${adj.step > 0 ? '+' : ''}${adj.step}: ${adj.factor}`)
  let suggested: Outcome = severity.se >= 3 ? 'notify-subjects' : severity.se >= 2 ? 'notify' : 'document'
  if (severity.se >= 3) reasons.push('high severity: likely high risk, so communicate to data subjects (Art. 34(1)) as well as notify the authority')
  else if (severity.se >= 2) reasons.push('medium severity: likely a risk, so notify the authority (Art. 33(1))')
  if (inputs.unintelligible) {
    const lost = inputs.cb_integrity >= 0.5 || inputs.cb_availability >= 0.5
    suggested = lost ? 'notify' : 'document'
    reasons.push(
      lost
        ? 'the data was unintelligible to whoever got it, but it was lost or altered beyond recovery: notify the authority'
        : 'the data was unintelligible to whoever got it and nothing was lost beyond recovery: a risk to individuals is unlikely, so the authority need not be notified (Art. 33(1)); document the breach (Art. 33(5)). Art. 34(3)(a) exempts only the communication to data subjects',
    )
  } else if (inputs.individuals !== null && inputs.individuals > MANY_INDIVIDUALS && inputs.cb_confidentiality + inputs.cb_integrity + inputs.cb_availability > 0) {
    const before = suggested
    suggested = raise(suggested)
    if (suggested !== before) reasons.push(`${fromCase.individualsAtLeast ? 'at least ' : ''}${inputs.individuals} individuals affected (more than ${MANY_INDIVIDUALS}): the number of individuals weighs one step towards notification`)
  }
  if (suggested === 'document' && (fromCase.crossTenant || fromCase.crossTenantUnknown)) {
    suggested = 'notify'
    reasons.push(
      `${fromCase.crossTenant ? 'personal data reached another organisation (cross-tenant)' : `whether personal data reached another organisation is not established (${fromCase.unknownBecause ?? 'the source of text some responses repeated is not known'})`}: notification can be skipped only if the risk is demonstrably unlikely (Recital 85); in doubt, notify (CNIL: "En cas de doute, notifiez")`,
    )
  }
  return {suggested, reasons}
}

/** Whether a leaking retry the case names carried another tenant's marker (cross-tenant, though in no figure). */
function retryCrossTenant(facts: CaseFacts | null | undefined): boolean {
  return facts?.scope ? (facts.retry_leaks ?? []).some((r) => r.class === 'cross_tenant') : false
}

/** What the case suggests for each input, with the reason shown to the assessor. */
export function defaultInputs(facts: CaseFacts | null): InputExplained[] {
  // Findings out of date (facts.stale_scope): the figures whose base is unchanged since the scan still stand (the markers' after provenance went stale, the verbatim text's after the registry changed).
  const standing = facts?.scope ? null : (facts?.stale_scope ?? null)
  // Over findings out of date, the personal data the scan attributed to another session stands (it rests on no marker); any other kind is not known, never "none".
  const standingKinds = standing?.pii_attributed_kinds ?? []
  const kinds = new Set(facts?.scope ? (facts.scope.categories ?? []).filter((c) => c.kind !== 'free_text' && c.count > 0).map((c) => c.kind) : standingKinds)
  const financial = kinds.has('iban') || kinds.has('card')
  const direct = kinds.has('email') || kinds.has('phone') || kinds.has('iban') || kinds.has('card')
  const crossTenant =
    (facts?.scope?.cross_tenant_responses ?? 0) > 0 || (facts?.scope?.exposure.flows ?? []).some((f) => f.source_tenant !== f.recipient_tenant) || (standing?.cross_tenant_responses ?? 0) > 0 || (standing?.provenance_cross_tenant_responses ?? 0) > 0 || retryCrossTenant(facts)
  // Text whose source is not established may be another organisation's: not "none found".
  const sourceNotNamed = facts?.scope?.exposure.source_not_named ?? 0
  // Of those, canary markers cut short (prefixes of several tenants' markers): a marker, not text.
  const markerNotNamed = Math.min(sourceNotNamed, facts?.scope?.exposure.marker_source_not_named ?? 0)
  // Personal data another session sent first, found by value in an answer with no marker or verbatim
  // text: another session's data disclosed all the same (ENISA: loss of confidentiality is access
  // by parties not authorised), so it counts as exposed, said with its basis.
  const piiOnly = facts?.scope?.pii_attributed_only_responses ?? 0
  const exposedByText = (facts?.scope?.exposure.responses ?? 0) > 0 || (standing?.contaminated_responses ?? 0) > 0 || (standing?.provenance_responses ?? 0) > 0
  const exposed = exposedByText || piiOnly > 0
  // No canary registry and marker-shaped tokens in answers (exposureKnown false): whose data they carry is not known, so a low bound of 0 with no high bound is no count of individuals.
  const orphansUnattributed = facts?.scope && !exposureKnown(facts.totals.registry_files > 0, facts.scope.orphan_sightings) ? facts.scope.orphan_sightings : 0
  const subjectsNotKnown = orphansUnattributed > 0 && facts!.scope!.data_subjects.high === null && facts!.scope!.data_subjects.low === 0
  const subjects = facts?.scope && !subjectsNotKnown ? (facts.scope.data_subjects.high ?? facts.scope.data_subjects.low) : null
  // "None found" is a finding only after a whole scan: on a case never scanned, or scanned in
  // part, each reason that rests on detection says so.
  // Findings a scan made that no longer cover the case give no scope (facts.ts): said for what they are, not as a case never scanned.
  const stale = facts ? staleFindingsReason(staleFindings(facts.detection)) : null
  // A scan over no log record searched nothing: said so, never as a case no scan ran on.
  const searchedNothing = facts?.detection.no_log_records === true && facts.detection.last_scan_at !== null
  const noScope = stale !== null ? `not known: ${stale} (crosstalk scan)` : searchedNothing ? 'not known: the case holds no log record, so the scan searched nothing (crosstalk ingest logs PATH; crosstalk scan)' : 'not known: the case has never been scanned (crosstalk scan)'
  const stands = [
    standing?.contaminated_responses ? `${count(standing.contaminated_responses, 'response')} with another session's canary marker (${standing.cross_tenant_responses ?? 0} cross-tenant)` : null,
    standing?.provenance_responses
      ? `${count(standing.provenance_responses, 'response')} repeating another session's text verbatim${standing.provenance_cross_tenant_responses === null ? '' : ` (${standing.provenance_cross_tenant_responses} cross-tenant)`}`
      : null,
    standingKinds.length > 0 ? `personal data sent first by another session (${standingKinds.join(', ')})` : null,
  ].filter((x) => x !== null)
  const unknown = !facts?.scope ? `${noScope}; ${stands.length > 0 ? `what stands, its base unchanged since the scan: ${stands.join(', ')}; so ` : 'until then '}` : !facts.detection.complete ? 'detection is incomplete (crosstalk scan), so among the records scanned so far: ' : ''
  const fromScan = (why: string): string => (unknown ? `${unknown}${why}` : why)
  // Without a scope, what the standing findings do not show is not known, never "none detected": the default is said as assumed until a scan.
  const notKnown = (what: string, assumed: string): string =>
    `${noScope}; ${stands.length > 0 ? `what stands, its base unchanged since the scan: ${stands.join(', ')}; ` : ''}whether ${what} is not known until then: ${assumed}`
  // "None found" speaks only for what detection examined (none-found.ts): what it did not is named with it.
  const notCovered = facts?.scope && !exposed ? noneFoundGaps(facts, EN).map((g) => g.statement) : []
  // A retry logged under a counted request id whose answer carried another session's marker was served: a disclosure the case names, though no figure counts it.
  const retries = facts?.scope ? (facts.retry_leaks ?? []).length : 0
  const retryServed = !exposed && retries > 0
  const noneFound = (why: string): string => (notCovered.length > 0 ? `${why}, among what was examined only; not examined: ${notCovered.join(' ')} Set --cb-confidentiality once they are reviewed` : why)
  const inputs: InputExplained[] = [
    {
      name: 'dpc',
      value: financial ? 3 : 1,
      source: 'case default',
      why: financial
        ? fromScan('financial data (IBAN / card numbers) found in leaked content: ENISA "financial" base score 3; raise it for health, Art. 9 or similar data (the detectors do not classify free text)')
        : !facts?.scope
          ? notKnown('leaked content held financial data', 'ENISA "simple" base score 1 assumed. Leaked prompts are free text and may hold anything: read a sample and set the base for what they held (behavioural 2, financial 3, sensitive 4)')
          : fromScan('no financial data detected: ENISA "simple" base score 1. Leaked prompts are free text and may hold anything: read a sample and set the base for what they held (behavioural 2, financial 3, sensitive 4)'),
    },
    {
      name: 'special_categories',
      value: false,
      source: 'case default',
      why: 'the detectors find identifiers, not Art. 9/10 data in free text: set --special-categories if the leaked content held any (then the default base is 4)',
    },
    {name: 'vulnerable_subjects', value: false, source: 'case default', why: 'not known from the logs: set --vulnerable-subjects if the affected users include children or other vulnerable people (DPC +1)'},
    {name: 'data_volume_high', value: false, source: 'case default', why: 'each leak is a span of one conversation, not a profile: set --data-volume high if whole histories leaked (DPC +1)'},
    {name: 'public_data', value: false, source: 'case default', why: 'conversations are not public: set --public-data only if the leaked content was already public (DPC -1)'},
    {name: 'inaccurate_data', value: false, source: 'case default', why: 'not known from the logs (DPC -1 when the data was invalid or inaccurate)'},
    {
      name: 'ei',
      value: direct ? 1 : 0.5,
      source: 'case default',
      why: direct
        ? fromScan('direct identifiers (e-mail, phone, IBAN or card number) present in leaked content: identification needs no research (maximum, 1)')
        : !facts?.scope
          ? notKnown('leaked content held direct identifiers', 'limited (0.5) assumed; leaked free text may identify people in context: set --ei once it is reviewed')
          : fromScan('no direct identifiers detected; leaked free text may still identify people in context (limited, 0.5)'),
    },
    {
      name: 'cb_confidentiality',
      value: exposed || retryServed ? 0.25 : 0,
      source: 'case default',
      why: exposed
        ? fromScan(`${exposedByText ? '' : `${count(piiOnly, 'response')} carried personal data another session sent first (matched by value, no canary marker or verbatim text: crosstalk pii), taken as disclosed; `}disclosed to known, limited recipients (the receiving tenants are identified in the logs): +0.25. Use 0.5 if the receiving applications showed responses to an unknown number of end users (e.g. a public chatbot)`)
        : !facts?.scope
          ? notKnown("a response carried another session's data", '0 assumed: set --cb-confidentiality once it is known')
          : retryServed
            ? fromScan(`${count(retries, 'retry', 'retries')} logged under a request id already counted carried another session's canary marker and ${retries === 1 ? 'was' : 'were'} served, though no figure of the scope counts ${retries === 1 ? 'it' : 'them'} (see the open items): disclosed to known, limited recipients: +0.25. Use 0.5 if the receiving applications showed responses to an unknown number of end users (e.g. a public chatbot)`)
            : fromScan(noneFound('no response carrying another session\'s data found: 0')),
    },
    {
      name: 'cb_integrity',
      value: crossTenant || sourceNotNamed > 0 ? 0.25 : 0,
      source: 'case default',
      why:
        !crossTenant && sourceNotNamed === 0 && !facts?.scope
          ? notKnown("another organisation's responses were corrupted with foreign content", '0 assumed: set --cb-integrity once it is known')
          : fromScan(
              crossTenant
                ? "recipients' responses were corrupted with foreign content and may have been acted on, recoverable: +0.25"
                : sourceNotNamed > 0
                  ? `${notNamedResponses(sourceNotNamed - markerNotNamed, markerNotNamed)}, so cross-tenant corruption cannot be ruled out; taken as recipients' responses corrupted with foreign content, recoverable: +0.25`
                  : 'no cross-tenant corruption of responses found: 0',
            ),
    },
    {name: 'cb_availability', value: 0, source: 'case default', why: 'no data was lost or made unavailable: 0'},
    {name: 'malicious', value: false, source: 'case default', why: 'a serving bug (non-malicious) unless someone is found to have exploited it'},
    unintelligibleInput(facts?.incident?.data_unintelligible ?? null),
    {
      name: 'individuals',
      value: subjects,
      source: 'case default',
      why:
        subjectsNotKnown
          ? fromScan(`not known: ${count(orphansUnattributed, 'marker-shaped token')} found in answers could not be attributed to any session (the case holds no canary registry) and verbatim text shows no session's data reaching another; set --individuals if you know the number (crosstalk ingest canaries FILE, then crosstalk scan)`)
          : subjects === null
          ? noScope
          : facts!.scope!.data_subjects.high === null
            ? fromScan(`the scope's LOW bound (${count(subjects, 'session')}), because its high bound is not known (${facts!.scope!.pool_tokens === null ? 'it needs the KV pool size: scan --pool-tokens' : 'no record gives both its HTTP status and its prompt size'}): at least ${count(subjects, 'individual')}, maybe more${orphansUnattributed > 0 ? ` (by verbatim text; what the ${count(orphansUnattributed, 'unattributed marker-shaped token')} in answers carry is not known: no canary registry)` : ''}; set --individuals if you know the number`)
            : facts!.detection.complete
              ? `the scope's high bound of the number of data subjects (${facts!.scope!.data_subjects.low} to ${subjects})`
              // The high bound reads every record ingested, scanned or not: not "among the records scanned".
              : `the scope's high bound of the number of data subjects (${facts!.scope!.data_subjects.low} to ${subjects}), over every record ingested, scanned or not; detection is incomplete (crosstalk scan), so the low bound counts only what was found in the records scanned so far`,
    },
  ]
  return inputs
}

const RECORD_UNINTELLIGIBLE = 'crosstalk incident set --data-unintelligible protection-intact|protection-likely-subvertible|no|cannot-assess'

/**
 * Whether the data was unintelligible to whoever got it, from the incident's recorded fact
 * (Art. 34(3)(a); EDPB template 57). Only protection recorded as intact makes it so; not
 * recorded, or recorded as not assessable, it is assumed (source 'case default', which the
 * drafts list as an open item), never a finding.
 */
function unintelligibleInput(recorded: IncidentRecord['data_unintelligible'] | null): InputExplained {
  const name = 'unintelligible'
  if (recorded === null) return {name, value: false, source: 'case default', why: `not recorded in the case (${RECORD_UNINTELLIGIBLE}): assumed intelligible until it is`}
  if (recorded === 'cannot-assess') return {name, value: false, source: 'case default', why: 'recorded as not assessable (incident set --data-unintelligible cannot-assess): assumed intelligible until it can be assessed'}
  const why = {
    'protection-intact': 'recorded: its protection (encryption or pseudonymisation) is intact (incident set --data-unintelligible protection-intact)',
    'protection-likely-subvertible': 'recorded: its protection is likely to be subverted, so it is not unintelligible (incident set --data-unintelligible protection-likely-subvertible)',
    no: 'recorded: it was intelligible (incident set --data-unintelligible no)',
  }[recorded]
  return {name, value: recorded === 'protection-intact', source: 'case record', why}
}

export interface AssessOptions {
  overrides: Partial<AssessInputs>
  /** reasons the assessor gave for inputs (name -> reason), kept with the decision */
  reasons?: Partial<Record<keyof AssessInputs, string>>
  decide?: {outcome: Outcome; rationale: string; decidedBy?: string}
  now: Date
}

/** Pure: the severity, the suggestion and (when a human decided) the decision to record. */
export function planAssessment(facts: CaseFacts | null, options: AssessOptions): AssessResult {
  const overrides = {...options.overrides}
  // Special categories make sensitive the default base, unless the assessor set the base.
  if (overrides.special_categories && overrides.dpc === undefined) overrides.dpc = 4
  const conflicts: string[] = []
  const inputs = defaultInputs(facts).map((i) => {
    const given = overrides[i.name]
    if (given === undefined) return i
    const reason = options.reasons?.[i.name]
    // A flag against a recorded fact is used as given, and the disagreement is said, never settled silently.
    if (i.source === 'case record' && given !== i.value) {
      conflicts.push(`${i.name}: given as ${String(given)}, but the case records ${String(i.value)} (${i.why}); the given value is used: correct the record or the flag`)
      return {...i, value: given, source: 'given' as const, why: `${reason ? `${reason} ` : ''}(set by the assessor, contradicting the case record ${String(i.value)}: ${i.why})`}
    }
    return {...i, value: given, source: 'given' as const, why: `${reason ? `${reason} ` : ''}(set by the assessor; ${i.source === 'case record' ? 'case record' : 'case default'} ${String(i.value)}: ${i.why})`}
  })
  const get = <K extends keyof AssessInputs>(k: K): AssessInputs[K] => inputs.find((i) => i.name === k)!.value as AssessInputs[K]
  const all: AssessInputs = {
    dpc: get('dpc'),
    ei: get('ei'),
    cb_confidentiality: get('cb_confidentiality'),
    cb_integrity: get('cb_integrity'),
    cb_availability: get('cb_availability'),
    malicious: get('malicious'),
    special_categories: get('special_categories'),
    vulnerable_subjects: get('vulnerable_subjects'),
    data_volume_high: get('data_volume_high'),
    public_data: get('public_data'),
    inaccurate_data: get('inaccurate_data'),
    unintelligible: get('unintelligible'),
    individuals: get('individuals'),
  }
  const severity = computeSeverity(all)
  // A cross-tenant count (markers' or verbatim text's) whose base is unchanged since the scan stands where the findings are otherwise out of date.
  const crossTenant =
    (facts?.scope?.exposure.flows ?? []).some((f) => f.source_tenant !== f.recipient_tenant) ||
    (!facts?.scope && ((facts?.stale_scope?.cross_tenant_responses ?? 0) > 0 || (facts?.stale_scope?.provenance_cross_tenant_responses ?? 0) > 0)) ||
    retryCrossTenant(facts)
  // A source not established may be another organisation: in doubt, weighed as one, and said so.
  const crossTenantUnknown = !crossTenant && (facts?.scope?.exposure.source_not_named ?? 0) > 0
  // Why it is not known, as the exposure records it: text several tenants' prompts hold, or a marker cut short of several tenants' markers.
  const markerUnnamed = facts?.scope?.exposure.marker_source_not_named ?? 0
  const textUnnamed = (facts?.scope?.exposure.source_not_named ?? 0) - markerUnnamed
  const unknownBecause = [textUnnamed > 0 ? 'the source of text some responses repeated is not known' : '', markerUnnamed > 0 ? "a canary marker cut short is a prefix of several tenants' markers, so whose it is is not known" : ''].filter((x) => x !== '').join('; ')
  // The default number of individuals is a lower bound where the scope has no high bound: said so wherever it is used.
  const individualsAtLeast = inputs.find((i) => i.name === 'individuals')!.source === 'case default' && facts?.scope?.data_subjects.high === null
  const {suggested, reasons} = suggestOutcome(severity, all, {crossTenant, crossTenantUnknown, individualsAtLeast, ...(unknownBecause ? {unknownBecause} : {})})
  // Over findings out of date the suggestion rests on what still stands: said so, as it may change after a scan.
  if (!facts?.scope && facts?.stale_scope) reasons.push(`the scope is not known until a scan (${staleFindingsReason(staleFindings(facts.detection))}): this suggestion rests on the figures that still stand and may change after crosstalk scan`)
  // Nothing found is no finding over what was not examined (none-found.ts): the suggestion says it rests on what was.
  // A leaking retry is a response served: never "none found", whatever the figures count.
  if (facts?.scope && facts.scope.exposure.responses === 0 && (facts.retry_leaks ?? []).length > 0) {
    reasons.push(`no figure of the scope counts a response carrying another session's data, yet ${count(facts.retry_leaks!.length, 'retry', 'retries')} logged under a request id already counted carried another session's canary marker and ${facts.retry_leaks!.length === 1 ? 'was' : 'were'} served (see the open items): this suggestion weighs ${facts.retry_leaks!.length === 1 ? 'it' : 'them'} as disclosed`)
  } else if (facts?.scope && facts.scope.exposure.responses === 0 && (facts.scope.pii_attributed_only_responses ?? 0) === 0 && noneFoundGaps(facts, EN).length > 0) {
    reasons.push('no response carrying another session\'s data was found among what detection examined, and not everything was examined (cb_confidentiality names what was not): this suggestion may change once it is reviewed')
  }
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
    // Notifying the authority and the data subjects is each controller's duty (Art. 33(1), 34(1)); a processor notifies the controllers (Art. 33(2)).
    role_note:
      facts?.incident?.role === 'processor'
        ? "As processor, notifying the authority and the data subjects is each controller's decision (Art. 33(1), 34(1)); this assessment can inform the controllers. Your own duty is to notify each of them without undue delay (Art. 33(2): crosstalk report processor-notice)."
        : null,
    conflicts,
  }
}

/** "2 responses repeat text whose source is not established and 1 holds a canary marker cut short whose source tenant is not established". */
function notNamedResponses(text: number, marker: number): string {
  const parts = [
    text > 0 ? `${text} ${text === 1 ? 'response repeats' : 'responses repeat'} text whose source is not established` : '',
    marker > 0 ? `${marker} ${marker === 1 ? 'response holds' : 'responses hold'} a canary marker cut short whose source tenant is not established (a prefix of several tenants' markers)` : '',
  ].filter((x) => x !== '')
  return parts.join(' and ')
}
