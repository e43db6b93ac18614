import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {exportRegistry, isRegistryExport, type RegistryMeta} from '../scale/registry-export.js'
import {count} from '../cli/plural.js'
import {guardOut} from '../cli/out-guard.js'
import {statSync} from 'node:fs'
import {join} from 'node:path'
import {UsageError} from '../errors.js'
import {nonFileKind} from '../ingest/ingest-file.js'
import {safeLine} from '../util/sanitize.js'

const exists = (path: string): boolean => {
  try {
    statSync(path)
    return true
  } catch {
    return false
  }
}

export default class RegistryExport extends BaseCommand {
  static override hidden = true
  static override summary = "Write the case's canary registry for a Spark audit (registry.parquet and registry.json in --out)."
  static override examples = ['<%= config.bin %> registry-export --db case.db --out ./job/registry']
  static override flags = {
    db: dbFlag,
    out: Flags.string({description: 'directory to write to (made if missing); its registry.parquet and registry.json are replaced only when they are a previous export, else with --force', required: true, helpValue: 'DIR'}),
    force: Flags.boolean({description: 'Replace a registry.parquet or registry.json in --out that is not a previous export (never the case or its originals).', default: false}),
  }

  async run(): Promise<RegistryMeta> {
    const {flags} = await this.parse(RegistryExport)
    const db = this.openCase(flags.db, {readonly: true})
    let outStat: ReturnType<typeof statSync> | undefined
    try {
      outStat = statSync(flags.out)
    } catch {
      outStat = undefined
    }
    if (outStat !== undefined && !outStat.isDirectory()) {
      throw new UsageError(`--out ${flags.out}: ${outStat.isFile() ? 'a file' : nonFileKind(outStat)}, not a directory; registry-export writes registry.parquet and registry.json into a directory: name one (it is made if missing)`, 'E_OUT_NOT_DIR')
    }
    // Its two files are replaced where they are a previous export (a fresh export replaces an old
    // one), else only with --force; never the case or an original.
    const force = flags.force || isRegistryExport(flags.out)
    for (const name of ['registry.parquet', 'registry.json']) {
      const file = join(flags.out, name)
      guardOut(db, file, {force: true})
      if (!force && exists(file)) {
        throw new UsageError(`--out ${flags.out}: it holds a ${name} that registry-export did not write (the directory holds no registry.json of a previous export); choose another directory, or add --force to replace it`, 'E_OUT_EXISTS')
      }
    }
    const meta = exportRegistry(db, flags.out)
    if (!this.jsonEnabled()) this.log(`${count(meta.canaries, 'marker')} written to ${safeLine(flags.out)} (${['registry.parquet', 'registry.json'].map((name) => `${name} ${statSync(join(flags.out, name)).size} bytes`).join(', ')})`)
    return meta
  }
}
