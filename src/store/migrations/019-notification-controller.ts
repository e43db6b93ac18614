import type {Database} from 'better-sqlite3'

// notifications.controller: in a processor's case, the controller (its tenant id) an authority
// notification was made for, where a controller authorised its processor to notify for it
// (notify record --controller). NULL: none named, the only reading of rows recorded before this
// schema and of a controller's own case; in a processor's case such a notification concerns no
// single controller, so no controller's draft takes it as its own.
export function up(db: Database): void {
  db.exec(`ALTER TABLE notifications ADD COLUMN controller TEXT;`)
}
