// "Did you mean ...?" for a mistyped command. Pure: the typed words and the command ids in,
// the closest command out (or null when nothing is close enough to be a plausible typo).
import {editDistance} from '../util/edit-distance.js'

export {editDistance} from '../util/edit-distance.js'

export interface Suggestion {
  /** the command, words separated by spaces as the user types them ("ingest logs") */
  command: string
  /** the words the user typed in its place ("ingets logs") */
  typed: string
}

/**
 * The command whose words are closest to the first words typed. `commandIds` are oclif ids
 * ("ingest:logs"); `typed` is what came after the binary name, arguments included (the
 * words beyond the command's length are its arguments and do not count).
 */
export function suggestCommand(typed: readonly string[], commandIds: readonly string[]): Suggestion | null {
  let best: (Suggestion & {distance: number; words: number}) | null = null
  for (const id of [...commandIds].sort()) {
    const words = id.split(':')
    if (typed.length < words.length) continue
    const command = words.join(' ')
    const attempt = typed.slice(0, words.length).join(' ')
    const distance = editDistance(attempt.toLowerCase(), command)
    // A typo, not a different word: at most one edit in three characters.
    if (distance > Math.max(1, Math.floor(command.length / 3))) continue
    if (!best || distance < best.distance || (distance === best.distance && words.length > best.words)) best = {command, typed: attempt, distance, words: words.length}
  }
  return best && {command: best.command, typed: best.typed}
}
