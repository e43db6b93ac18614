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
//
// Records by tenant also hold the session, node and time, in that order, and records_by_node_ts
// (node, time, tenant, session) goes: scope's sessions served by a leaking node inside its window
// were the rows of each window, read by node and time, grouped by session in a temporary B-tree
// (1.8 us a row: 1.5 s of scope at 1M records, 7 s at 5M, measured); in session order they are
// counted in one pass over this index (0.33 s at 1M). The index holds what the dropped one held,
// so a load builds no more than before; by tenant, and the sessions of a case, read it as well.
const AT_RISK = 'CREATE INDEX records_at_risk ON records (status, prompt_tokens, decode_node, ts_ms, is_error, tenant_id)'
const BY_TENANT = 'CREATE INDEX records_by_tenant ON records (tenant_id, session_id, decode_node, ts_ms)'

export function up(db: Database): void {
  db.exec(`
    DROP INDEX IF EXISTS records_at_risk;
    ${AT_RISK};
    UPDATE suspended_indexes SET sql = '${AT_RISK}' WHERE name = 'records_at_risk';
    DROP INDEX IF EXISTS records_by_tenant;
    ${BY_TENANT};
    UPDATE suspended_indexes SET sql = '${BY_TENANT}' WHERE name = 'records_by_tenant';
    DROP INDEX IF EXISTS records_by_node_ts;
    DELETE FROM suspended_indexes WHERE name = 'records_by_node_ts';
    ALTER TABLE files ADD COLUMN no_status                  INTEGER CHECK (no_status >= 0);
    ALTER TABLE files ADD COLUMN no_prompt_tokens           INTEGER CHECK (no_prompt_tokens >= 0);
    ALTER TABLE files ADD COLUMN no_completion_tokens       INTEGER CHECK (no_completion_tokens >= 0);
    ALTER TABLE files ADD COLUMN no_decode_node             INTEGER CHECK (no_decode_node >= 0);
    ALTER TABLE files ADD COLUMN no_status_or_prompt_tokens INTEGER CHECK (no_status_or_prompt_tokens >= 0);
  `)
}
