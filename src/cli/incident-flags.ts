import {Flags} from '@oclif/core'
import {INCIDENT_TEXT_FIELDS, INCIDENT_TIME_FIELDS, type IncidentPatch} from '../notify/incident.js'
import {parseInstant} from '../notify/time.js'

// The optional incident fields as flags, shared by `incident open` and `incident set`.
// Flag names are the column names in kebab-case (--controller-name, --detected-at, ...).

const HELP: Record<string, string> = {
  awareness_basis: 'Why the controller is "aware" at --aware-at (EDPB 9/2022: reasonable certainty).',
  awareness_decided_by: 'Who decided the awareness time.',
  discovery: 'How the breach was discovered, and by whom.',
  controller_name: 'Controller (organisation) name.',
  controller_contact: 'Controller contact details.',
  processor_name: 'Processor involved (e.g. the LLM API provider).',
  dpo_name: 'DPO or other contact point (Art. 33(3)(b)).',
  dpo_contact: 'DPO / contact point e-mail or phone.',
  lead_authority: 'Lead supervisory authority (e.g. "DPC (Ireland)").',
  countries: 'Countries of affected data subjects, comma-separated.',
  systems: 'Systems, services and locations involved.',
  measures_taken: 'Measures taken (Art. 33(3)(d)); separate items with ";".',
  measures_proposed: 'Measures proposed; separate items with ";".',
  internal_reference: "Controller's internal reference for the incident.",
  detected_at: 'When the first alert or report arrived (ISO with zone).',
  investigation_started_at: 'When the short investigation started (ISO with zone).',
  breach_started_at: 'When the breach started (ISO with zone), if known.',
  breach_ended_at: 'When the breach ended (ISO with zone), if known.',
}

const kebab = (s: string): string => s.replace(/_/g, '-')

export const incidentFieldFlags = {
  ...Object.fromEntries(INCIDENT_TEXT_FIELDS.map((f) => [kebab(f), Flags.string({description: HELP[f], helpGroup: 'INCIDENT'})])),
  ...Object.fromEntries(INCIDENT_TIME_FIELDS.map((f) => [kebab(f), Flags.string({description: HELP[f], helpValue: 'ISO', helpGroup: 'INCIDENT'})])),
} as Record<string, ReturnType<typeof Flags.string>>

/** Parsed flag values -> an incident patch (times parsed, zone required). */
export function incidentPatchFromFlags(flags: Record<string, unknown>): IncidentPatch {
  const patch: Record<string, unknown> = {}
  for (const f of INCIDENT_TEXT_FIELDS) {
    const v = flags[kebab(f)]
    if (typeof v === 'string') patch[f] = v
  }
  for (const f of INCIDENT_TIME_FIELDS) {
    const v = flags[kebab(f)]
    if (typeof v === 'string') patch[f] = parseInstant(v, `--${kebab(f)}`)
  }
  return patch as IncidentPatch
}
