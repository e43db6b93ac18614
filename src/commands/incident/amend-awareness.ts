import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {renderIncident} from '../../cli/render-incident.js'
import {amendAwareness, type IncidentRecord} from '../../notify/incident.js'
import {parseInstant} from '../../notify/time.js'
import {timelineOrderWarnings} from '../../notify/timeline-order.js'
import {inTransaction} from '../../store/session.js'

/** `crosstalk incident amend-awareness --json` */
export type IncidentAmendAwarenessResult = IncidentRecord

export default class IncidentAmendAwareness extends BaseCommand {
  static override description = 'Change the awareness time (and so the 72-hour deadline), with the reason kept in an audited amendment log.'
  static override examples = [
    '<%= config.bin %> incident amend-awareness --aware-at 2026-10-23T09:30:00+02:00 --reason "on-call confirmed cross-tenant data at 09:30, not 10:00"',
  ]
  static override flags = {
    db: dbFlag,
    'aware-at': Flags.string({description: 'New awareness time (ISO with zone).', required: true, helpValue: 'ISO'}),
    reason: Flags.string({description: 'Why it changes.', required: true}),
    'amended-by': Flags.string({description: 'Who amends it.'}),
  }

  public async run(): Promise<IncidentAmendAwarenessResult> {
    const {flags} = await this.parse(IncidentAmendAwareness)
    const db = this.openCase(flags.db)
    const now = new Date()
    const incident = inTransaction(db, () => {
      const updated = amendAwareness(db, {awareAt: parseInstant(flags['aware-at'], '--aware-at'), reason: flags.reason, amendedBy: flags['amended-by'], now})
      this.audit(db, {flags}, {aware_at: updated.aware_at}, now)
      return updated
    })
    // An awareness before the recorded breach start: recorded as given, said now, and open in every draft.
    for (const w of timelineOrderWarnings(incident)) this.note(w)
    if (!this.jsonEnabled()) this.log(renderIncident(incident))
    return incident
  }
}
