import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {incidentFieldFlags, incidentPatchFromFlags} from '../../cli/incident-flags.js'
import {renderIncident} from '../../cli/render-incident.js'
import {UsageError} from '../../errors.js'
import {amendAwareness, changeRole, INCIDENT_CLEARABLE_FIELDS, ROLES, updateIncident, type IncidentClearableField, type IncidentRecord} from '../../notify/incident.js'
import {recordedFactWarnings} from '../../notify/recorded-vs-logs.js'
import {crossBorderContradiction, crossBorderWarning} from '../../notify/cross-border.js'
import {parseInstant} from '../../notify/time.js'
import {timelineOrderWarnings} from '../../notify/timeline-order.js'
import {inTransaction} from '../../store/session.js'

/** `crosstalk incident set --json` */
export type IncidentSetResult = IncidentRecord

export default class IncidentSet extends BaseCommand {
  static override description =
    'Fill in or correct incident fields; --clear FIELD withdraws one recorded in error (an open item again, kept in the audit log). The awareness time (--aware-at) and our role (--role) change only with --reason, each kept as an audited amendment: they decide the deadline.'
  static override examples = [
    '<%= config.bin %> incident set --controller-name "Acme Ltd" --dpo-name "J. Doe" --dpo-contact dpo@acme.example --lead-authority "DPC (Ireland)"',
    '<%= config.bin %> incident set --aware-at 2026-10-23T09:30:00+02:00 --reason "alert log shows on-call engineer confirmed at 09:30"',
    '<%= config.bin %> incident set --clear breach-ended-at --clear measures-taken   # withdraw facts recorded in error: open items again',
    '<%= config.bin %> incident set --role processor --reason "the leaked conversations are our API customers\' data; we process them on their behalf"',
  ]
  static override flags = {
    db: dbFlag,
    title: Flags.string({description: 'Short title of the incident.'}),
    'aware-at': Flags.string({description: 'New awareness time (ISO with zone); requires --reason.', helpValue: 'ISO'}),
    role: Flags.string({description: 'Our role for the leaked data, corrected; requires --reason. It decides the duty and its clock: a controller notifies the authority within 72 hours (Art. 33(1)), a processor each controller (Art. 33(2)).', options: [...ROLES]}),
    reason: Flags.string({description: 'Why the awareness time or the role changes (kept in the amendment log).'}),
    'amended-by': Flags.string({description: 'Who amends the awareness time or the role.'}),
    clear: Flags.string({
      description:
        'Withdraw a fact recorded in error (the field\'s flag name, e.g. breach-ended-at, measures-taken; repeat for several): it is no longer recorded, every draft shows it as an open item again, and the audit log keeps the command and the fields cleared. Not with a value for the same field.',
      multiple: true,
      options: INCIDENT_CLEARABLE_FIELDS.map((f) => f.replace(/_/g, '-')),
      helpValue: 'FIELD',
    }),
    ...incidentFieldFlags,
  }

  public async run(): Promise<IncidentSetResult> {
    const {flags} = await this.parse(IncidentSet)
    // The deadline hangs on aware_at: it never changes silently (Art. 33(1), EDPB 9/2022).
    if (flags['aware-at'] && !flags.reason) throw new UsageError('--aware-at moves the 72-hour deadline: give --reason saying why (kept in the amendment log)')
    if (flags.role && !flags.reason) throw new UsageError('--role changes the duty and its deadline: give --reason saying why (kept in the amendment log)')
    if (flags.reason && !flags['aware-at'] && !flags.role) throw new UsageError('--reason goes with --aware-at or --role')
    if (flags['amended-by'] && !flags['aware-at'] && !flags.role) throw new UsageError('--amended-by goes with --aware-at or --role (it names who amended them)')
    const patch = {...incidentPatchFromFlags(flags), ...(flags.title ? {title: flags.title} : {})}
    const clear = [...new Set((flags.clear ?? []).map((f) => f.replace(/-/g, '_') as IncidentClearableField))]
    const both = clear.filter((f) => f in patch)
    if (both.length > 0) throw new UsageError(`--clear ${both[0]!.replace(/_/g, '-')} with --${both[0]!.replace(/_/g, '-')}: give a value or clear it, not both`)
    // Nothing to record is a wrong invocation, not bad input (exit 2, before the case is opened).
    if (Object.keys(patch).length === 0 && clear.length === 0 && !flags['aware-at'] && !flags.role) throw new UsageError('nothing to change: give at least one field to set (crosstalk incident set --help lists them)')
    const db = this.openCase(flags.db)
    const now = new Date()
    let incident: IncidentRecord | undefined
    inTransaction(db, () => {
      if (flags['aware-at'] && flags.reason) {
        incident = amendAwareness(db, {awareAt: parseInstant(flags['aware-at'], '--aware-at'), reason: flags.reason, amendedBy: flags['amended-by'], now, command: 'incident set'})
      }
      if (flags.role && flags.reason) incident = changeRole(db, {role: flags.role as IncidentRecord['role'], reason: flags.reason, amendedBy: flags['amended-by'], now})
      if (Object.keys(patch).length > 0 || clear.length > 0 || !incident) incident = updateIncident(db, patch, now, clear)
      const changed = [...Object.keys(patch), ...(flags['aware-at'] ? ['aware_at'] : []), ...(flags.role ? ['role'] : [])]
      this.audit(db, {flags}, {changed, ...(clear.length > 0 ? {cleared: clear} : {}), ...(flags['aware-at'] ? {aware_at: incident!.aware_at} : {}), ...(flags.role ? {role: incident!.role} : {})}, now)
    })
    // Recorded as given; where the logs contradict what this command recorded, said now (stderr), and by every draft as an open item.
    if (['breach_started_at', 'breach_ended_at', 'subjects_per_country'].some((k) => k in patch || (clear as string[]).includes(k))) for (const w of recordedFactWarnings(db, incident!)) this.note(w)
    // An awareness or detection before the recorded breach start: recorded as given, said now, and open in every draft.
    for (const w of timelineOrderWarnings(incident)) this.note(w)
    // "Not cross-border" beside establishments in two Member States (Art. 4(23)(a)): recorded as given, said now, open in the drafts.
    const crossBorderStates = ['cross_border', 'establishment_countries'].some((k) => k in patch) ? crossBorderContradiction(incident) : null
    if (crossBorderStates) this.note(crossBorderWarning(crossBorderStates))
    if (!this.jsonEnabled()) this.log(renderIncident(incident!))
    return incident!
  }
}
