import {recordTextLoader} from '../../evidence/record-texts.js'
import type {CaseDb} from '../../store/open-case.js'
import {responseRecordIds} from '../../store/records.js'

// The verbatim-text search compares runs of words split on white space (extract/words.ts). Scripts
// written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) give a whole
// sentence, or a whole paragraph, as one "word": an answer repeating another session's prompt in
// such a script has too few words to be compared, and no "none found" may be said over it. The scan
// counts these answers so that every document names them as not covered. Every answer with text
// is read again: one with enough words to be compared may still hold another session's text in
// such a script after a preface in a spaced script ("Sure, here is ...: 患者..."), the whole
// paragraph one "word" the search never compares. Reading only the answers short in words
// left such an answer in no count, under the drafts' all-clear.

/** Letters of the scripts written without spaces between words. */
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/gu

/** Whether a text holds at least `minWords` letters of a script written without spaces (as many as the words the search needs). */
export function holdsSpacelessText(text: string, minWords: number): boolean {
  SPACELESS.lastIndex = 0
  let n = 0
  while (SPACELESS.exec(text) !== null) if (++n >= minWords) return true
  return false
}

/** Answers holding as many letters of a script written without spaces as the search needs words: their text in it was not compared. */
export function countNotComparable(db: CaseDb, minWords: number): number {
  const ids = responseRecordIds(db)
  if (ids.length === 0) return 0
  const texts = recordTextLoader(db)
  let n = 0
  for (const id of ids) {
    const t = texts(id).response_text
    if (t !== null && holdsSpacelessText(t, minWords)) n++
  }
  return n
}
