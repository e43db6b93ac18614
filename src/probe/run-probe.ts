import type {Rng} from '../util/rng.js'
import {hasText, isAuthStatus, receivedText, ServingClient, statedWindow, type Endpoint, type GenerateResult, type TargetFailure} from './client.js'
import {mapLimit} from './limit.js'
import {foreignMarkers, readForeign, type ForeignMarker} from './markers.js'
import {buildPrompt, fillerWords, newPersona, sizePrompt, type Persona, type SizedPrompt} from './prompts.js'
import {assertSafeTarget, shownTarget, WITHHELD, type Resolver} from './target-guard.js'
import {count} from '../util/plural.js'

// The CI gate. Three probes against an OpenAI-compatible server:
//  - context limits: a prompt just below the KV pool must be served; prompts in the gap between
//    pool and advertised window (one just above the pool, one midway), and above the window, must
//    be rejected explicitly (4xx or an error event in the stream), never served or left hanging.
//    A stack whose own refusal (or /tokenize, or /v1/models) names a window below the advertised
//    one is also sent a prompt midway between the pool and that window: the range a midway gap
//    prompt past that window never reaches, and where stale pages are served;
//  - contamination: synthetic tenants with fresh canaries, concurrent and repeated, gap sizes
//    included; any marker in a response that is not the requester's own is a leak;
//  - cache isolation: the same cache_salt must hit and a different salt must miss. Checking only
//    the miss passes when caching is off, so a missing hit makes the probe inconclusive.
// The verdict fails on positive evidence (a leak, a gap prompt served or hung) and on a target
// that stops answering (hangs, resets, redirects, stays overloaded): the run stops there, a
// `target.responsive` check says what happened, and the checks never run are listed. An
// erroring baseline makes it inconclusive; an interrupted run is never a pass.

export type CheckOutcome = 'served' | 'rejected' | 'hung' | 'error' | 'leak' | 'clean'
export type Verdict = 'pass' | 'fail' | 'inconclusive'

export interface ProbeCheck {
  name: string
  size_tokens: number | null
  outcome: CheckOutcome
  ok: boolean
  /** The probe could not decide (baseline not served, caching not observable). */
  inconclusive: boolean
  expected: string
  detail: string
  stream: boolean
  requests: number
  http_status: number | null
  elapsed_ms: number
  /**
   * not_sent: requests the run never sent (interrupted, or the target had already failed);
   * no_text: served answers that carried no text the probe could read (searched for nothing);
   * incomplete: served answers not read whole (a stream cut off, or an event that was no JSON
   * document) whose text held no foreign marker: not known clean.
   */
  counts?: {served: number; rejected: number; hung: number; error: number; leaks: number; not_sent: number; no_text: number; incomplete: number}
  /** Which synthetic tenant's marker reached which (synthetic) tenant. */
  leak_flows?: Array<{source_tenant: string; recipient_tenant: string}>
  cached_tokens?: number | null
}

export interface ProbeResult {
  verdict: Verdict
  target: string
  /** null when the target failed before naming one. */
  model: string | null
  pool_tokens: number
  advertised_tokens: number
  server_max_model_len: number | null
  /**
   * The smallest window the stack's own refusals of a context prompt named ("maximum context
   * length is N tokens"), or null when none named one.
   */
  stated_max_model_len: number | null
  sizing: 'tokenize' | 'estimate'
  started_at: string
  duration_ms: number
  interrupted: boolean
  /** The failure that stopped the run (also reported as the `target.responsive` check), or null. */
  target_failure: TargetFailure | null
  /** Checks planned but not run (interrupted, or stopped by a target failure). */
  not_run: string[]
  checks: ProbeCheck[]
}

export interface ProbeOptions {
  target: string
  poolTokens: number
  advertisedTokens: number
  timeoutMs: number
  allowRemote?: boolean
  apiKey?: string
  model?: string
  tenants?: number
  rounds?: number
  concurrency?: number
  maxTokens?: number
  rng: Rng
  now: () => Date
  signal?: AbortSignal
  resolve?: Resolver
  onProgress?: (message: string) => void
}

interface SizeClass {
  /**
   * gap: midway between the pool and the advertised window; gap_low: just above the pool;
   * gap_window: midway between the pool and a smaller window the stack itself named (planned
   * only when it names one, see windowGapSize).
   */
  key: 'small' | 'below_pool' | 'gap' | 'gap_low' | 'gap_window' | 'above_window'
  tokens: number
  /** The prompt should be served (true) or rejected (false). */
  servable: boolean
}

export function planSizes(poolTokens: number, advertisedTokens: number, maxTokens: number): SizeClass[] {
  // Generation needs KV too: "just below the pool" leaves room for max_tokens plus a margin.
  const margin = Math.max(16, Math.ceil(poolTokens * 0.02))
  const sizes: SizeClass[] = [
    {key: 'small', tokens: Math.max(32, Math.min(256, Math.floor(poolTokens / 8))), servable: true},
    {key: 'below_pool', tokens: Math.max(32, poolTokens - maxTokens - margin), servable: true},
  ]
  // The gap exists only when the window is larger than the pool (room for a prompt plus its output).
  // One size midway is not enough: a stack whose real window is below the advertised one refuses
  // it for that window while serving stale pages below it. So one more just past the pool (by the
  // margin the baseline keeps below it, so an estimated size still lands past it).
  const top = advertisedTokens - maxTokens - 1
  if (top > poolTokens + 1) {
    const middle = Math.floor((poolTokens + 1 + top) / 2)
    sizes.push({key: 'gap', tokens: middle, servable: false})
    const low = poolTokens + margin
    if (low < middle) sizes.push({key: 'gap_low', tokens: low, servable: false})
  }
  sizes.push({key: 'above_window', tokens: advertisedTokens + 16, servable: false})
  return sizes
}

/**
 * The prompt size midway between the pool and a window `window` below --advertised-tokens, or
 * null when that window leaves no room past the pool for a prompt and its output (a window at or
 * below the pool is the fix for the leak: nothing to test).
 */
export function windowGapSize(poolTokens: number, window: number, maxTokens: number): SizeClass | null {
  const top = window - maxTokens - 1
  if (top <= poolTokens + 1) return null
  return {key: 'gap_window', tokens: Math.floor((poolTokens + 1 + top) / 2), servable: false}
}

export async function runProbe(options: ProbeOptions): Promise<ProbeResult> {
  const startedAt = options.now()
  const started = Date.now()
  const url = await assertSafeTarget(options.target, {allowRemote: options.allowRemote ?? false, resolve: options.resolve})
  const client = new ServingClient({baseUrl: url, apiKey: options.apiKey, timeoutMs: options.timeoutMs, signal: options.signal})
  const progress = options.onProgress ?? (() => {})
  // Reported without any user:password@ in --target (the requests still carry it).
  const shown = shownTarget(url)
  if (shown.strippedCredentials) progress('--target held credentials (user:password@): they are sent to the target but kept out of the output and the JUnit report')
  if (shown.withheldQuery > 0) progress(`--target's query held ${shown.withheldQuery === 1 ? 'a value' : `${shown.withheldQuery} values`} that may be a secret (an API key): sent to the target, shown as ${WITHHELD} in the output and the JUnit report`)
  const maxTokens = options.maxTokens ?? 32
  const endpoint: Endpoint = 'chat'
  const rng = options.rng
  const sizes = planSizes(options.poolTokens, options.advertisedTokens, maxTokens)
  const checks: ProbeCheck[] = []
  // Stop sending once interrupted or once the target has failed (see ServingClient.failure).
  const stopped = (): boolean => (options.signal?.aborted ?? false) || client.failure !== null
  let serverMaxModelLen: number | null = null
  let statedMaxModelLen: number | null = null
  let method: 'tokenize' | 'estimate' = 'estimate'
  const finish = (model: string | null): ProbeResult => {
    const failure = client.failure
    if (failure) {
      checks.push(targetCheck(failure))
      progress(`target.responsive: ${failure.outcome} (${failure.request}); stopped sending`)
    }
    const interrupted = options.signal?.aborted ?? false
    const names = new Set(checks.map((check) => check.name))
    const verdict = verdictOf(checks)
    return {
      // A run cut short proves nothing about what it did not run.
      verdict: verdict === 'pass' && interrupted ? 'inconclusive' : verdict,
      target: shown.href,
      model,
      pool_tokens: options.poolTokens,
      advertised_tokens: options.advertisedTokens,
      server_max_model_len: serverMaxModelLen,
      stated_max_model_len: statedMaxModelLen,
      sizing: method,
      started_at: startedAt.toISOString(),
      duration_ms: Date.now() - started,
      interrupted,
      target_failure: failure,
      not_run: plannedChecks(sizes).filter((name) => !names.has(name)),
      checks,
    }
  }

  const model = await client.resolveModel(options.model, url.origin)
  if (model === null || stopped()) return finish(model)

  const filler = fillerWords(rng, Math.max(...sizes.map((s) => s.tokens)) + 64)
  const sized = new Map<string, SizedPrompt>()
  for (const size of sizes) {
    const result = await sizePrompt(client, {endpoint, model, target: size.tokens, template: newPersona(rng, 'sizing'), filler})
    sized.set(size.key, result)
    method = result.method
  }
  if (stopped()) return finish(model)
  if (method === 'tokenize') {
    const tokenized = await client.tokenize('x', endpoint, model)
    serverMaxModelLen = tokenized?.maxModelLen ?? null
    if (tokenized?.ignoredMaxModelLen != null) progress(`the target's /tokenize says max_model_len ${tokenized.ignoredMaxModelLen}, which is no context window: ignored`)
  }
  serverMaxModelLen ??= client.listedMaxModelLen
  if (client.ignoredTokenCount !== null) progress(`the target's /tokenize gave ${client.ignoredTokenCount} as a prompt's token count, which is no count for it: ignored, and /tokenize not used`)
  progress(`sized ${sizes.length} prompt classes by ${method === 'tokenize' ? "the server's /tokenize" : `estimate (${client.ignoredTokenCount !== null ? "the target's /tokenize gave no plausible count" : 'no /tokenize'})`}`)

  const send = (persona: Persona, size: SizeClass, stream: boolean, cacheSalt?: string): Promise<GenerateResult> =>
    client.generate({endpoint, model, stream, maxTokens, cacheSalt, text: buildPrompt(persona, filler, sized.get(size.key)!.words)})
  const sizeOf = (size: SizeClass): number => sized.get(size.key)!.tokens

  // (a) Context limits, one request each: below pool, gap (midway, plain and streamed), gap just
  // past the pool, above window; then, where the stack names a smaller window, midway below it.
  const baselineTenants: Persona[] = []
  const context: Array<{size: SizeClass; stream: boolean; persona: Persona; result: GenerateResult}> = []
  const sendContext = async (size: SizeClass): Promise<void> => {
    for (const stream of size.key === 'gap' ? [false, true] : [false]) {
      if (stopped()) break
      const persona = newPersona(rng, 'context')
      baselineTenants.push(persona)
      const result = await send(persona, size, stream)
      context.push({size, stream, persona, result})
      progress(`context.${size.key}${stream ? '_stream' : ''}: ${result.outcome}`)
    }
  }
  for (const size of sizes.filter((s) => s.key !== 'small')) await sendContext(size)
  // A refusal that names a window below --advertised-tokens ("maximum context length is 2000
  // tokens": a router or a disaggregated frontend listing another window than the engine's) says
  // the stack does not serve what it advertises; the midway gap prompt may be past that window,
  // refused for it, while prompts between the pool and it are served from stale pages.
  const stated = context.filter((entry) => entry.result.outcome === 'rejected').map((entry) => statedWindow(entry.result.error)).filter((n): n is number => n !== null)
  statedMaxModelLen = stated.length > 0 ? Math.min(...stated) : null
  const windows = [serverMaxModelLen, statedMaxModelLen].filter((n): n is number => n !== null)
  const realWindow = windows.length > 0 ? Math.min(...windows) : null
  if (realWindow !== null && realWindow < options.advertisedTokens && !stopped()) {
    const extra = windowGapSize(options.poolTokens, realWindow, maxTokens)
    if (extra !== null && !sizes.some((size) => size.tokens === extra.tokens)) {
      sizes.splice(sizes.findIndex((size) => size.key === 'above_window'), 0, extra)
      sized.set(extra.key, await sizePrompt(client, {endpoint, model, target: extra.tokens, template: newPersona(rng, 'sizing'), filler}))
      progress(`the stack names a window of ${realWindow} tokens, below --advertised-tokens ${options.advertisedTokens}: a prompt of ${sizeOf(extra)} tokens is sent between the pool and it`)
      await sendContext(extra)
    }
  }
  // The prompts that reached the range from the pool to that window (sent, answered, and sized past the pool and within the window).
  const windowTestedBy =
    realWindow === null
      ? []
      : context
          .filter(({size, result}) => (size.key === 'gap_low' || size.key === 'gap_window') && result.attempts > 0 && result.error !== 'interrupted' && sizeOf(size) > options.poolTokens && sizeOf(size) + maxTokens < realWindow)
          .map(({size}) => `context.${size.key}`)
  for (const {size, stream, persona, result} of context) {
    checks.push(contextCheck(size, sizeOf(size), stream, persona, result, {serverMaxModelLen, realWindow, windowTestedBy, maxTokens, advertised: options.advertisedTokens, pool: options.poolTokens}))
  }

  // (b) Contamination: tenants x rounds x sizes, concurrent.
  const tenants = Array.from({length: options.tenants ?? 4}, (_, i) => newPersona(rng, `t${i + 1}`))
  const owners = new Map<string, string>([...tenants, ...baselineTenants].map((p) => [p.canary.toLowerCase(), p.tenant]))
  const contaminationSizes = sizes.filter((s) => s.key !== 'above_window')
  const jobs: Array<{size: SizeClass; tenant: Persona; persona: Persona}> = []
  for (let round = 0; round < (options.rounds ?? 2); round++) {
    for (const size of contaminationSizes) {
      for (const tenant of tenants) {
        // A fresh canary per request, registered to the tenant: a repeat of its own earlier marker is still a leak across sessions.
        const persona: Persona = {...tenant, session: `${tenant.session}-r${round}`, canary: newPersona(rng, 'c').canary}
        owners.set(persona.canary.toLowerCase(), tenant.tenant)
        jobs.push({size, tenant, persona})
      }
    }
  }
  shuffle(jobs, rng)
  const results = stopped() ? jobs.map(() => null) : await mapLimit(jobs, options.concurrency ?? 4, async (job) => (stopped() ? null : send(job.persona, job.size, rng() < 0.5)))
  for (const size of contaminationSizes) {
    const mine = jobs.map((job, i) => ({job, result: results[i]})).filter((entry) => entry.job.size.key === size.key)
    // A class none of whose requests went out has nothing to report: it is listed under not_run.
    if (mine.every((entry) => !entry.result)) continue
    checks.push(contaminationCheck(size, sizeOf(size), mine, owners))
    progress(`contamination.${size.key}: ${checks.at(-1)!.outcome}`)
  }

  // (c) Cache isolation.
  if (!stopped()) {
    const cache = await cacheChecks(client, {model, endpoint, maxTokens, rng, filler, poolTokens: options.poolTokens, owners})
    if (cache !== null) checks.push(...cache)
  }
  return finish(model)
}

/** Every check a full run produces, in order; the ones a run did not get to are reported as not_run. */
function plannedChecks(sizes: readonly SizeClass[]): string[] {
  const context = sizes.filter((s) => s.key !== 'small').flatMap((s) => (s.key === 'gap' ? ['context.gap', 'context.gap_stream'] : [`context.${s.key}`]))
  const contamination = sizes.filter((s) => s.key !== 'above_window').map((s) => `contamination.${s.key}`)
  return [...context, ...contamination, 'cache_isolation.same_salt', 'cache_isolation.different_salt']
}

/** The failure that stopped the run, as a failed check: a gate never passes a target that would not answer. */
function targetCheck(failure: TargetFailure): ProbeCheck {
  // Refused credentials are our setup's fault, not the stack's: nothing was checked (inconclusive, which the gate still fails).
  // So is a model the target does not serve (a wrong --model): nothing of the stack was checked.
  const auth = failure.httpStatus !== null && (isAuthStatus(failure.httpStatus) || (failure.httpStatus === 404 && failure.error.includes('does not serve the model')))
  return {
    name: 'target.responsive',
    size_tokens: null,
    outcome: failure.outcome,
    ok: false,
    inconclusive: auth,
    expected: 'an HTTP answer to every request within --timeout',
    detail: `${failure.request}: ${failure.error}; the probe stopped sending`,
    stream: false,
    requests: 1,
    http_status: failure.httpStatus,
    elapsed_ms: 0,
  }
}

export function verdictOf(checks: readonly ProbeCheck[]): Verdict {
  if (checks.some((check) => !check.ok && !check.inconclusive)) return 'fail'
  if (checks.some((check) => check.inconclusive)) return 'inconclusive'
  return 'pass'
}

function contextCheck(
  size: SizeClass, tokens: number, stream: boolean, persona: Persona, result: GenerateResult,
  window: {serverMaxModelLen: number | null; realWindow: number | null; windowTestedBy: readonly string[]; maxTokens: number; advertised: number; pool: number},
): ProbeCheck {
  // Every answer is searched, whatever came with it: a marker followed by an error event, or in an HTML error page, is still delivered.
  const foreign = foreignMarkers(receivedText(result), [persona.canary])
  const outcome: CheckOutcome = foreign.length > 0 ? 'leak' : result.outcome
  const base = {
    name: `context.${size.key}${stream ? '_stream' : ''}`,
    size_tokens: tokens,
    outcome,
    stream,
    requests: 1,
    http_status: result.httpStatus,
    elapsed_ms: result.elapsedMs,
    expected: size.servable ? 'served' : 'rejected',
  }
  const why = result.error ?? ''
  // Ctrl-C or SIGTERM ended the request before its answer: the target was not observed, so neither
  // its pool nor its errors can be named (a baseline 'not served', a 'server error' would be guesses).
  if (outcome === 'error' && result.error === 'interrupted') {
    return {...base, ok: false, inconclusive: true, detail: 'interrupted before the target answered: not observed'}
  }
  if (size.servable) {
    // An answer with no text the probe could read was searched for nothing: not a clean observation.
    if (outcome === 'served' && !hasText(result)) return {...base, ok: false, inconclusive: true, detail: `served below the pool, but the answer carried no text the probe could read${why ? ` (${why})` : ''}: its body held no foreign marker, but was not read as an answer`}
    // A stream cut off or holding an event that was no JSON document: what was read held no foreign marker, what was not is not known.
    if (outcome === 'served' && result.incomplete !== null) return {...base, ok: false, inconclusive: true, detail: `served below the pool, but the answer was not read whole (${result.incomplete}): no foreign markers in what was read, the rest not known`}
    if (outcome === 'served') return {...base, ok: true, inconclusive: false, detail: 'served below the pool; its answer was read: no foreign markers'}
    if (outcome === 'leak') return {...base, ok: false, inconclusive: false, detail: `${answeredAs(result)} with ${count(foreign.length, 'foreign marker')}`}
    // A baseline that is not served says the probe's assumptions (pool size, reachability) are off, not that the stack leaks.
    // A 404 or 405 is the route's, not the prompt's: a wrong --target path or another server there.
    const status = result.httpStatus
    const check =
      status === 404 && result.error !== null && result.error.includes('does not serve the model')
        ? 'check --model (HTTP 404: the target does not serve it)'
        : status === 404 || status === 405
        ? `check --target (HTTP ${status}: the chat route is not there)`
        : status !== null && status >= 200 && status < 300
          ? 'check --target (an HTTP 200 that is no completion: not the serving stack, or not readable)'
          : 'check --pool-tokens'
    return {...base, ok: false, inconclusive: true, detail: `baseline not served (${outcome}${why ? `: ${why}` : ''})${searchedBody(result)}; ${check}`}
  }
  // The server's own window below --advertised-tokens (its /tokenize or /v1/models, or the window
  // its refusal names), and this prompt past it: the rejection may be the window's, and the range
  // between the pool and that window (where stale pages are served) is not tested by this prompt.
  // A window at or below the pool (the fix for the leak) leaves no such range: no gap to test.
  const m = window.realWindow
  const gapUnderWindow = m !== null && m - window.maxTokens - 1 > window.pool + 1
  if (outcome === 'rejected' && size.key !== 'above_window' && m !== null && gapUnderWindow && m < window.advertised && tokens + window.maxTokens > m) {
    const named = m === window.serverMaxModelLen ? `max_model_len ${m}` : `${m} tokens, as its refusal names it`
    const tested = window.windowTestedBy.length > 0 ? `was tested by ${window.windowTestedBy.join(' and ')} (see ${window.windowTestedBy.length === 1 ? 'that check' : 'those checks'}), not by this prompt` : 'was not tested'
    return {
      ...base, ok: false, inconclusive: true,
      detail: `rejected, but the server's window (${named}) is below --advertised-tokens ${window.advertised} and this prompt (${tokens} tokens) is past it: the range from the pool to ${m} ${tested}; run again with --advertised-tokens ${m}`,
    }
  }
  switch (outcome) {
    case 'rejected':
      return {...base, ok: true, inconclusive: false, detail: result.inStreamError ? 'rejected by an error event inside an HTTP 200 stream' : `rejected with HTTP ${result.httpStatus}`}
    case 'served':
      return {...base, ok: false, inconclusive: false, detail: `served with HTTP 200: silent degradation instead of a rejection (${hasText(result) ? 'its answer was read: no foreign markers' : 'its answer had no readable text; its body held no foreign markers'})`}
    case 'leak':
      return {...base, ok: false, inconclusive: false, detail: `${answeredAs(result)} and ${count(foreign.length, 'foreign marker')}: stale KV`}
    case 'hung':
      return {...base, ok: false, inconclusive: false, detail: why}
    default:
      return {...base, ok: false, inconclusive: true, detail: `${errorLabel(result)}, not an explicit rejection (${why})${searchedBody(result)}`}
  }
}

/** What an answer that was neither served nor rejected was, by how it came. */
function errorLabel(result: GenerateResult): string {
  if (result.inStreamError) return 'a server error event inside an HTTP 200 stream'
  const status = result.httpStatus
  if (status === null) return 'no HTTP answer'
  return status >= 500 ? 'server error' : `HTTP ${status}`
}

/** What was searched in an answer that was no completion: its body, when one came back. */
function searchedBody(result: GenerateResult): string {
  return result.body.trim() !== '' ? '; its body was searched: no foreign markers' : ''
}

/** How an answer that carried text arrived, for a leak's detail: a leak beside an error is still one. */
// The error's own text is not quoted: the leak may sit in it (a gateway's 502 page quoting the
// stale answer), and leaked content is never printed.
function answeredAs(result: GenerateResult): string {
  if (result.outcome === 'served') return 'served with HTTP 200'
  return result.inStreamError ? `answered in an HTTP 200 stream that then sent an error event (${result.outcome})` : `answered with HTTP ${result.httpStatus} and an error (${result.outcome}; its text not shown)`
}

/** leak_flows' source_tenant for a marker no probe tenant was given. */
const UNKNOWN_OWNER = 'unknown'

/** Whose the foreign markers are, as far as the probe gave them out: never "another tenant's" for a marker it gave no one. */
function ownersOf(foreign: readonly ForeignMarker[]): string {
  const known = foreign.filter((m) => !m.ambiguous && m.owners.length > 0).length
  const ambiguous = foreign.filter((m) => m.ambiguous).length
  const unknown = foreign.length - known - ambiguous
  return [known > 0 ? `${known} given to another probe tenant` : '', ambiguous > 0 ? `${ambiguous} cut short to digits that markers of several probe tenants begin with: owner ambiguous` : '', unknown > 0 ? `${unknown} given to no probe tenant: owner unknown` : ''].filter(Boolean).join('; ')
}

function contaminationCheck(
  size: SizeClass,
  tokens: number,
  entries: Array<{job: {tenant: Persona; persona: Persona}; result: GenerateResult | null | undefined}>,
  owners: Map<string, string>,
): ProbeCheck {
  const counts = {served: 0, rejected: 0, hung: 0, error: 0, leaks: 0, not_sent: 0, no_text: 0, incomplete: 0}
  // Answers that carried text or a body, whatever their outcome: the ones searched for markers.
  let searched = 0
  const flows = new Map<string, {source_tenant: string; recipient_tenant: string}>()
  // Markers no probe tenant was given (the server's own text, or traffic not the probe's): whose they are is not known.
  const unowned = new Set<string>()
  // Markers cut short to digits that markers of several owners begin with: whose they are cannot be told.
  const ambiguous = new Set<string>()
  let status: number | null = null
  let elapsed = 0
  for (const {job, result} of entries) {
    if (!result || result.attempts === 0) {
      counts.not_sent++
      continue
    }
    counts[result.outcome]++
    status ??= result.httpStatus
    elapsed = Math.max(elapsed, result.elapsedMs)
    // Every answer is searched, whatever its outcome (an error after the text delivered it all the
    // same; an HTML or plain-text error page is text the client received). A served answer with
    // no readable text is counted apart (no clean read) even where its body was searched.
    if (result.outcome === 'served' && !hasText(result)) counts.no_text++
    const received = receivedText(result)
    if (received.trim() === '') continue
    searched++
    const foreign = readForeign(received, [job.persona.canary], owners)
    if (foreign.length === 0) {
      if (result.outcome === 'served' && result.incomplete !== null) counts.incomplete++
      continue
    }
    counts.leaks++
    for (const found of foreign) {
      const owner = !found.ambiguous && found.owners.length === 1 ? found.owners[0] : undefined
      if (owner === undefined) (found.ambiguous ? ambiguous : unowned).add(found.marker)
      const source = owner ?? UNKNOWN_OWNER
      flows.set(`${source}>${job.tenant.tenant}`, {source_tenant: source, recipient_tenant: job.tenant.tenant})
    }
  }
  const outcome: CheckOutcome =
    counts.leaks > 0 ? 'leak' : counts.hung > 0 ? 'hung' : !size.servable && counts.served > 0 ? 'served' : counts.error > 0 ? 'error' : 'clean'
  // Only answers with readable text were searched. A class that should be served and gave no
  // such answer (nothing served, or nothing readable in what was) has no clean result: not known.
  // Nor has one where some served answers could not be read: what they held is not known.
  const read = counts.served - counts.no_text - counts.incomplete
  const unobserved = outcome === 'clean' && size.servable && (read === 0 || counts.no_text > 0 || counts.incomplete > 0)
  // A flow is cross-tenant only where the marker's owner is known and is another tenant.
  const crossTenant = [...flows.values()].filter((flow) => flow.source_tenant !== UNKNOWN_OWNER && flow.source_tenant !== flow.recipient_tenant).length
  const notWhole = counts.incomplete > 0 ? `, ${counts.incomplete} not read whole` : ''
  const served = `${counts.served} served${counts.served > 0 ? ` (${read} read, ${counts.no_text} with no readable text${notWhole})` : ''}`
  const detail =
    outcome === 'leak'
      ? `${counts.leaks} of the ${count(counts.served + counts.rejected + counts.error, 'answer')} received (${answered(counts)}) carried foreign markers${counts.not_sent > 0 ? `, ${counts.not_sent} not sent` : ''} (${count(crossTenant, 'cross-tenant flow')}${ambiguous.size > 0 ? `; ${count(ambiguous.size, 'marker')} cut short to digits that markers of several probe tenants begin with: owner ambiguous` : ''}${unowned.size > 0 ? `; ${count(unowned.size, 'marker')} no probe tenant was given: owner unknown` : ''})${counts.no_text > 0 ? `; ${counts.no_text} served with no readable text, their bodies searched` : ''}`
      : `${served}, ${counts.rejected} rejected, ${counts.hung} hung, ${counts.error} errors${counts.not_sent > 0 ? `, ${counts.not_sent} not sent` : ''}; ${
          !unobserved
            ? read > 0
              ? `no foreign markers in the ${read} read`
              : searched > 0
                ? `no foreign markers in the text of ${count(searched, 'answer')} not served (error bodies)`
                : 'no answer carried a body, so none was searched for foreign markers'
            : counts.served === 0
              ? 'nothing served below the pool, so no answer could be searched for foreign markers'
              : read === 0 && counts.incomplete === 0
                ? 'no served answer carried text the probe could read, so none could be searched for foreign markers'
                : read === 0
                  ? 'no served answer was read whole (a stream cut off, or an event that was no JSON document): no foreign markers in what was read, the rest not known'
                : counts.no_text > 0
                  ? `no foreign markers in the ${read} read, but ${count(counts.no_text, 'served answer')} carried no text the probe could read: not known clean`
                  : `no foreign markers in the ${read} read, but ${count(counts.incomplete, 'served answer')} ${counts.incomplete === 1 ? 'was' : 'were'} not read whole (a stream cut off, or an event that was no JSON document): not known clean`
        }`
  return {
    name: `contamination.${size.key}`,
    size_tokens: tokens,
    outcome,
    ok: outcome === 'clean' && !unobserved,
    inconclusive: outcome === 'error' || unobserved,
    expected: 'clean',
    detail,
    stream: false,
    requests: entries.length - counts.not_sent,
    http_status: status,
    elapsed_ms: elapsed,
    counts,
    leak_flows: [...flows.values()],
  }
}

/** The answers a class received, by outcome, for a leak's detail (what its count of leaks is out of). */
function answered(counts: {served: number; rejected: number; hung: number; error: number}): string {
  return [`${counts.served} served`, counts.rejected > 0 ? `${counts.rejected} rejected` : '', counts.error > 0 ? `${count(counts.error, 'error')}` : ''].filter(Boolean).join(', ')
}

async function cacheChecks(
  client: ServingClient,
  opts: {model: string; endpoint: Endpoint; maxTokens: number; rng: Rng; filler: readonly string[]; poolTokens: number; owners: ReadonlyMap<string, string>},
): Promise<ProbeCheck[] | null> {
  const persona = newPersona(opts.rng, 'cache')
  const words = Math.max(64, Math.min(512, Math.floor(opts.poolTokens / 4)))
  const text = buildPrompt(persona, opts.filler, words)
  const [saltA, saltB] = [newPersona(opts.rng, 'a').canary.slice(7), newPersona(opts.rng, 'b').canary.slice(7)]
  const request = (salt: string): Promise<GenerateResult> => client.generate({endpoint: opts.endpoint, model: opts.model, stream: false, maxTokens: opts.maxTokens, text, cacheSalt: salt})
  // Usage cached_tokens is the timing-free oracle; /metrics prefix-cache hit counters are the fallback.
  const hitsOf = async (salt: string): Promise<{result: GenerateResult; cached: number | null}> => {
    const before = await metricHits(client)
    const result = await request(salt)
    if (result.cachedTokens !== null) return {result, cached: result.cachedTokens}
    const after = await metricHits(client)
    return {result, cached: before !== null && after !== null ? after - before : null}
  }
  const warm = await request(saltA)
  const same = await hitsOf(saltA)
  const diff = await hitsOf(saltB)
  // The target failed part-way (hung, reset...): that failure is the finding, these checks were not run.
  if (client.failure !== null) return null
  const size = same.result.promptTokens
  const base = {size_tokens: size, stream: false, requests: 1}
  // These answers are searched too: another tenant's marker in any of them is a leak, whatever the cache figures say.
  const sameForeign = [...new Map([warm, same.result].flatMap((result) => readForeign(receivedText(result), [persona.canary], opts.owners)).map((m) => [m.marker, m])).values()]
  const diffForeign = readForeign(receivedText(diff.result), [persona.canary], opts.owners)
  if (sameForeign.length > 0 || diffForeign.length > 0) {
    const leakCheck = (name: string, entry: {result: GenerateResult; cached: number | null}, foreign: ForeignMarker[], requests: number, expected: string): ProbeCheck => ({
      ...base, name, requests, expected,
      outcome: foreign.length > 0 ? 'leak' : entry.result.outcome === 'served' ? 'clean' : entry.result.outcome,
      ok: false,
      inconclusive: foreign.length === 0,
      detail: foreign.length > 0 ? `answered with ${count(foreign.length, 'foreign marker')} (${ownersOf(foreign)})` : 'not judged: the other cache request carried a foreign marker',
      http_status: entry.result.httpStatus, elapsed_ms: entry.result.elapsedMs, cached_tokens: entry.cached,
    })
    return [leakCheck('cache_isolation.same_salt', same, sameForeign, 2, 'hit'), leakCheck('cache_isolation.different_salt', diff, diffForeign, 1, 'miss')]
  }
  const failedRequest = [same, diff].find((entry) => entry.result.outcome !== 'served')
  if (failedRequest) {
    const note = `cache probe requests not served (${failedRequest.result.outcome}: ${failedRequest.result.error ?? ''}); does the server accept cache_salt?`
    return [
      {...base, name: 'cache_isolation.same_salt', outcome: same.result.outcome, ok: false, inconclusive: true, expected: 'hit', detail: note, http_status: same.result.httpStatus, elapsed_ms: same.result.elapsedMs, cached_tokens: same.cached},
      {...base, name: 'cache_isolation.different_salt', outcome: diff.result.outcome, ok: false, inconclusive: true, expected: 'miss', detail: note, http_status: diff.result.httpStatus, elapsed_ms: diff.result.elapsedMs, cached_tokens: diff.cached},
    ]
  }
  const sameHit = same.cached !== null && same.cached > 0
  const diffHit = diff.cached !== null && diff.cached > 0
  // No figure for the different-salt request is no miss: whether it hit is not known.
  const diffUnknown = diff.cached === null
  const blind = same.cached === null ? 'the server reports no cached tokens (no usage.prompt_tokens_details, no prefix-cache metric)' : 'no cache hit for an identical prompt under the same salt: prefix caching is off or not reported'
  const sameCheck: ProbeCheck = {
    ...base,
    name: 'cache_isolation.same_salt',
    outcome: 'clean',
    ok: sameHit,
    inconclusive: !sameHit,
    expected: 'hit',
    detail: sameHit ? `same salt hit ${same.cached} cached tokens` : blind,
    http_status: same.result.httpStatus,
    elapsed_ms: same.result.elapsedMs,
    cached_tokens: same.cached,
  }
  const diffCheck: ProbeCheck = {
    ...base,
    name: 'cache_isolation.different_salt',
    outcome: diffHit ? 'leak' : 'clean',
    ok: !diffHit && !diffUnknown && sameHit,
    inconclusive: !diffHit && (diffUnknown || !sameHit),
    expected: 'miss',
    detail: diffHit
      ? `a different salt hit ${diff.cached} cached tokens: cache_salt is not isolating tenants`
      : diffUnknown
        ? 'not known: the server reported no cached-token figure for the different-salt request (no usage.prompt_tokens_details, no prefix-cache metric), so a hit cannot be told from a miss'
        : sameHit
          ? 'different salt missed'
          : `missed, but that proves nothing: ${blind}`,
    http_status: diff.result.httpStatus,
    elapsed_ms: diff.result.elapsedMs,
    cached_tokens: diff.cached,
  }
  // A cache answer with no text the probe could read (none, or one that gives a key twice) was
  // searched for nothing: a cache figure beside it does not make the check clean.
  const unread = [warm, same.result, diff.result].filter((result) => result.outcome === 'served' && !hasText(result)).length
  if (unread > 0) {
    for (const check of [sameCheck, diffCheck]) {
      if (!check.ok) continue
      check.ok = false
      check.inconclusive = true
      check.detail += `, but ${count(unread, 'cache answer')} carried no text the probe could read: only searched as raw bodies, not read as answers`
    }
  }
  return [sameCheck, diffCheck]
}

async function metricHits(client: ServingClient): Promise<number | null> {
  const text = await client.metrics()
  if (text === null) return null
  let total: number | null = null
  for (const line of text.split('\n')) {
    const match = /^[\w:]*prefix_cache_hits(?:_total)?(?:\{[^}]*\})?\s+([0-9.eE+-]+)/.exec(line)
    if (match) total = (total ?? 0) + Number(match[1])
  }
  return total
}

function shuffle<T>(items: T[], rng: Rng): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1))
    ;[items[i], items[j]] = [items[j]!, items[i]!]
  }
}
