import {Args, Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {safeLine, safeText} from '../util/sanitize.js'
import {rawRecord, showRecord, type RecordView} from '../case/show-record.js'

export default class Show extends BaseCommand {
  static override summary = 'Print one record decoded, or with --raw its original line byte for byte.'
  static override description = 'The decoded view shows where the record came from and what the log says about it. Its prompt and response texts are other people\'s data: they are printed only with --show-text (terminal control characters made visible, long texts cut at --max-chars), with canary markers shortened unless --show-markers. --raw writes the exact original bytes from the case\'s evidence store to stdout, unchanged (pipe it to a file or a hex viewer).'
  static override examples = [
    '<%= config.bin %> show req-000123',
    '<%= config.bin %> show req-000123 --show-text',
    '<%= config.bin %> show req-000123 --raw > original-line.json',
    '<%= config.bin %> show req-000123 --json --show-text --show-markers',
  ]
  static override args = {request_id: Args.string({description: 'request_id of the record', required: true})}
  static override flags = {
    db: dbFlag,
    source: Flags.string({description: 'log source, when the request_id exists in several'}),
    raw: Flags.boolean({description: 'write the original line exactly as it was in the evidence file'}),
    'max-chars': Flags.integer({description: 'cut each text at this many characters in the decoded view (0: no limit)', default: 4000}),
    'show-text': Flags.boolean({description: 'print the prompt and response texts (they can hold another tenant\'s leaked data)'}),
    'show-markers': Flags.boolean({description: 'canary markers in full (default: shortened, as in sightings)'}),
  }

  async run(): Promise<RecordView | void> {
    const {args, flags} = await this.parse(Show)
    const db = this.openCase(flags.db, {readonly: true})
    if (flags.raw) {
      const bytes = rawRecord(db, args.request_id, flags.source)
      await new Promise<void>((resolve, reject) => process.stdout.write(bytes, undefined, (e) => (e ? reject(e) : resolve())))
      return
    }
    const view = showRecord(db, args.request_id, flags.source, {showText: flags['show-text'], showMarkers: flags['show-markers']})
    if (!this.jsonEnabled()) {
      const cut = (s: string | null) => (s === null ? '(none)' : flags['max-chars'] > 0 && s.length > flags['max-chars'] ? `${s.slice(0, flags['max-chars'])}… (${s.length} chars; --max-chars 0 for all)` : s)
      const e = view.evidence
      this.log(`request_id   ${safeLine(view.request_id)}  (source ${safeLine(view.source)})`)
      this.log(`time         ${view.ts_precise}`)
      this.log(`tenant       ${safeLine(view.tenant_id)}   session ${safeLine(view.session_id)}`)
      this.log(`status       ${view.status ?? '-'}${view.is_error ? `  ERROR: ${safeLine(view.error_message ?? '')}` : ''}   ${view.response_kind}${view.stream ? ' (stream)' : ''}`)
      this.log(`nodes        prefill ${safeLine(view.prefill_node ?? '-')}  decode ${safeLine(view.decode_node ?? '-')}`)
      this.log(`tokens       prompt ${view.prompt_tokens ?? '-'}  completion ${view.completion_tokens ?? '-'}  cached ${view.cached_tokens ?? '-'}`)
      this.log(`evidence     ${safeLine(e.file)} line ${e.line} bytes ${e.byte_offset}+${e.byte_len} (file sha256 ${e.file_sha256})`)
      const size = (n: number | null): string => (n === null ? 'none' : `${n} chars`)
      if (view.texts === 'shown') {
        this.log(`\n--- request text\n${safeText(cut(view.request_text ?? null))}`)
        this.log(`\n--- response text\n${safeText(cut(view.response_text ?? null))}`)
      } else {
        this.log(`texts        request ${size(view.request_chars)}, response ${size(view.response_chars)}  (not shown: they are other people's data; --show-text prints them)`)
      }
    }
    return view
  }
}
