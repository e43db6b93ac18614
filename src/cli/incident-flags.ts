import {Flags} from '@oclif/core'
import {UsageError} from '../errors.js'
import {hasText, INCIDENT_CHOICE_FIELDS, INCIDENT_INTEGER_FIELDS, INCIDENT_TEXT_FIELDS, INCIDENT_TIME_FIELDS, type IncidentPatch} from '../notify/incident.js'
import {parseInstant} from '../notify/time.js'

// The optional incident fields as flags, shared by `incident open` and `incident set`.
// Flag names are the column names in kebab-case (--controller-name, --detected-at, ...).
// Numbers in brackets are the rows of the draft EDPB common notification template: every
// item of the authorities' forms is either a flag here or computed from the evidence.

const HELP: Record<string, string> = {
  awareness_basis: 'Why the controller is "aware" at --aware-at (EDPB 9/2022: reasonable certainty).',
  awareness_decided_by: 'Who decided the awareness time.',
  discovery: 'How the breach was discovered, and by whom [50-51].',
  controller_name: 'Controller (organisation) name [12].',
  controller_contact: 'Controller contact details [13].',
  processor_name: 'Processor involved (e.g. the LLM API provider) [38-41].',
  dpo_name: 'Name of the designated data protection officer (Art. 37, 33(3)(b)) [29-30]: drafts then answer "Is a DPO designated?" yes. A contact point that is not a DPO: --dpo-contact alone (drafts leave field 29 and its name open).',
  dpo_contact: 'DPO / contact point e-mail or phone [31].',
  lead_authority: 'Lead supervisory authority (e.g. "DPC (Ireland)") [114].',
  countries: 'Countries of affected data subjects, comma-separated [116].',
  systems: 'Systems, services and locations involved [63].',
  measures_taken: 'Measures taken to address the breach and mitigate its effects (Art. 33(3)(d)) [92]; separate items with ";".',
  measures_proposed: 'Measures proposed, incl. preventive ones [94-95]; separate items with ";".',
  internal_reference: "Controller's internal reference for the incident [7].",
  cause: 'Description and root cause of the breach, once established [62].',
  cause_category: 'Cause [61]: internal or external, malicious or not, or unknown.',
  reporting_person: 'Person reporting the breach: name and contact [21-22].',
  reporting_person_role: 'Function of the reporting person (DPO, legal representative, ...) [23-24].',
  sector: 'Sector of the controller [14].',
  organisation_size: 'Size of the controller [15-16].',
  economic_activity: 'Economic activity of the controller, e.g. a NACE code [17].',
  eea_representative: 'Art. 27 representative (name and contact) if the controller is not established in the EEA, or "not applicable" [18-19].',
  informed_by: 'Who told the controller about the breach (processor, data subject, researcher, press ...) [50-51].',
  informed_at: 'When another party told the controller (ISO with zone) [52].',
  measures_before: 'Protection in place before the breach (encryption, pseudonymisation, access control ...) [75-76].',
  police_report: 'Reported to police or judicial authorities? (e.g. "no: not a criminal act") [109].',
  other_authorities: 'Other authorities notified (CSIRT, sector regulator), with case ids, or "none" [110-111].',
  establishment_countries: 'Countries where the controller is established [115].',
  subjects_per_country: 'Number of data subjects per country, e.g. "FR 12; DE 3" [117].',
  authorities_notified: 'Supervisory authorities notified [118].',
  delay_reason: 'Reasons for notifying later than 72 hours (Art. 33(1)) [49].',
  controller_deadline_hours: 'As processor: the notice period to each controller your contract sets (Art. 28(3)(f)), in hours; without it, "without undue delay" (Art. 33(2)).',
  cross_border: 'Is the processing cross-border (Art. 4(23): establishments in more than one Member State, or data subjects substantially affected in more than one)? [113] It decides whether the lead authority of the one-stop shop (Art. 56) is notified.',
  data_unintelligible: 'Was the exposed data unintelligible to whoever received it (encryption or pseudonymisation still effective)? [57] Only "protection-intact" grounds Art. 34(3)(a).',
  detected_at: 'When the first alert or report arrived (ISO with zone).',
  investigation_started_at: 'When the short investigation started (ISO with zone).',
  breach_started_at: 'When the breach started (ISO with zone), if known [46].',
  breach_ended_at: 'When the breach ended (ISO with zone), if known [47].',
}

const kebab = (s: string): string => s.replace(/_/g, '-')

export const incidentFieldFlags = {
  ...Object.fromEntries(INCIDENT_TEXT_FIELDS.map((f) => [kebab(f), Flags.string({description: HELP[f], helpGroup: 'INCIDENT'})])),
  ...Object.fromEntries(INCIDENT_TIME_FIELDS.map((f) => [kebab(f), Flags.string({description: HELP[f], helpValue: 'ISO', helpGroup: 'INCIDENT'})])),
  ...Object.fromEntries(Object.entries(INCIDENT_CHOICE_FIELDS).map(([f, options]) => [kebab(f), Flags.string({description: HELP[f], options: [...options], helpGroup: 'INCIDENT'})])),
  ...Object.fromEntries(INCIDENT_INTEGER_FIELDS.map((f) => [kebab(f), Flags.integer({description: HELP[f], min: 1, max: 168, helpGroup: 'INCIDENT'})])),
  'next-update': Flags.string({
    description: 'When our next update (follow-up notice) will be sent (ISO with zone; not in the past), Art. 33(4): the processor notices state it; without it they list it as an open item.',
    helpValue: 'ISO',
    helpGroup: 'INCIDENT',
    // the column's name, as every other incident flag is named (incident open lists unset fields so)
    aliases: ['next-update-at'],
  }),
} as Record<string, ReturnType<typeof Flags.string>>

/** Parsed flag values -> an incident patch (times parsed, zone required). */
export function incidentPatchFromFlags(flags: Record<string, unknown>): IncidentPatch {
  const patch: Record<string, unknown> = {}
  for (const f of [...INCIDENT_TEXT_FIELDS, ...Object.keys(INCIDENT_CHOICE_FIELDS)]) {
    const v = flags[kebab(f)]
    // A value the documents would read as no item at all (";", white space) records nothing: refused, naming the flag.
    if (typeof v === 'string' && (INCIDENT_TEXT_FIELDS as readonly string[]).includes(f) && !hasText(v)) {
      throw new UsageError(`--${kebab(f)}: ${v.trim() === '' ? 'empty' : 'holds nothing but the item separator ";"'}: give the text (separate items with ";")`, 'E_EMPTY_VALUE')
    }
    if (typeof v === 'string') patch[f] = v
  }
  for (const f of INCIDENT_INTEGER_FIELDS) {
    const v = flags[kebab(f)]
    if (typeof v === 'number') patch[f] = v
  }
  for (const f of INCIDENT_TIME_FIELDS) {
    const v = flags[kebab(f)]
    if (typeof v === 'string') patch[f] = parseInstant(v, `--${kebab(f)}`)
  }
  if (typeof flags['next-update'] === 'string') patch.next_update_at = parseInstant(flags['next-update'], '--next-update')
  return patch as IncidentPatch
}
