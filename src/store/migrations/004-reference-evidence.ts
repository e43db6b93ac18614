import type {Database} from 'better-sqlite3'

// Evidence by reference (issue 19, `crosstalk ingest findings`): a provider-scale audit runs
// on Spark over billions of records, and the case keeps only the lines its findings rest on,
// read from the original shards and checked against their CRC-32 and the shard's SHA-256.
// What the case cannot count itself any more (every record examined, tenants, sessions, the
// records whose status or size is unknown, the sessions a suspect node served) is recorded as
// the job computed it, so that totals stay true.
export function up(db: Database): void {
  db.exec(`
    -- 'copy': every byte of the file is in evidence_blocks (ingest logs). 'reference': only the
    -- lines findings rest on are (ingest findings); the original stays where uri names it, and
    -- the counts (records, duplicates, bad_lines, lines) are of the whole file.
    ALTER TABLE files ADD COLUMN evidence TEXT NOT NULL DEFAULT 'copy' CHECK (evidence IN ('copy', 'reference'));
    ALTER TABLE files ADD COLUMN uri TEXT;

    -- One row, when the case's evidence is by reference: the job's answers to the questions
    -- scope asks of every record, with the parameters they hold for.
    CREATE TABLE corpus_facts (
      id                             INTEGER PRIMARY KEY CHECK (id = 1),
      imported_at                    TEXT NOT NULL,
      -- canonical JSON: the job's format, versions, parameters and registry
      job                            TEXT NOT NULL,
      records                        INTEGER NOT NULL,
      tenants                        INTEGER NOT NULL,
      -- canonical JSON array of those tenants' ids, sorted (scope --tenant and notify record ask whether one had records)
      tenant_ids                     TEXT NOT NULL,
      sessions                       INTEGER NOT NULL,
      first_ms                       INTEGER,
      last_ms                        INTEGER,
      -- records whose logs do not give the field (unknown, never zero: status and scope say so)
      no_status                      INTEGER NOT NULL,
      no_prompt_tokens               INTEGER NOT NULL,
      no_completion_tokens           INTEGER NOT NULL,
      no_decode_node                 INTEGER NOT NULL,
      -- no status or no prompt token count: the at-risk test cannot be applied to these
      no_status_or_prompt_tokens     INTEGER NOT NULL,
      -- the pool the at-risk records and the sessions served were computed for (NULL: none given)
      pool_tokens                    INTEGER,
      advertised_tokens              INTEGER,
      sessions_served                INTEGER,
      sessions_served_with_confirmed INTEGER,
      -- canonical JSON [[decode_node, first_ms, last_ms], ...]: the windows the counts above are for
      served_windows                 TEXT
    ) STRICT;

    -- A case is either all copies or all references: totals over both kinds could not be told apart.
    CREATE TRIGGER files_one_evidence_kind BEFORE INSERT ON files
      WHEN NEW.kind = 'log' AND EXISTS (SELECT 1 FROM files WHERE kind = 'log' AND evidence <> NEW.evidence)
      BEGIN SELECT RAISE(ABORT, 'this case holds log evidence of the other kind (copied by ingest logs, or by reference from ingest findings): use a new case'); END;
  `)
}
