import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {incidentFieldFlags, incidentPatchFromFlags} from '../../cli/incident-flags.js'
import {renderOpenedIncident} from '../../cli/render-incident.js'
import {openIncident, ROLES, type IncidentRecord} from '../../notify/incident.js'
import {recordedFactWarnings} from '../../notify/recorded-vs-logs.js'
import {parseInstant} from '../../notify/time.js'
import {timelineOrderWarnings} from '../../notify/timeline-order.js'
import {inTransaction} from '../../store/session.js'

/** `crosstalk incident open --json` */
export type IncidentOpenResult = IncidentRecord

export default class IncidentOpen extends BaseCommand {
  static override description = "Open the case's incident and start the 72-hour clock (GDPR Art. 33(1)) at the awareness time."
  static override examples = [
    '<%= config.bin %> incident open --title "KV-cache cross-tenant leak" --aware-at 2026-10-23T10:00:00+02:00 --role processor',
    '<%= config.bin %> incident open --title "Leak" --aware-at 2026-10-23T08:00:00Z --role controller --controller-name "Acme Ltd" --dpo-contact dpo@acme.example',
  ]
  static override flags = {
    db: dbFlag,
    title: Flags.string({description: 'Short title of the incident.', required: true}),
    'aware-at': Flags.string({description: 'When the controller became aware (ISO 8601 with zone); starts the 72 h.', required: true, helpValue: 'ISO'}),
    role: Flags.string({description: 'Our role for the leaked data.', options: [...ROLES], required: true}),
    ...incidentFieldFlags,
  }

  public async run(): Promise<IncidentOpenResult> {
    const {flags} = await this.parse(IncidentOpen)
    const db = this.openCase(flags.db, {create: true})
    const now = new Date()
    // The incident and its audit entry (which keeps the original awareness time verify replays amendments from) are stored together.
    const incident = inTransaction(db, () => {
      const opened = openIncident(db, {
        title: flags.title,
        role: flags.role as IncidentRecord['role'],
        awareAt: parseInstant(flags['aware-at'], '--aware-at'),
        fields: incidentPatchFromFlags(flags),
        now,
      })
      this.audit(db, {flags}, {incident_opened: opened.aware_at, role: opened.role}, now)
      return opened
    })
    // Recorded as given; where the logs contradict it, said now (stderr), and by every draft as an open item.
    for (const w of [...recordedFactWarnings(db, incident), ...timelineOrderWarnings(incident)]) this.note(w)
    if (!this.jsonEnabled()) this.log(renderOpenedIncident(incident))
    return incident
  }
}
