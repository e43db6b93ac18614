import {EXTRACT_SCHEME, extractRecord, PRIOR_EXTRACT_SCHEMES} from '../extract/extract.js'
import {FingerprintBuffer} from '../extract/winnow.js'
import {lineRefusalChecker, recordTextLoader} from '../evidence/record-texts.js'
import {deleteFileExtracts, extractInserters, fingerprintUpdater, piiValueInserter, recordPagesOfFile} from '../store/extracts.js'
import {addFileNote, addFileUnread, setExtractScheme, setNoTextCounts, setUnconventionalMatched, type FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {inTransaction} from '../store/session.js'
import {unreadShapesPhrase} from '../extract/parse-record.js'

// A case ingested under a prior extract scheme holds extracts the current rules would not all
// make: x1 personal-data values the current rules do not find (digits inside a marker's hex taken
// for a card number); x1 and x2 extracts of texts decoded without a request's tool results and
// documents, or of a Messages API stream whose text blocks were joined apart. Texts are not
// stored (the evidence keeps the lines), so every extract of each such file is made again from
// its records' texts as the evidence gives them today, exactly as ingest makes them, and the file
// then holds the current scheme. Its counts of records without request text and without response
// text are counted again from the same texts, in the same transaction (the older decoder read some
// texts as none, and some placeholders as texts): status, scope and the gate read them. The
// caller rescans every file (its sightings were classified from the old tokens and prompts) and
// recomputes provenance (from the old fingerprints).
//
// x3 and before read a line that gives a key twice with the last value; x4 refuses it. Such a
// record's texts are what the old reading took, and a marker in the copy it dropped was never
// searched. The record is not removed (the case keeps what was read, and its audit log what
// ingest reported), but the file is marked not read whole, naming the lines: every gate fails
// on it, the drafts name it, and ingesting it again quarantines those lines as today's ingest does.

const PAGE = 2000
const EMPTY = Buffer.alloc(0)

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
  const refusal = lineRefusalChecker(db)
  const pageOfFile = recordPagesOfFile(db)
  const inserts = extractInserters(db)
  const insertPii = piiValueInserter(db)
  const updateFingerprints = fingerprintUpdater(db)
  const fp = new FingerprintBuffer()
  for (const file of prior) {
    // One file a transaction: an interrupted scan leaves each file wholly under one scheme.
    inTransaction(db, () => {
      deleteFileExtracts(db, file.id)
      let noRequestText = 0
      let noResponseText = 0
      // Records whose body holds shapes this release does not read (their notes, by note): the file is then not read whole.
      const unreadNotes: Record<string, number> = {}
      let unreadFirstLine: number | null = null
      // Records whose request was read in part (their notes, by note): said in the file's notes, as ingest says them, so scope finds them.
      const requestNotes: Record<string, number> = {}
      const refused = {lines: new Set<number>(), first: null as {line_no: number; reason: string} | null}
      for (let last = 0; ; ) {
        const page = pageOfFile(file.id, last, PAGE)
        if (page.length === 0) break
        for (const {id, is_error: isError, line_no: lineNo} of page) {
          const why = refusal(id)
          if (why !== null) {
            // Its texts cannot be read under today's rules: none is extracted (no marker token,
            // no fingerprint for provenance to read it by), and it counts as a record without texts.
            refused.lines.add(why.line_no)
            refused.first ??= why
            noRequestText++
            if (isError === 0) noResponseText++
            updateFingerprints(id, 0, 0, EMPTY, EMPTY)
            continue
          }
          const {request_text: prompt, response_text: response, unread_note: unreadNote, request_unread_note: requestNote, no_text_by_design: byDesign} = texts(id)
          if (requestNote !== undefined) requestNotes[requestNote] = (requestNotes[requestNote] ?? 0) + 1
          if (unreadNote !== undefined) {
            unreadNotes[unreadNote] = (unreadNotes[unreadNote] ?? 0) + 1
            unreadFirstLine = Math.min(unreadFirstLine ?? lineNo, lineNo)
          }
          // As ingest's recordFlags (process-unit.ts) counts them.
          if (prompt === null || prompt === '') noRequestText++
          if (isError === 0 && byDesign !== true && (response === null || response === '')) noResponseText++
          fp.length = 0
          // As ingest's writeExtract, unconventional markers aside: they are matched by the scan (below).
          const x = extractRecord(prompt, response, fp)
          for (const t of x.tokens) inserts.token(id, t.position, t.token)
          for (const [part, kind, hash] of x.pii) insertPii(id, part === 1, kind, hash)
          const data = fp.data
          const at = data.byteOffset + x.fpStart * 4
          updateFingerprints(id, x.promptWords, x.responseWords, Buffer.from(data.buffer, at, x.fpPromptLen * 4), Buffer.from(data.buffer, at + x.fpPromptLen * 4, x.fpResponseLen * 4))
        }
        last = page.at(-1)!.id
        done += page.length
        onProgress?.(done, total)
      }
      // No unconventional hits are stored now: matched under the empty set, so a scan under a
      // registry with such markers matches the file again (scan-case's rematch).
      setUnconventionalMatched(db, file.id, '')
      setNoTextCounts(db, file.id, noRequestText, noResponseText)
      if (refused.first !== null) addFileUnread(db, file.id, olderRulesUnread(refused.lines.size, refused.first))
      // As ingest says it (ingest-file.ts fileUnread): an earlier scheme read past these shapes without a word.
      const shapes = unreadShapesPhrase(unreadNotes, unreadFirstLine)
      if (shapes !== null) addFileUnread(db, file.id, shapes)
      for (const [note, n] of Object.entries(requestNotes)) addFileNote(db, file.id, `${n} record${n === 1 ? '' : 's'}: ${note}`)
      setExtractScheme(db, file.id, EXTRACT_SCHEME)
    })
  }
  return prior.length
}

/** What a file's unread phrase says of lines an earlier version read as records (verify tells them by it). */
export const READ_BY_EARLIER_VERSION = 'read as records by an earlier version of crosstalk'

/** The file's unread phrase for `lines` lines an earlier version read as records and this one refuses, the first at `first`. */
export function olderRulesUnread(lines: number, first: {line_no: number; reason: string}): string {
  const one = lines === 1
  return `${one ? 'a line' : `${lines} lines`} ${READ_BY_EARLIER_VERSION} ${one ? 'is' : 'are'} refused by this one (line ${first.line_no}: ${first.reason}); the case holds the earlier reading, which may miss a marker: drop the file and ingest it again to quarantine ${one ? 'it' : 'them'}`
}
