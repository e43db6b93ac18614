import {createReadStream} from 'node:fs'
import {createInterface} from 'node:readline'
import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {InputError, UsageError} from '../errors.js'
import {GUARANTEE_WORDS, minWordsMessage} from '../extract/winnow.js'
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
    'min-words': Flags.integer({description: 'shortest verbatim overlap that counts (at least 12)', default: 12}),
    'shard-prefix': Flags.string({description: 'read shards under URI prefix FROM from local path TO (repeatable)', multiple: true, helpValue: 'FROM=TO'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(ProvenanceVerify)
    if (flags['min-words'] < GUARANTEE_WORDS) throw new UsageError(minWordsMessage(flags['min-words']))
    const rewrites = parsePrefixRewrites(flags['shard-prefix'])
    const tasks: VerifyTask[] = []
    const lines = createInterface({input: flags.in ? createReadStream(flags.in) : process.stdin, crlfDelay: Infinity})
    let n = 0
    for await (const line of lines) {
      n++
      if (!line.trim()) continue
      const parsed = VerifyTask.safeParse(JSON.parse(line))
      if (!parsed.success) throw new InputError(`provenance-verify: task ${n}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`)
      tasks.push(parsed.data)
    }
    const out = await verifyCandidates(tasks, {
      shards: loadShardSpecs(flags.shards), minWords: flags['min-words'], boilerplate: loadBoilerplate(flags.boilerplate), rewrites,
    })
    for (const o of out) process.stdout.write(JSON.stringify(o) + '\n')
  }
}
