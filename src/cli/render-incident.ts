import type {AwarenessAmendment, IncidentRecord} from '../notify/incident.js'
import {safeLine} from '../util/sanitize.js'

/** Human view of the incident record: one "field: value" line each, unset fields shown as such. */
export function renderIncident(incident: IncidentRecord, amendments: AwarenessAmendment[] = []): string {
  const lines = Object.entries(incident).map(([k, v]) => `${k.padEnd(26)} ${v === null ? '(not set)' : safeLine(String(v))}`)
  if (amendments.length > 0) {
    lines.push('', 'Awareness amendments:')
    for (const a of amendments) lines.push(`  ${a.at}  ${a.old_value ?? '-'} -> ${a.new_value ?? '-'}  ${safeLine(a.reason)}${a.amended_by ? ` (${safeLine(a.amended_by)})` : ''}`)
  }
  return lines.join('\n')
}
