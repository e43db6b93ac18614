import {createReadStream} from 'node:fs'
import {createInterface} from 'node:readline'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {InputError, UsageError} from '../errors.js'
import {GUARANTEE_WORDS, MAX_MIN_WORDS, minWordsMessage} from '../extract/winnow.js'
import {safeLine} from '../util/sanitize.js'
import {parsePrefixRewrites} from '../scale/shard-reader.js'
import {loadBoilerplate, loadShardSpecs, verifyCandidates, VerifyTask} from '../scale/verify-candidates.js'

export default class ProvenanceVerify extends BaseCommand {
  static override hidden = true
  static override summary = "Verify provenance candidates counted by the Spark job, in time order (JSON Lines in, the attributions out as JSON Lines): scan's own chain rule, verification and choice of source."
  static override examples = ['<%= config.bin %> provenance-verify --shards shards.json --boilerplate boilerplate.txt --min-words 12 < tasks.jsonl > attributions.jsonl']
  static override flags = {
    in: Flags.string({description: 'tasks, one JSON object per line (default: standard input)', helpValue: 'FILE'}),
    shards: Flags.string({description: "the job's shards table: each shard's URI and parse spec (JSON)", required: true, helpValue: 'FILE'}),
    boilerplate: Flags.string({description: 'boilerplate fingerprints, one signed 64-bit key per line', helpValue: 'FILE'}),
    'min-words': Flags.integer({description: `shortest verbatim overlap that counts (at least 12, at most ${MAX_MIN_WORDS})`, default: 12, max: MAX_MIN_WORDS}),
    'shard-prefix': Flags.string({description: 'read shards under URI prefix FROM from local path TO (repeatable)', multiple: true, helpValue: 'FROM=TO'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(ProvenanceVerify)
    if (flags['min-words'] < GUARANTEE_WORDS) throw new UsageError(minWordsMessage(flags['min-words']))
    const rewrites = parsePrefixRewrites(flags['shard-prefix'])
    // The shards table and the boilerplate first: a missing file is named before any task is read.
    const shards = loadShardSpecs(flags.shards)
    const boilerplate = loadBoilerplate(flags.boilerplate)
    const source = flags.in === undefined ? 'standard input' : safeLine(flags.in)
    const tasks: VerifyTask[] = []
    const input = flags.in ? createReadStream(flags.in) : process.stdin
    const unreadable = new Promise<never>((_, reject) => {
      input.once('error', (error: NodeJS.ErrnoException) => reject(new InputError(`provenance-verify: ${source}: cannot be read (${error.code ?? error.message})`, 'E_UNREADABLE')))
    })
    unreadable.catch(() => {})
    const lines = createInterface({input, crlfDelay: Infinity})
    const read = (async () => {
      let n = 0
      for await (const line of lines) {
        n++
        if (!line.trim()) continue
        let json: unknown
        try {
          json = JSON.parse(line)
        } catch {
          // The parser's message quotes the line: not repeated (a task's text may be someone's data).
          throw new InputError(`provenance-verify: ${source} line ${n}: not a JSON object`)
        }
        const parsed = VerifyTask.safeParse(json)
        if (!parsed.success) throw new InputError(`provenance-verify: ${source} line ${n}: ${parsed.error.issues[0]?.path.join('.') || 'task'}: ${parsed.error.issues[0]?.message}`)
        tasks.push(parsed.data)
      }
    })()
    read.catch(() => {})
    await Promise.race([read, unreadable])
    const out = await verifyCandidates(tasks, {shards, minWords: flags['min-words'], boilerplate, rewrites})
    for (const o of out) process.stdout.write(JSON.stringify(o) + '\n')
  }
}
