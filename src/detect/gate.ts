import type {UnreadableFile} from '../store/files.js'

// `--fail-on-leak` fails closed: contamination found trips it (exit 3), and so does evidence it
// could not read (exit 1), because "no leak found" in a file whose answers decoded to nothing,
// or that was not read whole, is not a finding.

/** One line naming the files a gate could not judge, or null when it could judge them all. */
export function unreadableGateMessage(files: readonly UnreadableFile[]): string | null {
  if (files.length === 0) return null
  const why = (f: UnreadableFile): string =>
    f.state !== 'complete' ? 'its ingest did not finish (run it again)'
      : f.unread !== null ? `not read whole: ${f.unread}`
        : `${f.no_response_text} of its ${f.answers} answers decoded to no text (check --log-format / --map; crosstalk drop it and ingest it again)`
  const shown = files.slice(0, 5).map((f) => `${f.path} (${why(f)})`)
  return `--fail-on-leak cannot pass: ${files.length} log file${files.length === 1 ? '' : 's'} could not be judged: ${shown.join('; ')}${files.length > 5 ? '; and more' : ''}`
}
