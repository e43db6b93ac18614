import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {exportRegistry, type RegistryMeta} from '../scale/registry-export.js'
import {count} from '../cli/plural.js'
import {guardOut} from '../cli/out-guard.js'
import {join} from 'node:path'

export default class RegistryExport extends BaseCommand {
  static override hidden = true
  static override summary = "Write the case's canary registry for a Spark audit (registry.parquet and registry.json in --out)."
  static override examples = ['<%= config.bin %> registry-export --db case.db --out ./job/registry']
  static override flags = {
    db: dbFlag,
    out: Flags.string({description: 'directory to write to', required: true, helpValue: 'DIR'}),
  }

  async run(): Promise<RegistryMeta> {
    const {flags} = await this.parse(RegistryExport)
    const db = this.openCase(flags.db, {readonly: true})
    // Its two files are replaced as a fresh export replaces an old one, but never the case or an original.
    for (const name of ['registry.parquet', 'registry.json']) guardOut(db, join(flags.out, name), {force: true})
    const meta = exportRegistry(db, flags.out)
    if (!this.jsonEnabled()) this.log(`${count(meta.canaries, 'marker')} written to ${flags.out}`)
    return meta
  }
}
