import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {quoted, safeLine} from '../../util/sanitize.js'
import {requireIncident} from '../../notify/incident.js'
import {recordNotification, type NotifyRecordResult, type Phase} from '../../notify/notifications.js'
import {notificationScopeNow} from '../../notify/notification-scope.js'
import {registeredTenantIds, tenantRegistered} from '../../store/canaries.js'
import {tenantHasRecords, tenantIdsWithRecords} from '../../store/records.js'
import {parseInstant} from '../../notify/time.js'
import {noticeController, toAuthority} from '../../notify/recipients.js'
import {inTransaction} from '../../store/session.js'

export default class NotifyRecord extends BaseCommand {
  static override description =
    'Record a notification that was sent (to the authority, to the data subjects, or as processor to a controller tenant), with the SHA-256 of the file sent. Checked against the incident: not before awareness, not in the future, a follow-up only after an initial one to the same recipient, and a late initial notification only with the reasons for the delay.'
  static override examples = [
    '<%= config.bin %> notify record --phase initial --at 2026-10-24T15:10:00+02:00 --reference DPC-BN-2026-0142 --file art33-initial.pdf',
    '<%= config.bin %> notify record --phase initial --at 2026-10-23T12:00:00Z --reference NOTICE-1 --recipient tenant-acme --file notice-acme.pdf',
    '<%= config.bin %> notify record --phase initial --at 2026-10-25T09:00:00Z --reference DPC-1 --controller tenant-acme --file art33-acme.pdf',
    '<%= config.bin %> notify record --phase initial --at 2026-10-23T12:00:00Z --reference NOTICE-2 --controller-recipient authority --file notice-authority.pdf',
  ]
  static override flags = {
    db: dbFlag,
    phase: Flags.string({description: 'Initial notification or a follow-up (Art. 33(4)).', options: ['initial', 'follow-up'], required: true}),
    at: Flags.string({description: 'When it was sent (ISO with zone).', required: true, helpValue: 'ISO'}),
    reference: Flags.string({description: "The recipient's case or submission reference.", required: true}),
    file: Flags.string({description: 'The file exactly as sent; its SHA-256 is stored.', helpValue: 'PATH'}),
    recipient: Flags.string({
      description:
        '"authority" (the default: leave it out), "data-subjects" (Art. 34), or the controller tenant id a processor notified, exactly as written. In a processor\'s case holding a tenant whose id is "authority" or "data-subjects", that word is refused as ambiguous: leave --recipient out for the authority, pass --controller-recipient for the tenant.',
    }),
    'controller-recipient': Flags.string({
      description: "A processor's notice to a controller: its tenant id, exactly as written, taken as a tenant whatever it reads (a tenant whose id is \"authority\" or \"data-subjects\" is named so). Instead of --recipient.",
      helpValue: 'TENANT',
    }),
    controller: Flags.string({
      description:
        "A processor's case: the controller (tenant id) an authority notification was made for, where that controller authorised you to notify for it. Only that controller's drafts (report article33/article34 --on-behalf-of-controller) take it as their notification; one recorded without --controller concerns no single controller, so no controller's draft does (each says it is recorded).",
      helpValue: 'TENANT',
    }),
    'delay-reason': Flags.string({description: 'The reasons for the delay sent with a notification made after the deadline (required then: Art. 33(1) for a controller\'s notification to the authority; for a processor\'s notice to a controller after the contractual period, Art. 33(2), kept so the controller can account for it).'}),
  }

  public async run(): Promise<NotifyRecordResult> {
    const {flags} = await this.parse(NotifyRecord)
    const db = this.openCase(flags.db)
    const incident = requireIncident(db)
    const now = new Date()
    const record = inTransaction(db, () => {
      const r = recordNotification(db, incident, {
        phase: flags.phase as Phase,
        at: parseInstant(flags.at, '--at'),
        reference: flags.reference,
        recipient: flags.recipient,
        controllerRecipient: flags['controller-recipient'],
        file: flags.file,
        delayReason: flags['delay-reason'],
        controller: flags.controller,
        // A controller whose data reached others may have sent nothing logged: the registry names it too (the clock and the notices do).
        knownTenant: (t) => tenantHasRecords(db, t) || tenantRegistered(db, t),
        // The scope this notification is based on, stored with it (a later scan may grow the case's).
        scope: notificationScopeNow(db, now),
        caseTenants: () => [...new Set([...tenantIdsWithRecords(db), ...registeredTenantIds(db)])],
        now,
      })
      this.audit(db, {flags}, {notification: r.id, sha256: r.file_sha256, file_size: r.file_size}, now)
      return r
    })
    // Said, not refused: a processor may notify the authority on its own account; no controller's draft takes it as its notification.
    if (incident.role === 'processor' && toAuthority(record) && !record.controller) {
      this.note(this.paint.yellow('This authority notification names no controller (--controller TENANT): no controller\'s draft takes it as its own notification; each on-behalf draft says an unattributed one is recorded.'))
    }
    if (!this.jsonEnabled()) {
      this.log(`Recorded ${record.phase} notification to ${noticeController(record) !== null ? `controller ${quoted(record.recipient)}` : safeLine(record.recipient)}${record.controller ? ` for controller ${safeLine(record.controller)}` : ''} at ${record.at} (ref ${safeLine(record.reference)})${record.late ? ' LATE: after the deadline, with the reasons for the delay' : ''}`)
      if (record.file_sha256) this.log(`  ${safeLine(record.file_path ?? '')}  sha256 ${record.file_sha256}`)
    }
    return record
  }
}
