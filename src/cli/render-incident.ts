import type {AwarenessAmendment, IncidentRecord} from '../notify/incident.js'
import {safeLine} from '../util/sanitize.js'

/** Human view of the incident record: one "field: value" line each, unset fields shown as such. */
export function renderIncident(incident: IncidentRecord, amendments: AwarenessAmendment[] = [], roleChanges: AwarenessAmendment[] = []): string {
  const lines = Object.entries(incident).map(([k, v]) => `${k.padEnd(26)} ${v === null ? '(not set)' : safeLine(String(v))}`)
  const each = (a: AwarenessAmendment): string => `  ${a.at}  ${a.old_value ?? '-'} -> ${a.new_value ?? '-'}  ${safeLine(a.reason)}${a.amended_by ? ` (${safeLine(a.amended_by)})` : ''}`
  if (amendments.length > 0) lines.push('', 'Awareness amendments:', ...amendments.map(each))
  if (roleChanges.length > 0) lines.push('', 'Role changes:', ...roleChanges.map(each))
  return lines.join('\n')
}

/**
 * What `incident open` just recorded: the fields that are set, then one line for the rest.
 * At hour one most fields are unknown; a screen of "(not set)" hides the three that matter.
 */
export function renderOpenedIncident(incident: IncidentRecord): string {
  const entries = Object.entries(incident)
  const set = entries.filter(([, v]) => v !== null)
  const unset = entries.filter(([, v]) => v === null).map(([k]) => `--${k.replace(/_/g, '-')}`)
  const lines = set.map(([k, v]) => `${k.padEnd(26)} ${safeLine(String(v))}`)
  if (unset.length > 0) {
    const shown = unset.slice(0, 3).join(', ')
    lines.push('', `${unset.length} more field${unset.length === 1 ? '' : 's'} not set yet (${shown}${unset.length > 3 ? ', ...' : ''}): add them as they become known with crosstalk incident set (--help lists them)`)
  }
  return lines.join('\n')
}
