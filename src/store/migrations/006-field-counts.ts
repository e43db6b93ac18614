import type {Database} from 'better-sqlite3'

// Per file, how many of its records do not say a field that the at-risk test and the exposure
// figures depend on. `scope`, `status` and the drafts state these counts on every run; counted
// over the records they were a full read of the records table (2 s of `scope`'s 15 s on a
// 5,000,000-record case, measured), counted by ingest as it writes each record they are a sum
// over the files. NULL: the file was ingested before this schema (or by a writer that does not
// count them), and its records are counted again where they are needed.
//
// The at-risk index also covers the recipient's tenant: at-risk responses per tenant (scope's
// tenant figures) were a lookup of each at-risk record's row (2.8 s of that scope, measured),
// and are now read from the index alone. An index a bulk load suspended (an interrupted first
// ingest) is rebuilt from the new definition when the case is next opened.
const AT_RISK = 'CREATE INDEX records_at_risk ON records (status, prompt_tokens, decode_node, ts_ms, is_error, tenant_id)'

export function up(db: Database): void {
  db.exec(`
    DROP INDEX IF EXISTS records_at_risk;
    ${AT_RISK};
    UPDATE suspended_indexes SET sql = '${AT_RISK}' WHERE name = 'records_at_risk';
    ALTER TABLE files ADD COLUMN no_status                  INTEGER CHECK (no_status >= 0);
    ALTER TABLE files ADD COLUMN no_prompt_tokens           INTEGER CHECK (no_prompt_tokens >= 0);
    ALTER TABLE files ADD COLUMN no_completion_tokens       INTEGER CHECK (no_completion_tokens >= 0);
    ALTER TABLE files ADD COLUMN no_decode_node             INTEGER CHECK (no_decode_node >= 0);
    ALTER TABLE files ADD COLUMN no_status_or_prompt_tokens INTEGER CHECK (no_status_or_prompt_tokens >= 0);
  `)
}
