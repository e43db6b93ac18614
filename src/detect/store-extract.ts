import type {CaseDb} from '../store/open-case.js'
import type {Extracted} from './extract.js'
import type {MarkerToken} from './markers.js'
import {storeFingerprints, type RecordMeta} from './provenance.js'

// Writes one record's detection extract (detect/extract.ts) into the case: its marker
// tokens (kind 0), unconventional-marker hits (kind 1), hashed PII values and, when
// fingerprints were taken, its fingerprint row. Shared by ingest (extracts made by the
// parse workers) and scan (files ingested without extraction).

export interface ExtractWriter {
  /** `fp`: the uint32 array the extract's fingerprint offsets point into; null writes no fingerprint row. */
  write(recordId: number, x: Extracted, fp: Uint32Array | null, meta: RecordMeta): void
  /** One unconventional-marker hit (scan's re-match under a changed registry). */
  hit(recordId: number, token: MarkerToken): void
}

export function extractWriter(db: CaseDb): ExtractWriter {
  const insertToken = db.prepare('INSERT OR IGNORE INTO response_tokens (record_id, kind, position, token) VALUES (?, ?, ?, ?)')
  const insertPii = db.prepare('INSERT OR IGNORE INTO pii_values (record_id, part, kind, value_sha256) VALUES (?, ?, ?, ?)')
  const putFingerprints = storeFingerprints(db)
  return {
    write(id, x, fp, meta) {
      for (const t of x.tokens) insertToken.run(id, 0, t.position, t.token)
      for (const t of x.unconventional) insertToken.run(id, 1, t.position, t.token)
      for (const [part, kind, hash] of x.pii) insertPii.run(id, part, kind, hash)
      if (fp === null) return
      const at = fp.byteOffset + x.fpStart * 4
      putFingerprints(id, {
        promptWords: x.promptWords,
        responseWords: x.responseWords,
        // Views: SQLite copies the bytes when it binds them.
        promptFp: Buffer.from(fp.buffer, at, x.fpPromptLen * 4),
        responseFp: Buffer.from(fp.buffer, at + x.fpPromptLen * 4, x.fpResponseLen * 4),
      }, meta)
    },
    hit(id, t) {
      insertToken.run(id, 1, t.position, t.token)
    },
  }
}
