import {InputError} from '../errors.js'
import {hasText, receivedText, ServingClient, statedWindow, TargetFailed, type Endpoint, type GenerateResult, type TargetFailure} from '../probe/client.js'
import {mapLimit} from '../probe/limit.js'
import {findMarkers, readForeign, type ForeignMarker} from '../probe/markers.js'
import {buildPrompt, fillerWords, newPersona, sizePrompt, type Persona} from '../probe/prompts.js'
import {assertSafeTarget, shownTarget, WITHHELD, type Resolver} from '../probe/target-guard.js'
import type {CaseDb} from '../store/open-case.js'
import {tokenize} from '../testbed/tokenizer.js'
import {TESTBED_VERSION} from '../testbed/server.js'
import type {Rng} from '../util/rng.js'
import {finishReplayRun, insertReplayResult, insertReplayRun, markReplayRunOriginalPrompt, registryOwner, selectRecords, type ReplayMarkerOwner, type ReplayPurpose, type ReplayRecord, type ReplayResultRow, type ReplayTargetKind} from './replay-store.js'
import {wilsonInterval} from './wilson.js'

// Replays suspicious records against a serving stack under the recorded conditions (prompt size,
// endpoint, streaming). Protocol per trial: synthetic tenants prime the pool with canaried
// requests, then the trigger is sent; a primer's canary in the trigger's answer reproduces the
// leak (any primer's of the run, or an earlier trigger's: each primes the pool for later trials).
// Another marker (one the run gave no one) is reported apart, never as a reproduction. By default the trigger is a size-preserving synthetic prompt: no personal data is sent.
// Every request is bounded by --timeout (ServingClient); a target that hangs or stops answering
// HTTP ends the run: before the run starts that is an error (TargetFailed), after it the run is
// stored as interrupted with what it measured, and `target_failure` says why.

/**
 * inconclusive: no trigger sent was judged: each hung, failed (transport or server error) or
 * was served with an answer that carried no text the client could read or was not read whole. Nothing was tested, so
 * the record is neither confirmed nor not reproduced (nor rejected). Its result is stored as
 * inconclusive, with its unjudged answers counted: the drafts say how many records and trials
 * could not be judged, and never count one as not reproduced.
 */
export type ReplayVerdict = 'confirmed' | 'not_reproduced' | 'rejected' | 'inconclusive'

export interface ReplayOptions {
  target: string
  requestIds: readonly string[]
  fromSightings: boolean
  trials: number
  primers?: number
  originalPrompt?: boolean
  /** The target's KV pool and advertised window; the window falls back to /tokenize's max_model_len. */
  poolTokens?: number
  advertisedTokens?: number
  /** The pool of the stack the records came from: sizes are then scaled pool-relative. */
  sourcePoolTokens?: number
  timeoutMs: number
  allowRemote?: boolean
  apiKey?: string
  model?: string
  maxTokens?: number
  concurrency?: number
  /**
   * Why this run is made: to confirm the fault, or as a negative control (a fixed or rejecting
   * stack that should not leak). Unset: a confirmation, unless the target rejected every
   * trial, which is no evidence of the fault and is recorded as a negative control.
   */
  purpose?: 'confirmation' | 'negative-control'
  rng: Rng
  now: () => Date
  signal?: AbortSignal
  resolve?: Resolver
  onProgress?: (message: string) => void
}

export interface ReplayRecordResult extends Omit<ReplayResultRow, 'verdict' | 'rate' | 'primer_leaks' | 'other_markers' | 'unprimed' | 'other_owners'> {
  /** reproduced / judged; null where no trigger was judged (not known, never 0) */
  rate: number | null
  /**
   * Answers to the priming requests that carried another synthetic tenant's marker: the target
   * leaked during the replay. The record is confirmed by them even where no trigger's answer leaked.
   */
  primer_leaks: number
  /** the owners the case's canary registry names for the markers counted in `other_markers` (and primers' answers' markers the run gave no one) */
  other_owners: ReplayMarkerOwner[]
  /** markers the run gave no one, found in this record's answers, that the case's registry does not hold either: owner unknown */
  other_unowned: number
  verdict: ReplayVerdict
  /**
   * Triggers served with an answer that carried no text the client could read: searched for
   * nothing, so not counted in `trials`, the rate or the interval (a trial is a trigger judged,
   * rejected, hung or errored).
   */
  no_text: number
  /**
   * Triggers served with an answer not read whole (a stream cut off before `data: [DONE]`, or an
   * event that was no JSON document) whose text held no primer's marker: what was not read is not
   * known, so they are not counted in `trials`, the rate or the interval either (never as not reproduced).
   */
  incomplete: number
  /** Triggers judged (answered with readable text, or refused): `trials` less those that hung or errored. The rate and the interval are over these. */
  judged: number
  /** Trials not run because none of their primers was served (nothing was in the pool to leak): not counted in `trials`. */
  unprimed: number
  /**
   * Answers that carried a marker this run gave no synthetic tenant (no primer, no earlier
   * trigger) and none that it did, or one cut short to digits that the requester's own marker and
   * another the run gave out both begin with (`ambiguous_markers`): whose it is is not known. A
   * trigger's such answer neither reproduces the leak nor counts as not reproduced (not in
   * `trials`); a primer's is counted here too (the target sent a synthetic client a marker not
   * the run's: a customer's, maybe), and trips --fail-on-leak either way.
   */
  other_markers: number
  /** Of `other_markers`, answers whose marker was cut short so that whose it is cannot be told (the requester's own, or another the run gave out). */
  ambiguous_markers: number
  /**
   * Of `errors`, triggers the target refused naming a window (its context length) below the one
   * the run sized its triggers by, the trigger being past it: refused by the window, not by a fix
   * of the fault, so not judged (never a rejection, never a negative control).
   */
  window_rejections: number
}

export interface ReplayResult {
  run_id: number
  target: string
  model: string
  trials: number
  primers: number
  /** True when at least one record's original prompt (its logged text) was re-sent. */
  original_prompt: boolean
  /** --original-prompt was given; a record whose log holds no request text was sent a synthetic stand-in all the same (its scaling says which). */
  original_prompt_requested: boolean
  target_pool_tokens: number | null
  target_max_model_len: number | null
  /** How recorded prompt sizes were mapped onto this target (said out loud: a 700k-token record cannot be replayed as-is on a 4k testbed). */
  scaling_note: string
  started_at: string
  finished_at: string
  /** simulator: crosstalk's own testbed (it says so on /version), built to leak; external: any other stack */
  target_kind: 'simulator' | 'external'
  target_version: string | null
  purpose: 'confirmation' | 'negative-control'
  /** whether the purpose was given (--purpose) or defaulted from what the target did */
  purpose_given: boolean
  /** True when the run stopped before its end: Ctrl-C/SIGTERM, or a target failure. */
  interrupted: boolean
  /** The target failure that stopped the run, or null. */
  target_failure: TargetFailure | null
  results: ReplayRecordResult[]
}

export interface ScaledSize {
  tokens: number
  /** unrecorded_window_max: the log held neither a token count nor the prompt's text, so no size was recorded; the largest prompt the window takes was sent. */
  scaling: 'as_recorded' | 'scaled_to_pool' | 'clamped_to_gap' | 'clamped_to_window' | 'unrecorded_window_max'
}

/** Maps a recorded prompt size onto the target, keeping its position relative to the pool where we can. */
export function scalePromptSize(recorded: number | null, target: {poolTokens: number | null; maxModelLen: number; maxTokens: number; sourcePoolTokens: number | null}): ScaledSize {
  const limit = target.maxModelLen - target.maxTokens - 1
  const clamp = (n: number): number => Math.max(1, Math.min(limit, Math.round(n)))
  // No recorded size to keep or scale: say so, rather than label the window's maximum as the recorded size.
  if (recorded === null) return {tokens: Math.max(1, limit), scaling: 'unrecorded_window_max'}
  if (target.sourcePoolTokens !== null && target.poolTokens !== null) {
    const scaled = (recorded / target.sourcePoolTokens) * target.poolTokens
    // Scaled past the window, it is clamped as a recorded size would be, and labelled so: a size
    // clamped below the pool is no longer where the record was relative to its pool.
    if (Math.round(scaled) <= limit) return {tokens: clamp(scaled), scaling: 'scaled_to_pool'}
    return tooBig(limit, target.poolTokens)
  }
  if (recorded <= limit) return {tokens: recorded, scaling: 'as_recorded'}
  return tooBig(limit, target.poolTokens)
}

/** A size too big for the target's window: the nearest condition it can reproduce is "past the pool, inside the window"; with no such range, the window's largest. */
function tooBig(limit: number, poolTokens: number | null): ScaledSize {
  if (poolTokens !== null && poolTokens + 1 < limit) return {tokens: Math.floor((poolTokens + 1 + limit) / 2), scaling: 'clamped_to_gap'}
  return {tokens: Math.max(1, limit), scaling: 'clamped_to_window'}
}

/** Triggers judged: those the target answered with readable text or refused. A hung or erroring trigger tested nothing. */
export function judgedTrials(counts: {trials: number; hung?: number; errors?: number}): number {
  return Math.max(0, counts.trials - (counts.hung ?? 0) - (counts.errors ?? 0))
}

export function replayVerdict(counts: {trials: number; reproduced: number; rejected: number; hung?: number; errors?: number; no_text?: number; unprimed?: number; primer_leaks?: number}): ReplayVerdict {
  // A primer's answer that carried another synthetic tenant's marker is the fault seen on this target, whatever the triggers showed.
  if (counts.reproduced > 0 || (counts.primer_leaks ?? 0) > 0) return 'confirmed'
  const judged = judgedTrials(counts)
  // Nothing judged (every trigger hung, errored or was unreadable, or no primer was served before it): nothing was tested.
  if (judged === 0) return 'inconclusive'
  // Rejected only where the target refused every trigger judged: one served and not reproduced is a
  // trigger that entered the condition and did not leak, whatever the others met.
  if (counts.rejected >= judged) return 'rejected'
  return 'not_reproduced'
}

export async function runReplay(db: CaseDb, options: ReplayOptions): Promise<ReplayResult> {
  const records = selectRecords(db, {requestIds: options.requestIds, fromSightings: options.fromSightings})
  if (records.length === 0) throw new InputError('no records selected: pass --request-id or use --from-sightings on a case with cross-session/cross-tenant sightings', 'E_NO_RECORD')
  const url = await assertSafeTarget(options.target, {allowRemote: options.allowRemote ?? false, resolve: options.resolve})
  const client = new ServingClient({baseUrl: url, apiKey: options.apiKey, timeoutMs: options.timeoutMs, signal: options.signal})
  const progress = options.onProgress ?? (() => {})
  const rng = options.rng
  const maxTokens = options.maxTokens ?? 32
  const primers = options.primers ?? 3

  // Shown and stored without any user:password@ in --target (the requests still carry it).
  const shown = shownTarget(url)
  if (shown.strippedCredentials) progress('--target held credentials (user:password@): they are sent to the target but kept out of the case, the audit log and the output')
  if (shown.withheldQuery > 0) progress(`--target's query held ${shown.withheldQuery === 1 ? 'a value' : `${shown.withheldQuery} values`} that may be a secret (an API key): sent to the target, shown as ${WITHHELD} in the case, the audit log and the output`)
  const resolved = await client.resolveModel(options.model, url.origin)
  const tokenized = resolved === null ? null : await client.tokenize('x', 'chat', resolved)
  if (client.failure) throw new TargetFailed(client.failure, url.origin)
  if (resolved === null) throw new InputError('interrupted before the target answered', 'E_INTERRUPTED')
  const model = resolved
  if (tokenized?.ignoredMaxModelLen != null) progress(`the target's /tokenize says max_model_len ${tokenized.ignoredMaxModelLen}, which is no context window (SGLang reports its tokenizer's placeholder): ignored`)
  // A token count no tokenizer gives (ServingClient.plausibleCount) stops the use of /tokenize: said once, when first met.
  let countNoted = false
  const noteIgnoredCount = (): void => {
    if (countNoted || client.ignoredTokenCount === null) return
    countNoted = true
    progress(`the target's /tokenize gave ${client.ignoredTokenCount} as a prompt's token count, which is no count for it: ignored, and prompts sized by estimate`)
  }
  noteIgnoredCount()
  const serverWindow = tokenized?.maxModelLen ?? client.listedMaxModelLen ?? null
  // The target's own window below --advertised-tokens: a trigger sized past it is rejected by the
  // window, not by a fix of the fault, and would be stored as a rejection (a negative control).
  // Refused before anything is sent, with the window to pass instead (the probe calls the same
  // case inconclusive).
  if (options.advertisedTokens !== undefined && serverWindow !== null && serverWindow < options.advertisedTokens) {
    throw new InputError(
      `the target's own window (max_model_len ${serverWindow}, from ${tokenized?.maxModelLen != null ? '/tokenize' : '/v1/models'}) is below --advertised-tokens ${options.advertisedTokens}: triggers sized past it would be rejected by the window, not by the fault's fix; run again with --advertised-tokens ${serverWindow}`,
      'E_USAGE',
    )
  }
  const maxModelLen = options.advertisedTokens ?? serverWindow
  if (maxModelLen === null) {
    throw new InputError(
      tokenized?.ignoredMaxModelLen != null
        ? `the target's /tokenize says max_model_len ${tokenized.ignoredMaxModelLen}, which is no context window, and /v1/models lists none: pass --advertised-tokens`
        : client.ignoredTokenCount !== null
          ? "the target's /tokenize gave no plausible count (so no max_model_len is read from it), and /v1/models lists none: pass --advertised-tokens"
          : 'the target has no /tokenize to read max_model_len from: pass --advertised-tokens',
      'E_USAGE',
    )
  }
  // The testbed identifies itself on /version: a draft must never present the simulator, which is
  // built to leak, as the production stack. Asked before the run, while the target answers (a
  // target that hangs later is still known for what it is).
  const version = await client.serverVersion()
  const targetKind: ReplayTargetKind = version === TESTBED_VERSION ? 'simulator' : 'external'
  const poolTokens = options.poolTokens ?? null
  const sourcePool = options.sourcePoolTokens ?? null
  const scalingNote =
    sourcePool !== null && poolTokens !== null
      ? `prompt sizes scaled by the target's pool relative to the source's (${poolTokens}/${sourcePool}); a scaled size past the target's window (${maxModelLen} tokens) clamped ${poolTokens + 1 < maxModelLen - maxTokens - 1 ? `into its gap zone (pool ${poolTokens})` : 'to the window'}, and labelled so`
      : `recorded sizes kept where they fit the target's window (${maxModelLen} tokens); larger ones clamped ${poolTokens !== null ? `into its gap zone (pool ${poolTokens})` : 'to the window'}; a record with no recorded size (no token count, no prompt text) sent at the window's largest; pass --source-pool-tokens to scale pool-relative`

  const startedAt = options.now().toISOString()
  const runId = insertReplayRun(db, {
    startedAt,
    target: shown.href,
    model,
    trials: options.trials,
    primers,
    // Set when a record's original prompt is re-sent (markReplayRunOriginalPrompt): a record whose log holds no request text is sent a stand-in.
    originalPrompt: false,
    targetPoolTokens: poolTokens,
    targetMaxModelLen: maxModelLen,
    sourcePoolTokens: sourcePool,
    scalingNote,
    targetKind,
    targetVersion: version,
    purpose: (options.purpose ?? 'confirmation') satisfies ReplayPurpose,
  })

  const primerSize = Math.max(32, Math.min(256, Math.floor((poolTokens ?? 2048) / 8)))
  const filler = fillerWords(rng, Math.max(maxModelLen, primerSize) + 64)
  const results: ReplayRecordResult[] = []
  // Every canary this run gave a synthetic tenant: its primers', and its earlier triggers' (a
  // trigger primes the pool for the trials after it). One of them in a later trigger's answer is
  // another tenant's canary reaching it, whichever trial sent it.
  // (marker → owner, for readForeign: every one is "the run's"; only the requester's own is not foreign.)
  const runMarkers = new Map<string, string>()
  const RUN = 'run'
  const ownerOf = registryOwner(db)
  const stopped = (): boolean => (options.signal?.aborted ?? false) || client.failure !== null
  // A refusal by a window below the one the run sized by is said once per run.
  let windowNoted = false
  for (const record of records) {
    if (stopped()) break
    const result = await replayRecord(record)
    noteIgnoredCount()
    // A record none of whose trials went out has no result (not "not reproduced").
    if (result.trials + result.no_text + result.incomplete + result.unprimed + result.other_markers + result.primer_leaks === 0) break
    // One row per record as it completes: an interrupted run keeps what it measured. A record
    // judged by no trial (every trigger hung, errored or answered without readable text) is stored
    // as inconclusive, never as a negative, with its answers not judged counted: the drafts say so.
    {
      const {judged: _judged, other_unowned: _unowned, ambiguous_markers: _ambiguous, window_rejections: _window, ...row} = result
      insertReplayResult(db, runId, row)
      if (row.scaling === 'original_prompt') markReplayRunOriginalPrompt(db, runId)
    }
    results.push(result)
    progress(
      `${record.request_id}: ${result.verdict} (${result.reproduced}/${result.judged}${result.primer_leaks > 0 ? `; ${result.primer_leaks} answers to priming requests carried another synthetic tenant's marker: a leak observed` : ''}${result.hung + result.errors > 0 ? `; ${result.hung + result.errors} hung or errored, not judged` : ''}${result.no_text > 0 ? `; ${result.no_text} answered with no readable text` : ''}${result.incomplete > 0 ? `; ${result.incomplete} answered with a stream not read whole, not judged` : ''}${result.other_markers > 0 ? `; ${result.other_markers} answered with a marker the run gave no one${result.ambiguous_markers > 0 ? ` (${result.ambiguous_markers} cut short so that whose it is cannot be told)` : ''}, not judged` : ''}${result.unprimed > 0 ? `; ${result.unprimed} not run: no primer was served` : ''})`,
    )
  }
  // (Read again: the loop above may have tripped it since the check before the run started.)
  const failure = client.failure as TargetFailure | null
  if (failure) progress(`stopped: the target ${failure.outcome === 'hung' ? 'hung' : 'failed'} on ${failure.request}: ${failure.error}`)
  const finishedAt = options.now().toISOString()
  const interrupted = stopped()
  // --help: a negative control by default only where the target rejected every trial (none hung,
  // errored, was served or went unjudged).
  const allRejected = results.length > 0 && results.every((r) => r.rejected > 0 && r.rejected === r.trials && r.no_text + r.incomplete + r.other_markers + r.unprimed + r.primer_leaks === 0)
  const purpose = options.purpose ?? (allRejected ? 'negative-control' : 'confirmation')
  finishReplayRun(db, runId, finishedAt, interrupted, {purpose, targetKind, targetVersion: version})
  return {
    run_id: runId,
    target: shown.href,
    model,
    trials: options.trials,
    primers,
    original_prompt: results.some((r) => r.scaling === 'original_prompt'),
    original_prompt_requested: options.originalPrompt ?? false,
    target_pool_tokens: poolTokens,
    target_max_model_len: maxModelLen,
    scaling_note: scalingNote,
    started_at: startedAt,
    finished_at: finishedAt,
    target_kind: targetKind,
    target_version: version,
    purpose,
    purpose_given: options.purpose !== undefined,
    interrupted,
    target_failure: failure,
    results,
  }

  async function replayRecord(record: ReplayRecord): Promise<ReplayRecordResult> {
    const endpoint: Endpoint = record.endpoint !== null && /completions/.test(record.endpoint) && !/chat/.test(record.endpoint) ? 'completions' : 'chat'
    const stream = record.stream === 1
    const recorded = record.prompt_tokens ?? (record.request_text !== null ? tokenize(record.request_text).length : null)
    const original = options.originalPrompt === true && record.request_text !== null
    // Asked for, but there is nothing to re-send: said, and the result's scaling says what was sent (never 'original_prompt').
    if (options.originalPrompt === true && record.request_text === null) progress(`${record.request_id}: the log holds no request text: a synthetic stand-in of the recorded size was sent, not the original prompt`)
    let size: ScaledSize
    let words = 0
    if (original) {
      // The size of what is sent (the logged text), by the server's own count where it has one:
      // the recorded prompt_tokens can differ (a log keeps part of a prompt, or none of its template).
      const counted = (await client.tokenize(record.request_text!, endpoint, model!))?.count ?? tokenize(record.request_text!).length
      size = {tokens: counted, scaling: 'as_recorded'}
    } else {
      size = scalePromptSize(recorded, {poolTokens, maxModelLen: maxModelLen!, maxTokens, sourcePoolTokens: sourcePool})
      const sized = await sizePrompt(client, {endpoint, model: model!, target: size.tokens, template: newPersona(rng, 'trigger'), filler})
      words = sized.words
      size = {...size, tokens: sized.tokens}
    }
    const primerWords = primerSize
    let reproduced = 0
    let rejected = 0
    let hung = 0
    let errors = 0
    let trials = 0
    let noText = 0
    let incomplete = 0
    let unprimed = 0
    let otherMarkers = 0
    let primerLeaks = 0
    let ambiguousMarkers = 0
    let windowRejections = 0
    // Markers the run gave no one, found in this record's answers: looked up in the case's registry.
    const otherSeen = new Set<string>()
    // A marker the run gave a synthetic tenant, found whole, cut short by max_tokens or run into more hex (readForeign).
    const isRunMarker = (m: ForeignMarker): boolean => !m.ambiguous && m.owners.length > 0
    const noteOthers = (markers: readonly ForeignMarker[]): void => {
      for (const m of markers) if (!m.ambiguous && m.owners.length === 0) otherSeen.add(m.marker)
    }
    for (let trial = 0; trial < options.trials; trial++) {
      if (stopped()) break
      const primerPersonas = Array.from({length: primers}, (_, i) => newPersona(rng, `primer${i + 1}`))
      for (const persona of primerPersonas) runMarkers.set(persona.canary.toLowerCase(), RUN)
      const primed = await mapLimit(primerPersonas, options.concurrency ?? 4, (persona) =>
        client.generate({endpoint: 'chat', model: model!, stream: false, maxTokens, text: buildPrompt(persona, filler, primerWords)}),
      )
      // Every answer is searched whole (its body too, receivedText), the primers' too: another synthetic tenant's marker in a primer's
      // answer is the target leaking during this replay, whatever the trigger then shows. Any other
      // marker (one the run gave no one: a customer's, registered in the case or not, or one cut
      // short so that whose it is cannot be told) is counted too: never an answer with nothing in it.
      primed.forEach((answer, i) => {
        if (!answer) return
        const foreign = readForeign(receivedText(answer), [primerPersonas[i]!.canary], runMarkers)
        if (foreign.some(isRunMarker)) primerLeaks++
        else if (foreign.length > 0) {
          otherMarkers++
          if (foreign.some((m) => m.ambiguous)) ambiguousMarkers++
        }
        noteOthers(foreign)
      })
      // A trial is its trigger: if the primers already broke the target, this one never ran.
      if (stopped()) break
      // No primer served: nothing of another tenant was put in the pool, so the trigger could show nothing. Not a trial.
      if (!primed.some((primer) => primer?.outcome === 'served')) {
        unprimed++
        continue
      }
      const trigger: Persona = newPersona(rng, 'trigger')
      const text = original ? record.request_text! : buildPrompt(trigger, filler, words)
      // The trigger's markers are the run's once sent (an original prompt's too: the run sent them): one in a later primer's answer is the fault reproduced.
      for (const marker of original ? findMarkers(text) : [trigger.canary]) runMarkers.set(marker.toLowerCase(), RUN)
      const result: GenerateResult = await client.generate({endpoint, model: model!, stream, maxTokens, text})
      // Cut short by Ctrl-C/SIGTERM: the trigger was not answered, and is no trial of any kind.
      if (options.signal?.aborted && result.outcome === 'error') break
      const own = original ? findMarkers(text) : [trigger.canary]
      // Every answer that carried text is searched, whatever its outcome: an error event after
      // (or beside) the text delivered it all the same. Only a primer's canary reproduces the
      // leak; a marker the run gave no one is reported apart (its owner is not known).
      // A marker cut short by max_tokens is read as the scan reads one in a log: of the trigger's own
      // marker, an echo; of another the run gave out, that marker; of both, ambiguous (not judged).
      // The whole body is searched beside the text read from it (receivedText), as the probe does:
      // a marker can sit in a member no answer shape reads (an extra key, system_fingerprint).
      const foreign = readForeign(receivedText(result), own, runMarkers)
      const leaked = foreign.some(isRunMarker)
      noteOthers(foreign)
      if (!leaked && foreign.length > 0) {
        otherMarkers++
        if (foreign.some((m) => m.ambiguous)) ambiguousMarkers++
        continue
      }
      // An answer with no readable text was searched for nothing: it cannot count as not reproduced.
      if (!leaked && result.outcome === 'served' && !hasText(result)) {
        noText++
        continue
      }
      // A stream cut off, or holding an event that was no JSON document: what was read held no
      // primer's marker, what was not is not known. No trial of any kind (never not reproduced).
      if (!leaked && result.outcome === 'served' && result.incomplete !== null) {
        incomplete++
        continue
      }
      trials++
      // A refusal that names a window below the one the run sized its triggers by (the stack's own
      // window, which no /tokenize or model list gave), and this trigger past it: refused by the
      // window, not by a fix of the fault. Not judged (an error, never a rejection nor a negative
      // control), said once, with the window to pass instead (the probe reads the same refusal so).
      const window = result.outcome === 'rejected' ? statedWindow(result.error) : null
      if (!leaked && window !== null && window < maxModelLen! && size.tokens + maxTokens > window) {
        errors++
        windowRejections++
        if (!windowNoted) {
          windowNoted = true
          progress(`${record.request_id}: the target refused a trigger of ${size.tokens} tokens naming its window as ${window} tokens, below the ${maxModelLen} the run sized by: refused by the window, not by a fix of the fault, so not judged; run again with --advertised-tokens ${window}`)
        }
        continue
      }
      if (leaked) reproduced++
      else if (result.outcome === 'rejected') rejected++
      else if (result.outcome === 'hung') hung++
      else if (result.outcome === 'error') errors++
    }
    const judged = judgedTrials({trials, hung, errors})
    const {low, high} = wilsonInterval(reproduced, judged)
    const owners = new Map<string, ReplayMarkerOwner>()
    let unowned = 0
    for (const marker of otherSeen) {
      const owner = ownerOf(marker)
      if (owner) owners.set(JSON.stringify([owner.tenant, owner.session]), owner)
      else unowned++
    }
    return {
      record_id: record.id,
      request_id: record.request_id,
      endpoint: endpoint === 'chat' ? '/v1/chat/completions' : '/v1/completions',
      stream,
      original_prompt_tokens: record.prompt_tokens,
      replay_prompt_tokens: size.tokens,
      scaling: original ? 'original_prompt' : size.scaling,
      trials,
      reproduced,
      rejected,
      hung,
      errors,
      rate: judged === 0 ? null : reproduced / judged,
      wilson_low: low,
      wilson_high: high,
      verdict: replayVerdict({trials, reproduced, rejected, hung, errors, no_text: noText, unprimed, primer_leaks: primerLeaks}),
      no_text: noText,
      incomplete,
      judged,
      unprimed,
      other_markers: otherMarkers,
      ambiguous_markers: ambiguousMarkers,
      primer_leaks: primerLeaks,
      window_rejections: windowRejections,
      other_owners: [...owners.values()],
      other_unowned: unowned,
    }
  }
}
