import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {renderIncident} from '../../cli/render-incident.js'
import {timelineOrderWarnings} from '../../notify/timeline-order.js'
import {listAmendments, listRoleChanges, requireIncident, type IncidentShowResult} from '../../notify/incident.js'

export default class IncidentShow extends BaseCommand {
  static override description = "Show the case's incident record and every amendment of its awareness time and its role."
  static override examples = ['<%= config.bin %> incident show', '<%= config.bin %> incident show --json']
  static override flags = {db: dbFlag}

  public async run(): Promise<IncidentShowResult> {
    const {flags} = await this.parse(IncidentShow)
    const db = this.openCase(flags.db, {readsOnly: true})
    const result = {incident: requireIncident(db), amendments: listAmendments(db), role_changes: listRoleChanges(db)}
    // Times that cannot all be right are said each time the record is shown (stderr), as every draft shows them open.
    for (const w of timelineOrderWarnings(result.incident)) this.note(w)
    if (!this.jsonEnabled()) this.log(renderIncident(result.incident, result.amendments, result.role_changes))
    return result
  }
}
