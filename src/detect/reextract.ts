import {EXTRACT_SCHEME, extractRecord, PRIOR_EXTRACT_SCHEMES} from '../extract/extract.js'
import {FingerprintBuffer} from '../extract/winnow.js'
import {recordTextLoader} from '../evidence/record-texts.js'
import {deleteFileExtracts, extractInserters, fingerprintUpdater, piiValueInserter, recordIdsOfFile} from '../store/extracts.js'
import {setExtractScheme, setUnconventionalMatched, type FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {inTransaction} from '../store/session.js'

// A case ingested under a prior extract scheme holds extracts the current rules would not all
// make: x1 personal-data values the current rules do not find (digits inside a marker's hex taken
// for a card number); x1 and x2 extracts of texts decoded without a request's tool results and
// documents, or of a Messages API stream whose text blocks were joined apart. Texts are not
// stored (the evidence keeps the lines), so every extract of each such file is made again from
// its records' texts as the evidence gives them today, exactly as ingest makes them, and the file
// then holds the current scheme. The caller rescans every file (its sightings were classified from
// the old tokens and prompts) and recomputes provenance (from the old fingerprints).

const PAGE = 2000

/**
 * Extracts every file still under a prior scheme again; returns how many files. `onProgress`
 * hears the records done of those files' total, after each page: on a case of millions of
 * records this is a long pause of its own, once.
 */
export function reextractPriorFiles(db: CaseDb, files: readonly FileRow[], onProgress?: (done: number, total: number) => void): number {
  const prior = files.filter((f) => f.extract_scheme !== null && PRIOR_EXTRACT_SCHEMES.includes(f.extract_scheme))
  if (prior.length === 0) return 0
  const total = prior.reduce((a, f) => a + f.records, 0)
  let done = 0
  onProgress?.(0, total)
  const texts = recordTextLoader(db)
  const pageOfFile = recordIdsOfFile(db)
  const inserts = extractInserters(db)
  const insertPii = piiValueInserter(db)
  const updateFingerprints = fingerprintUpdater(db)
  const fp = new FingerprintBuffer()
  for (const file of prior) {
    // One file a transaction: an interrupted scan leaves each file wholly under one scheme.
    inTransaction(db, () => {
      deleteFileExtracts(db, file.id)
      for (let last = 0; ; ) {
        const ids = pageOfFile(file.id, last, PAGE)
        if (ids.length === 0) break
        for (const id of ids) {
          const {request_text: prompt, response_text: response} = texts(id)
          fp.length = 0
          // As ingest's writeExtract, unconventional markers aside: they are matched by the scan (below).
          const x = extractRecord(prompt, response, fp)
          for (const t of x.tokens) inserts.token(id, t.position, t.token)
          for (const [part, kind, hash] of x.pii) insertPii(id, part === 1, kind, hash)
          const data = fp.data
          const at = data.byteOffset + x.fpStart * 4
          updateFingerprints(id, x.promptWords, x.responseWords, Buffer.from(data.buffer, at, x.fpPromptLen * 4), Buffer.from(data.buffer, at + x.fpPromptLen * 4, x.fpResponseLen * 4))
        }
        last = ids.at(-1)!
        done += ids.length
        onProgress?.(done, total)
      }
      // No unconventional hits are stored now: matched under the empty set, so a scan under a
      // registry with such markers matches the file again (scan-case's rematch).
      setUnconventionalMatched(db, file.id, '')
      setExtractScheme(db, file.id, EXTRACT_SCHEME)
    })
  }
  return prior.length
}
