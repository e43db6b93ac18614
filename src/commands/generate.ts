import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {generateIncident, type GenerateResult} from '../generate/generate-incident.js'
import {count} from '../cli/plural.js'
import {safeLine} from '../util/sanitize.js'

export default class Generate extends BaseCommand {
  static override description =
    'Write a synthetic, seeded incident: JSONL gateway logs (every body shape, plus the hygiene problems real logs have), a canary registry and ground-truth.json, the answer key every pipeline stage is tested against.'

  static override examples = [
    '<%= config.bin %> generate --out ./incident',
    '<%= config.bin %> generate --out ./big --records 200000 --seed 7 --json',
  ]

  static override flags = {
    out: Flags.string({description: 'Directory to write (logs/, canaries.csv, ground-truth.json).', required: true, helpValue: 'DIR'}),
    records: Flags.integer({description: 'Number of unique log records.', default: 20_000, min: 1}),
    seed: Flags.integer({description: 'Seed: the same seed gives byte-identical output.', default: 1}),
    force: Flags.boolean({description: 'Write into a directory that is not empty.'}),
  }

  public async run(): Promise<GenerateResult> {
    const {flags} = await this.parse(Generate)
    const started = performance.now()
    const result = await generateIncident({out: flags.out, records: flags.records, seed: flags.seed, force: flags.force})
    if (!this.jsonEnabled()) {
      const secs = ((performance.now() - started) / 1000).toFixed(1)
      this.log(`Wrote ${count(result.records, 'record')} (${count(result.lines, 'line')}, ${(result.bytes / 1e6).toFixed(1)} MB) in ${count(result.files, 'log file')} to ${safeLine(result.out)} in ${secs}s`)
      this.log(`Ground truth: ${safeLine(result.ground_truth)}`)
    }
    return result
  }
}
