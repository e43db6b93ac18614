import type {Hook} from '@oclif/core'
import {escapeJsonText, safeLine} from '../../util/sanitize.js'
import {suggestCommand} from '../suggest.js'

// oclif's own answer to an unknown command is "command ingets:logs:x not found": its
// internal id, with the arguments glued on, and no suggestion. This hook answers in the
// contract's terms instead: one line on stderr (and {"error": ...} on stdout under
// --json), commands spelled as they are typed, the closest command when one is a plausible
// typo, exit 2 (a usage error). @oclif/plugin-not-found was tried and not used: it exits
// 127, and outside a terminal (CI, scripts) it prints no suggestion at all; in one it offers
// to run the suggested command instead, which a tool that writes to evidence should not do.

const hook: Hook.CommandNotFound = async function (opts) {
  const words = opts.id.split(':').filter(Boolean)
  const argv = opts.argv ?? []
  const visible = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id)
  const suggestion = suggestCommand(words, visible)
  const bin = opts.config.bin
  const typed = suggestion?.typed ?? words[0] ?? ''
  // The command typed exactly, then a word it does not take ("scope extra", "generate
  // incident"): oclif took the two words for one command id. The word is the mistake, not the
  // command, which does exist.
  const extra = suggestion && typed === suggestion.command ? words[suggestion.command.split(' ').length] : undefined
  const message =
    extra !== undefined
      ? `unexpected argument "${printable(extra)}": "${bin} ${suggestion!.command}" has no subcommand and takes no argument there (${bin} ${suggestion!.command} --help shows its usage)`
      : suggestion
        ? `command "${printable(typed)}" not found; did you mean "${bin} ${suggestion.command}"? (${bin} --help lists every command)`
        : `command "${printable(typed)}" not found (${bin} --help lists every command)`
  if (argv.includes('--json') || words.includes('--json')) process.stdout.write(escapeJsonText(JSON.stringify({error: {message, code: 'E_USAGE'}})) + '\n')
  process.stderr.write(`Error: ${message}\n`)
  process.exitCode = 2
}

/** What the user typed goes back to their terminal: control characters made visible, a bounded length. */
function printable(text: string): string {
  const clean = safeLine(text)
  return clean.length > 60 ? `${clean.slice(0, 59)}…` : clean
}

export default hook
