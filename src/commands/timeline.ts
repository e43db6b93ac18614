import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {renderTimeline} from '../cli/render-scope.js'
import {notReadEvidence, type NotRead} from '../detect/not-read.js'
import {checkDetection, detectionFlags} from '../cli/detection-flags.js'
import {buildTimeline, type TimelineResult} from '../scope/build-timeline.js'

/** timeline --json on a case never scanned: detection's parts are null (unknown), never empty; the bug window says its basis (at-risk responses only). */
type UnscannedTimeline = Omit<TimelineResult, 'exposure' | 'nodes' | 'pairs' | 'hours'> & {exposure: null; nodes: null; pairs: null; hours: null}
import {loadScopeInputs} from '../scope/scope-data.js'
import {listAudit} from '../store/audit.js'
import {hasCanaries} from '../store/canaries.js'
import {registrylessTimeline, staleFindings, staleFindingsReason, type RegistrylessTimeline} from '../scope/unscanned.js'
import {nothingSearched} from '../detect/coverage.js'

export default class Timeline extends BaseCommand {
  static override description =
    'One chronological view of the incident: first and last contamination per node and tenant pair, the inferred bug window, sightings, and what was done to the case (audit log), with an hourly histogram.'

  static override examples = ['<%= config.bin %> timeline --pool-tokens 681280', '<%= config.bin %> timeline --json > timeline.json']

  static override flags = {
    db: dbFlag,
    'pool-tokens': Flags.integer({description: 'Prefill KV pool size: adds at-risk responses (status 200, prompt_tokens >= N; default: the size recorded by `scan --pool-tokens`).', min: 1, max: Number.MAX_SAFE_INTEGER}),
    ...detectionFlags,
  }

  public async run(): Promise<(TimelineResult | UnscannedTimeline | RegistrylessTimeline) & {not_read: NotRead}> {
    const {flags} = await this.parse(Timeline)
    const db = this.openCase(flags.db, {readsOnly: true})
    const inputs = loadScopeInputs(db, {poolTokens: flags['pool-tokens']})
    const warning = checkDetection(inputs.detection, 'timeline', flags['allow-incomplete'])
    if (warning) this.note(this.paint.yellow(warning))
    const built = buildTimeline(inputs, listAudit(db))
    // Without a registry the markers' figures count nothing: said on the console, null in --json.
    const registry = hasCanaries(db)
    // Findings that no longer cover the case (a registry changed, provenance skipped or dropped since the scan): their counts are unknown, as scope's are.
    const staleParts = staleFindings(inputs.detection)
    const stale = staleFindingsReason(staleParts)
    // The bug window is the first to last of the sightings, the provenance and the at-risk responses:
    // where either finding is stale it is not known (as scope's bug_window), and neither are its events.
    const result = stale === null ? built : {...built, bug_window: null, events: built.events.filter((e) => e.kind !== 'bug_window_start' && e.kind !== 'bug_window_end')}
    // What no figure counts because it was never read (quarantined lines, files not read whole): named, never taken as 0 (as scope --json's not_read).
    const notRead = notReadEvidence(db)
    if (!this.jsonEnabled()) {
      if (stale !== null) this.log(`The scan's findings do not cover the case (${stale}): the leak events below are the last scan's and not all there may be, and the counts that rest on them are not known (crosstalk scan).\n`)
      this.log(renderTimeline(result, {registry, orphans: inputs.orphans, stale: stale === null ? undefined : {markers: staleParts.markers, provenance: staleParts.provenance}, notRead}))
    }
    // Never scanned: what detection would have found is unknown, not none (the events keep the audit trail).
    if (nothingSearched(inputs.detection) || stale !== null) return {...result, exposure: null, nodes: null, pairs: null, hours: null, not_read: notRead}
    return {...(registry ? result : registrylessTimeline(result, inputs.orphans)), not_read: notRead}
  }
}
