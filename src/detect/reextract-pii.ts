import {EXTRACT_SCHEME, PRIOR_EXTRACT_SCHEME} from '../extract/extract.js'
import {findPii, hashPii} from '../extract/pii.js'
import {recordTextLoader} from '../evidence/record-texts.js'
import {deleteFilePiiValues, piiValueInserter, recordIdsOfFile} from '../store/extracts.js'
import {setExtractScheme, type FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {inTransaction} from '../store/session.js'

// A case ingested under the prior extract scheme holds personal-data values that the current
// rules would not all find (digits inside a marker's hex taken for a card number). Its marker
// tokens and fingerprints are the same under both, so only the personal data is extracted again,
// from each record's texts as the evidence gives them, and the file then holds the current scheme.

const PAGE = 2000

/**
 * Extracts the personal data of every file still under the prior scheme again; returns how many
 * files. `onProgress` hears the records done of those files' total, after each page: on a case of
 * millions of records this is a long pause of its own, once.
 */
export function reextractPriorPii(db: CaseDb, files: readonly FileRow[], onProgress?: (done: number, total: number) => void): number {
  const prior = files.filter((f) => f.extract_scheme === PRIOR_EXTRACT_SCHEME)
  if (prior.length === 0) return 0
  const total = prior.reduce((a, f) => a + f.records, 0)
  let done = 0
  onProgress?.(0, total)
  const texts = recordTextLoader(db)
  const pageOfFile = recordIdsOfFile(db)
  const insert = piiValueInserter(db)
  for (const file of prior) {
    // One file a transaction: an interrupted scan leaves each file wholly under one scheme.
    inTransaction(db, () => {
      deleteFilePiiValues(db, file.id)
      for (let last = 0; ; ) {
        const ids = pageOfFile(file.id, last, PAGE)
        if (ids.length === 0) break
        for (const id of ids) {
          const {request_text: prompt, response_text: response} = texts(id)
          // As ingest's extractRecord: a prompt's values, then a response's, each (kind, value) once.
          if (prompt) for (const v of findPii(prompt)) insert(id, false, v.kind, hashPii(v.kind, v.value))
          if (response) for (const v of findPii(response)) insert(id, true, v.kind, hashPii(v.kind, v.value))
        }
        last = ids.at(-1)!
        done += ids.length
        onProgress?.(done, total)
      }
      setExtractScheme(db, file.id, EXTRACT_SCHEME)
    })
  }
  return prior.length
}
