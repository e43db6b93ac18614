import type {Database} from 'better-sqlite3'

// notifications.recipient_kind: whom a notification went to, apart from the recipient's text:
// the supervisory authority, the data subjects, or a controller (a processor's notice; recipient
// then holds its tenant id exactly). Recipients and tenant ids shared one string, so a notice to
// a customer whose tenant id is "authority" was read as the authority's notification too. Rows
// recorded before this schema are read as the recipient was then: "authority" and
// "data-subjects" the reserved recipients, any other text a controller's tenant id.
export function up(db: Database): void {
  db.exec(`
    ALTER TABLE notifications ADD COLUMN recipient_kind TEXT CHECK (recipient_kind IN ('authority', 'data-subjects', 'controller'));
    UPDATE notifications SET recipient_kind = CASE recipient WHEN 'authority' THEN 'authority' WHEN 'data-subjects' THEN 'data-subjects' ELSE 'controller' END;
  `)
}
