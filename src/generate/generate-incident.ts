// Writes a synthetic incident that follows the documented mechanism: prompts at or above the
// prefill KV pool (681,280 tokens) that reach a buggy decode node during the bug window get a
// 200 whose text is a stale span of an earlier prompt or answer of another session on that
// node. Everything is drawn from one seeded rng and streamed to disk; only bounded state is
// kept (per-node rings of recent texts, active sessions, the contaminated responses); the ground
// truth's long lists are spooled to temporary files in OUT and streamed into ground-truth.json,
// so peak memory does not grow with --records (~240-265 MB RSS at 200k and at 1M records).

import {appendFileSync, closeSync, existsSync, mkdirSync, openSync, readSync, readdirSync, rmSync, writeFileSync, writeSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {InputError} from '../errors.js'
import {
  scopeFromSightings,
  type BAD_LINE_REASONS,
  type GroundTruth,
  type GroundTruthLeak,
  type GroundTruthProvenance,
  type GroundTruthSighting,
} from './ground-truth.js'
import {LineSink} from './log-writer.js'
import {Rng} from './rng.js'
import {
  chatCompletion,
  contextErrorMessage,
  errorBody,
  escapeMarkers,
  formatTimestamp,
  poolErrorMessage,
  renderRequest,
  sseStream,
  textCompletion,
  toolCall,
  type RequestShape,
  type ResponseContext,
  type ResponseShape,
  type TimestampForm,
  type UsageChunk,
} from './shapes.js'
import {normWord, prose, word, type PiiKind} from './text.js'
import {GREETINGS, MARKER_WORDS_A, MARKER_WORDS_B, SYSTEM_PROMPTS, TENANT_NAMES} from './vocabulary.js'

export const DEFAULT_POOL_TOKENS = 681_280
export const DEFAULT_ADVERTISED_TOKENS = 1_048_576

export interface GenerateOptions {
  out: string
  records?: number
  seed?: number
  /** Write into a directory that already has files in it. */
  force?: boolean
  onProgress?: (done: number, total: number) => void
}

export interface GenerateResult {
  out: string
  files: number
  records: number
  lines: number
  bytes: number
  ground_truth: string
}

type BadReason = (typeof BAD_LINE_REASONS)[number]

interface Tenant {
  id: string
  gateway: number
  wordMarkers: boolean
}

interface Session {
  id: string
  tenant: Tenant
  marker: string | null
  turnsLeft: number
}

/** A text a decode node has seen: what a stale KV page can hand to a later request. */
interface RingEntry {
  requestId: string
  session: string
  tenant: string
  kind: 'prompt' | 'response'
  /** Single-space-separated words that appear verbatim in the source text. */
  text: string
  /** The source's marker is this text's first word (a prompt without a system message). */
  marker: string | null
  pii: {index: number; kind: PiiKind}[]
  /** The word just before `text` in the source's decoded text (end of a system prompt or greeting). */
  before: string | null
  /** The source's word just after `text` (null: `text` runs to the end of the source). */
  after: string | null
  /**
   * A chained page: `text` is a span of the source that an earlier contaminated answer (this
   * request id) carried; the page is that answer's, the data is still the source's. A later
   * leak from it discloses the source session's data, and its ground-truth source is the
   * original record (the earliest occurrence), not the answer it passed through.
   */
  via: string | null
}

interface Sighting {
  class: GroundTruthSighting['class']
  marker: string
  partial: boolean
  source: Session | {id: string; tenant: Tenant} | null
  /** Where `source` is null but the token is cut short of markers of several sessions of one tenant: that tenant. */
  sourceTenant?: string
}

const DAY_MS = 86_400_000
const START_MS = Date.UTC(2026, 9, 30)
const DAYS = 4
const SPAN_MS = DAYS * DAY_MS
const GATEWAYS = ['gw-ams1', 'gw-fra1', 'gw-iad1'] as const
const PREFILL = ['prefill-01', 'prefill-02', 'prefill-03', 'prefill-04']
const DECODE = ['decode-01', 'decode-02', 'decode-03', 'decode-04', 'decode-05', 'decode-06', 'decode-07', 'decode-08']
const BUG_DECODE = new Set(['decode-03', 'decode-06', 'decode-07'])
/** Fractions of the span: canaries deployed, bug window (fix deployed at its end). */
const DEPLOY_AT = 0.35
const WINDOW = [0.25, 0.8] as const
const RING = 64
const PAIR_PREFIX_HEX = 18
const HEX_MARKER = /^CANARY-[0-9a-fA-F]+$/

const TS_WEIGHTS: Record<(typeof GATEWAYS)[number], [TimestampForm, number][]> = {
  'gw-ams1': [['iso_z', 40], ['space_micro', 40], ['epoch_ms', 20]],
  'gw-fra1': [['iso_z', 60], ['iso_offset', 25], ['epoch_ms', 15]],
  'gw-iad1': [['epoch_ms', 50], ['iso_z', 30], ['iso_offset', 20]],
}
const ERROR_STYLE: Record<(typeof GATEWAYS)[number], 'error_vllm_flat' | 'error_vllm_nested' | 'error_sglang_flat'> = {
  'gw-ams1': 'error_sglang_flat',
  'gw-fra1': 'error_vllm_nested',
  'gw-iad1': 'error_vllm_flat',
}

export async function generateIncident(opts: GenerateOptions): Promise<GenerateResult> {
  const records = opts.records ?? 20_000
  const seed = opts.seed ?? 1
  if (!Number.isInteger(records) || records < 1) throw new InputError('records must be a positive integer')
  const out = resolve(opts.out)
  if (existsSync(out) && readdirSync(out).length > 0 && !opts.force) throw new InputError(`${opts.out} is not empty (use --force to write into it)`)
  mkdirSync(join(out, 'logs'), {recursive: true})
  const g = new Generator(out, records, seed, opts.onProgress)
  return g.run()
}

class Generator {
  private readonly rng: Rng
  private readonly hygiene: Rng
  private readonly pool = DEFAULT_POOL_TOKENS
  private readonly advertised = DEFAULT_ADVERTISED_TOKENS
  private readonly tenants: Tenant[]
  private readonly tenantWeights: number[]
  private readonly active: (Session | null)[]
  private readonly sinks: LineSink[][] = []
  private readonly canarySink: LineSink
  private readonly rings = new Map<string, (RingEntry | null)[]>()
  private readonly ringPos = new Map<string, number>()
  private readonly reservoir: {marker: string; session: Session}[] = []
  private readonly wordMarkers = new Set<string>()
  private pair: {first: string | null; prefix: string | null; members: Set<string>; owners: Session[]} = {first: null, prefix: null, members: new Set(), owners: []}
  private ambiguousPlanted = 0
  private canaries = 0
  private uniqueRecords = 0
  private atRisk = 0
  private readonly lastDay: number[] = GATEWAYS.map(() => -1)
  private readonly lastLines: string[][] = GATEWAYS.map(() => [])
  private readonly pendingDup = new Map<LineSink, string>()
  private readonly toFlush = new Set<LineSink>()
  private readonly badPositions: Map<number, BadReason>
  private readonly blankPositions: Set<number>
  private readonly dupPositions: Set<number>
  private readonly bigPositions: Set<number>
  // The ground truth's long lists grow with the incident: spooled to disk, not kept in memory.
  private readonly sightings: Spool<GroundTruthSighting>
  private readonly provenance: Spool<GroundTruthProvenance>
  private readonly leaks: Spool<GroundTruthLeak>
  private readonly pii: Spool<GroundTruth['pii'][number]>
  private readonly nonSightings: Spool<GroundTruth['non_sightings'][number]>
  /** Only the cross_session/cross_tenant sightings (the scope is computed from them). */
  private readonly crossSightings: GroundTruthSighting[] = []
  private readonly leakSources = new Set<string>()
  private readonly badLines: GroundTruth['bad_lines'] = []
  private readonly contaminatedTs = new Map<string, number>()
  private readonly shapes = {request: {} as Record<string, number>, response: {} as Record<string, number>, timestamp: {} as Record<string, number>, features: {} as Record<string, number>}
  private readonly boilerplateTenants = new Map<string, Set<string>>()

  constructor(
    private readonly out: string,
    private readonly n: number,
    private readonly seed: number,
    private readonly onProgress?: (done: number, total: number) => void,
  ) {
    const spool = <T>(name: string): Spool<T> => new Spool<T>(join(this.out, `.ground-truth-${name}.tmp`))
    this.sightings = spool('sightings')
    this.provenance = spool('provenance')
    this.leaks = spool('leaks')
    this.pii = spool('pii')
    this.nonSightings = spool('non-sightings')
    const root = new Rng(seed)
    this.rng = root.fork(1)
    this.hygiene = root.fork(2)
    const setup = root.fork(3)
    const tenantCount = Math.max(8, Math.min(TENANT_NAMES.length, Math.round(n / 1500)))
    this.tenants = TENANT_NAMES.slice(0, tenantCount).map((name, k) => ({id: `tn-${name}`, gateway: k % GATEWAYS.length, wordMarkers: k === 3}))
    this.tenantWeights = this.tenants.map((_, k) => 1 / Math.pow(k + 1, 0.7))
    this.active = Array.from({length: Math.max(24, Math.min(2000, Math.round(n / 40)))}, () => null)
    for (let gw = 0; gw < GATEWAYS.length; gw++) {
      const row: LineSink[] = []
      for (let d = 0; d < DAYS; d++) {
        const date = new Date(START_MS + d * DAY_MS).toISOString().slice(0, 10)
        const gzip = gw === 2 && d === 1
        const rel = `logs/${GATEWAYS[gw]}-${date}.jsonl${gzip ? '.gz' : ''}`
        row.push(new LineSink(join(this.out, rel), rel, {gzip, crlf: gw === 0 && d === 2, bom: gw === 1 && d === 0}))
      }
      this.sinks.push(row)
    }
    this.canarySink = new LineSink(join(this.out, 'canaries.csv'), 'canaries.csv')
    this.canarySink.writeLine('marker,tenant_id,session_id,issued_at')
    for (const node of DECODE) {
      this.rings.set(node, Array.from({length: RING}, () => null))
      this.ringPos.set(node, 0)
    }
    const reasons: BadReason[] = ['truncated_json', 'not_json', 'missing_session_id', 'invalid_utf8', 'not_object']
    this.badPositions = new Map([...spread(setup, Math.max(10, Math.round(n / 2500)), n)].map((pos, k) => [pos, reasons[k % reasons.length]!]))
    this.blankPositions = spread(setup, Math.max(8, Math.round(n / 3000)), n)
    this.dupPositions = spread(setup, Math.max(10, Math.round(n / 1500)), n)
    this.bigPositions = spread(setup, 1 + Math.min(3, Math.floor(n / 50_000)), n)
  }

  async run(): Promise<GenerateResult> {
    const step = Math.max(1, Math.floor(SPAN_MS / this.n))
    for (let i = 0; i < this.n; i++) {
      const ms = START_MS + i * step + this.rng.int(step)
      this.emitRecord(i, ms)
      if (this.toFlush.size > 0) {
        for (const sink of this.toFlush) await sink.flush()
        this.toFlush.clear()
      }
      if (this.onProgress && i % 10_000 === 0) this.onProgress(i, this.n)
    }
    let bytes = 0
    let lines = 0
    const files: GroundTruth['files'] = []
    for (const row of this.sinks) {
      for (const sink of row) {
        const pending = this.pendingDup.get(sink)
        if (pending !== undefined) {
          sink.writeLine(pending)
          sink.duplicates++
        }
        bytes += await sink.close()
        lines += sink.lines
        files.push({path: sink.relPath, lines: sink.lines, records: sink.records, duplicates: sink.duplicates, bad_lines: sink.badLines, blank_lines: sink.blankLines, gzip: Boolean(sink.options.gzip), crlf: Boolean(sink.options.crlf), bom: Boolean(sink.options.bom)})
      }
    }
    bytes += await this.canarySink.close()
    files.sort((a, b) => (a.path < b.path ? -1 : 1))
    const gtPath = join(this.out, 'ground-truth.json')
    writeGroundTruth(gtPath, this.groundTruth(files))
    return {out: this.out, files: files.length, records: this.uniqueRecords, lines, bytes, ground_truth: gtPath}
  }

  // ---------------------------------------------------------------- one record

  private emitRecord(i: number, ms: number): void {
    const rng = this.rng
    const frac = (ms - START_MS) / SPAN_MS
    const session = this.pickSession(ms)
    const tenant = session.tenant
    const gw = rng.next() < 0.85 ? tenant.gateway : rng.int(GATEWAYS.length)
    const gateway = GATEWAYS[gw]!
    const prefill = rng.pick(PREFILL)
    const decode = rng.pick(DECODE)
    const requestId = uuid(rng)
    const big = this.bigPositions.has(i)

    const size = big ? 'normal' : (['normal', 'long', 'over', 'huge'] as const)[rng.weighted([88, 3.5, 7, 1.5])]!
    const reqShape = (['chat_string', 'chat_parts', 'completion_string', 'completion_array', 'raw_text'] as const)[rng.weighted([49, 21, 15, 5, 10])]! as RequestShape
    const endpoint = reqShape.startsWith('chat') ? '/v1/chat/completions' : reqShape.startsWith('completion') ? '/v1/completions' : '/generate'
    const model = endpoint === '/v1/completions' ? 'atlas-1m-base' : rng.pick(['atlas-1m-instruct', 'atlas-1m-instruct-fp8'])
    const system = reqShape !== 'completion_string' && reqShape !== 'completion_array' && rng.next() < 0.45 ? this.boilerplate('system', rng.int(SYSTEM_PROMPTS.length), tenant) : null

    // The user's words; sometimes a pasted foreign marker (the `echo` decoy).
    const userWordCount = big ? Math.floor(this.bigBytes() / 6.6) : size === 'normal' ? rng.range(25, 45) + Math.floor(rng.next() * rng.next() * 160) : rng.range(80, 400)
    const user = prose(rng, userWordCount, big ? 0 : 0.1)
    let echoOf: {marker: string; session: Session} | null = null
    if (!big && size === 'normal' && this.reservoir.length > 0 && rng.next() < 0.012) {
      const cand = rng.pick(this.reservoir)
      if (cand.session.id !== session.id) {
        echoOf = cand
        user.words.splice(rng.range(1, user.words.length - 1), 0, cand.marker)
      }
    }
    const userText = user.words.join(' ')

    let promptTokens: number
    if (big) promptTokens = rng.range(400_000, this.pool - 1)
    else if (size === 'normal') promptTokens = Math.round((userWordCount + (system ? 40 : 0)) * 1.33) + rng.range(8, 40)
    else if (size === 'long') promptTokens = rng.range(12_000, this.pool - 1)
    else if (size === 'over') promptTokens = rng.range(this.pool, this.advertised - 1)
    else promptTokens = rng.range(this.advertised, this.advertised + 400_000)

    // Status and response.
    let status = 200
    let errorMessage: string | null = null
    let errorShape: ResponseShape | null = null
    if (size === 'huge') {
      status = 400
      errorShape = ERROR_STYLE[gateway]
      errorMessage = contextErrorMessage(errorShape === 'error_sglang_flat' ? 'sglang' : 'vllm', promptTokens, this.advertised)
    } else if (size === 'over' && frac >= WINDOW[1]) {
      // After the fix: the handoff validates against the pool and rejects.
      status = 400
      errorShape = rng.pick(['error_sglang_flat', 'error_vllm_nested'] as const)
      errorMessage = poolErrorMessage(promptTokens, this.pool)
    } else if (size === 'normal' && !big && rng.next() < 0.012) {
      status = rng.pick([429, 503])
      errorShape = 'error_openai'
      errorMessage = status === 429 ? 'Rate limit reached for requests. Please try again in 20s.' : 'The server is overloaded or not ready yet.'
    }

    const sightings: Sighting[] = []
    let text = ''
    let finish: 'stop' | 'length' = 'stop'
    let leak: RingEntry | null = null
    let leakedText = false
    let chained: RingEntry | null = null
    let responseRingText: string | null = null
    let greeting: string | null = null
    const splitTargets: string[] = []
    let respShape: ResponseShape | null = errorShape
    let completionTokens = 0

    if (status === 200) {
      respShape = this.pickResponseShape(endpoint)
      const inWindow = frac >= WINDOW[0] && frac < WINDOW[1]
      if (size === 'over' && inWindow && BUG_DECODE.has(decode) && rng.next() < 0.92) leak = this.takeStale(decode, session)
      if (leak) {
        const built = this.buildLeak(leak, session, requestId)
        text = built.text
        finish = built.finish
        sightings.push(...built.sightings)
        splitTargets.push(...built.markersInText)
        leakedText = true
        chained = built.chained
      } else {
        const inStreamError = size === 'normal' && !big && respShape.startsWith('sse') && rng.next() < 0.03
        greeting = rng.next() < 0.55 ? this.boilerplate('greeting', rng.int(GREETINGS.length), tenant) : null
        const answer = prose(rng, rng.range(20, 45) + Math.floor(rng.next() * rng.next() * 90)).words.join(' ')
        text = greeting ? `${greeting} ${answer}` : answer
        responseRingText = answer
        if (inStreamError) {
          respShape = 'sse_in_stream_error'
          responseRingText = null
        } else if (size === 'normal' && !big) {
          const extra = this.plantDecoys(session, echoOf, requestId)
          if (extra.text) {
            text += extra.text
            responseRingText = null
            sightings.push(...extra.sightings)
            splitTargets.push(...extra.markers)
          }
        }
      }
      completionTokens = Math.max(1, Math.round(text.length / 4.6))
    }

    const usage = {prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens}
    const ctx: ResponseContext = {id: rng.hex(24), created: Math.floor(ms / 1000), model, usage, finish, splitTargets: []}
    let response: unknown
    let stream = false
    let usageInBody = false
    const shape = respShape!
    switch (shape) {
      case 'chat_completion':
        response = chatCompletion(ctx, text)
        usageInBody = true
        break
      case 'text_completion':
        response = textCompletion(ctx, text)
        usageInBody = true
        break
      case 'tool_call':
        response = toolCall(ctx, text)
        usageInBody = true
        break
      case 'raw_json_string': {
        let json = JSON.stringify(endpoint === '/v1/chat/completions' ? chatCompletion(ctx, text) : textCompletion(ctx, text))
        if (text.includes('CANARY-') && rng.next() < 0.7) {
          json = escapeMarkers(json)
          this.count('features', 'json_escaped_marker')
        }
        response = json
        usageInBody = true
        break
      }
      case 'sse_chat':
      case 'sse_completion':
      case 'sse_in_stream_error': {
        stream = true
        if (splitTargets.length > 0 && rng.next() < 0.6) {
          ctx.splitTargets = splitTargets
          this.count('features', 'sse_split_marker')
        }
        const usageChunk: UsageChunk = shape === 'sse_in_stream_error' ? 'none' : (['none', 'empty_choices', 'null_choices'] as const)[rng.weighted([30, 50, 20])]!
        if (usageChunk !== 'none') this.count('features', `sse_usage_${usageChunk}`)
        const kind = endpoint === '/v1/chat/completions' ? 'chat' : 'completion'
        response = sseStream(rng, ctx, text, kind, usageChunk, shape === 'sse_in_stream_error' ? rng.range(1, 4) : null)
        break
      }
      case 'plain_text':
        response = text
        break
      case 'error_vllm_flat':
      case 'error_vllm_nested':
      case 'error_sglang_flat':
      case 'error_openai': {
        const body = errorBody(shape, errorMessage!, status)
        if (rng.next() < 0.2) {
          response = JSON.stringify(body)
          this.count('features', 'error_as_string')
        } else response = body
        break
      }
    }

    const prompt = {marker: session.marker, system, user: userText}
    const request = renderRequest(reqShape, prompt, model, stream, rng.range(256, 4096))
    const tsForm = TS_WEIGHTS[gateway][rng.weighted(TS_WEIGHTS[gateway].map((w) => w[1]))]![0]
    const omitTokens = usageInBody && rng.next() < 0.15
    if (omitTokens) this.count('features', 'tokens_only_in_usage')
    const line = JSON.stringify({
      ts: formatTimestamp(tsForm, ms, rng),
      request_id: requestId,
      tenant_id: tenant.id,
      session_id: session.id,
      gateway,
      status,
      endpoint,
      model,
      prefill_node: prefill,
      decode_node: decode,
      // undefined keys are left out by JSON.stringify (and keep one object shape: faster).
      prompt_tokens: omitTokens ? undefined : promptTokens,
      completion_tokens: omitTokens ? undefined : completionTokens,
      stream,
      request,
      response,
    })

    this.count('request', reqShape)
    this.count('response', shape)
    this.count('timestamp', tsForm)
    if (leakedText) this.count('features', 'leak')
    if (status === 200 && promptTokens >= this.pool) this.atRisk++

    // Ground truth for this record.
    const seen = new Set<string>()
    for (const s of sightings) {
      if (seen.has(s.marker)) continue
      seen.add(s.marker)
      const sighting: GroundTruthSighting = {
        request_id: requestId,
        class: s.class,
        marker: s.marker,
        partial: s.partial,
        recipient_session: session.id,
        recipient_tenant: tenant.id,
        source_session: s.source ? s.source.id : null,
        source_tenant: s.source ? s.source.tenant.id : (s.sourceTenant ?? null),
      }
      this.sightings.push(sighting)
      if (s.class === 'cross_session' || s.class === 'cross_tenant') {
        this.crossSightings.push(sighting)
        this.contaminatedTs.set(requestId, ms)
      }
    }

    // Stale pages: what this decode node now holds.
    if (status === 200 && !big) {
      // Prompts with a pasted marker never become stale pages (so no leak carries a third marker).
      if (echoOf === null) {
        const first = system === null && session.marker !== null
        this.remember(decode, {
          requestId,
          session: session.id,
          tenant: tenant.id,
          kind: 'prompt',
          text: first ? `${session.marker} ${userText}` : userText,
          marker: first ? session.marker : null,
          pii: first ? user.pii.map((p) => ({index: p.index + 1, kind: p.kind})) : user.pii,
          before: system !== null ? lastWord(system) : null,
          after: null,
          via: null,
        })
      }
      if (responseRingText !== null && !leakedText) this.remember(decode, {requestId, session: session.id, tenant: tenant.id, kind: 'response', text: responseRingText, marker: null, pii: [], before: greeting === null ? null : lastWord(greeting), after: null, via: null})
      // A contaminated answer is cached like any other: the source's span it carries can leak again.
      if (chained !== null) this.remember(decode, chained)
    }

    this.writeRecord(i, gw, ms, line)
  }

  // ---------------------------------------------------------------- sessions and canaries

  private pickSession(ms: number): Session {
    const slot = this.rng.int(this.active.length)
    let s = this.active[slot]
    if (!s || s.turnsLeft <= 0) {
      s = this.newSession(ms)
      this.active[slot] = s
    }
    s.turnsLeft--
    return s
  }

  private newSession(ms: number): Session {
    const rng = this.rng
    const tenant = this.tenants[rng.weighted(this.tenantWeights)]!
    let turns = 1
    while (turns < 12 && rng.next() < 0.72) turns++
    const session: Session = {id: `sess-${rng.hex(16)}`, tenant, marker: null, turnsLeft: turns}
    if ((ms - START_MS) / SPAN_MS >= DEPLOY_AT) {
      session.marker = tenant.wordMarkers ? this.wordMarker() : this.hexMarker()
      if (this.pair.members.has(session.marker)) this.pair.owners.push(session)
      const issued = new Date(ms - rng.range(50, 5000)).toISOString()
      this.canarySink.writeLine(`${session.marker},${tenant.id},${session.id},${issued}`)
      this.canaries++
      if (this.reservoir.length < 256) this.reservoir.push({marker: session.marker, session})
      else this.reservoir[rng.int(256)] = {marker: session.marker, session}
    }
    return session
  }

  private hexMarker(): string {
    const rng = this.rng
    const len = rng.range(20, 32)
    if (this.pair.first === null) {
      const hex = rng.hex(len)
      this.pair.first = hex
      this.pair.members.add(`CANARY-${hex}`)
      return `CANARY-${hex}`
    }
    if (this.pair.prefix === null) {
      // Two registered markers sharing an 18-digit prefix: a truncated 18-digit token is ambiguous.
      const base = this.pair.first.slice(0, PAIR_PREFIX_HEX)
      const next = this.pair.first[PAIR_PREFIX_HEX] === '0' ? '1' : '0'
      const hex = base + next + rng.hex(len - PAIR_PREFIX_HEX - 1)
      this.pair.prefix = `CANARY-${base}`
      this.pair.members.add(`CANARY-${hex}`)
      return `CANARY-${hex}`
    }
    const hex = rng.hex(len)
    // A few registries hold upper-case hex; matching is case-insensitive.
    return `CANARY-${rng.next() < 0.03 ? hex.toUpperCase() : hex}`
  }

  private wordMarker(): string {
    for (;;) {
      const m = `${this.rng.pick(MARKER_WORDS_A)}-${this.rng.pick(MARKER_WORDS_B)}-${this.rng.range(1000, 9999)}`
      if (!this.wordMarkers.has(m)) {
        this.wordMarkers.add(m)
        return m
      }
    }
  }

  // ---------------------------------------------------------------- leaks

  private remember(node: string, entry: RingEntry): void {
    const ring = this.rings.get(node)!
    const pos = this.ringPos.get(node)!
    ring[pos] = entry
    this.ringPos.set(node, (pos + 1) % RING)
  }

  /** A stale page of another session on this node; taken (a page is handed out once). */
  private takeStale(node: string, recipient: Session): RingEntry | null {
    const ring = this.rings.get(node)!
    const same: number[] = []
    const other: number[] = []
    for (let k = 0; k < ring.length; k++) {
      const e = ring[k]
      if (!e || e.session === recipient.id) continue
      ;(e.tenant === recipient.tenant.id ? same : other).push(k)
    }
    let pool = same.length > 0 && (other.length === 0 || this.rng.next() < 0.4) ? same : other
    if (pool.length === 0) return null
    // Half the time the stale page is the start of a canaried prompt (so the marker leaks too).
    const marked = pool.filter((k) => ring[k]!.marker !== null)
    if (marked.length > 0 && this.rng.next() < 0.5) pool = marked
    const k = this.rng.pick(pool)
    const e = ring[k]!
    ring[k] = null
    return e
  }

  private leak(l: GroundTruthLeak): void {
    this.leaks.push(l)
    this.leakSources.add(l.source_session)
  }

  private buildLeak(e: RingEntry, recipient: Session, requestId: string): {text: string; finish: 'stop' | 'length'; sightings: Sighting[]; markersInText: string[]; chained: RingEntry | null} {
    const rng = this.rng
    const words = e.text.split(' ')
    const source = {id: e.session, tenant: this.tenants.find((t) => t.id === e.tenant)!}
    const cls: Sighting['class'] = e.tenant === recipient.tenant.id ? 'cross_session' : 'cross_tenant'
    const hex = e.marker !== null && HEX_MARKER.test(e.marker)
    let kind: 'start_long' | 'start_short' | 'truncated' | 'mid' = 'mid'
    if (e.marker !== null) {
      const r = rng.next()
      kind = r < 0.55 ? 'start_long' : r < 0.68 ? 'start_short' : r < 0.8 && hex ? 'truncated' : 'mid'
    }
    const pre = rng.next() < 0.6 && kind !== 'truncated' ? [] : prose(rng, rng.range(3, 12)).words.slice(0, rng.range(3, 12))
    if (kind === 'truncated') {
      const marker = e.marker!
      const digits = marker.length - 7
      const min = this.pair.members.has(marker) ? PAIR_PREFIX_HEX + 1 : 16
      const cut = rng.range(min, digits - 1)
      this.count('features', 'truncated_marker')
      this.leak({request_id: requestId, source_request_id: e.requestId, source_session: e.session, source_tenant: e.tenant, words: 0, with_marker: true, via_request_id: e.via})
      return {text: `${pre.join(' ')} ${marker.slice(0, 7 + cut)}`, finish: 'length', sightings: [{class: cls, marker, partial: true, source}], markersInText: [marker.slice(0, 7 + cut)], chained: null}
    }
    let s = 0
    let len: number
    if (kind === 'start_short') len = Math.min(words.length, rng.range(3, 8))
    else {
      len = Math.min(words.length - (kind === 'mid' && e.marker !== null ? 1 : 0), rng.range(20, 60))
      if (kind === 'mid') {
        const lo = e.marker !== null ? 1 : 0
        const hi = words.length - len
        s = rng.range(lo, hi)
        const withPii = e.pii.filter((p) => p.index >= lo)
        if (withPii.length > 0 && rng.next() < 0.5) {
          const p = rng.pick(withPii).index
          s = Math.max(lo, Math.min(hi, p - rng.int(len)))
        }
      }
    }
    const span = words.slice(s, s + len)
    const sightings: Sighting[] = []
    const markersInText: string[] = []
    if (s === 0 && e.marker !== null) {
      if (kind === 'start_short' && hex && rng.next() < 0.4) {
        span[0] = flipHexCase(e.marker)
        this.count('features', 'upper_cased_marker')
      }
      sightings.push({class: cls, marker: e.marker, partial: false, source})
      markersInText.push(span[0]!)
    }
    // The words around the span differ from the source's neighbours, so the verbatim overlap is exactly `len`.
    const prev = s > 0 ? words[s - 1]! : e.before
    if (pre.length > 0 && prev !== null) pre[pre.length - 1] = differentWord(rng, pre[pre.length - 1]!, prev)
    const post = rng.next() < 0.3 ? [] : prose(rng, rng.range(4, 25)).words
    const next = s + len < words.length ? words[s + len]! : e.after
    if (post.length > 0 && next !== null) post[0] = differentWord(rng, post[0]!, next)
    this.leak({request_id: requestId, source_request_id: e.requestId, source_session: e.session, source_tenant: e.tenant, words: len, with_marker: s === 0 && e.marker !== null, via_request_id: e.via})
    if (len >= 12) this.provenance.push({request_id: requestId, source_request_id: e.requestId, source_session: e.session, source_tenant: e.tenant, matched: e.kind, overlap_words: len})
    for (const p of e.pii) if (p.index >= s && p.index < s + len) this.pii.push({request_id: requestId, kind: p.kind, value: words[p.index]!, source_request_id: e.requestId})
    // The page this answer leaves behind: the source's span, still the source's data, with the
    // source's own neighbours (so a later verbatim overlap with the source is exactly its length).
    const chained: RingEntry = {
      requestId: e.requestId,
      session: e.session,
      tenant: e.tenant,
      kind: e.kind,
      text: words.slice(s, s + len).join(' '),
      marker: s === 0 ? e.marker : null,
      pii: e.pii.filter((p) => p.index >= s && p.index < s + len).map((p) => ({index: p.index - s, kind: p.kind})),
      before: prev,
      after: next,
      via: requestId,
    }
    if (e.via !== null) this.count('features', 'chained_leak')
    return {text: [...pre, ...span, ...post].join(' '), finish: 'stop', sightings, markersInText, chained}
  }

  // ---------------------------------------------------------------- decoys

  /**
   * The pair's shared prefix (cut short of the markers of two sessions) in `session`'s answer: an
   * orphan where one of the two is `session` (it may be its own marker), an echo where its prompt
   * holds either marker, else contamination whichever it is: cross_session where either session
   * is of `session`'s tenant, else cross_tenant, with no source session (and the source tenant
   * only where both are of one tenant).
   */
  private ambiguousSighting(session: Session, echoOf: {marker: string} | null): Sighting {
    const marker = this.pair.prefix!
    const owners = this.pair.owners
    if (owners.some((o) => o.id === session.id)) return {class: 'orphan', marker, partial: false, source: null}
    const tenants = new Set(owners.map((o) => o.tenant.id))
    const sourceTenant = tenants.size === 1 ? {sourceTenant: owners[0]!.tenant.id} : {}
    if (echoOf !== null && echoOf.marker.toLowerCase().startsWith(marker.toLowerCase())) return {class: 'echo', marker, partial: true, source: null, ...sourceTenant}
    return {class: tenants.has(session.tenant.id) ? 'cross_session' : 'cross_tenant', marker, partial: true, source: null, ...sourceTenant}
  }

  /** Marker-shaped strings that are not contamination: own echoes, pasted-marker echoes, orphans, a prefix of the pair's markers. */
  private plantDecoys(session: Session, echoOf: {marker: string; session: Session} | null, requestId: string): {text: string; sightings: Sighting[]; markers: string[]} {
    const rng = this.rng
    let text = ''
    const sightings: Sighting[] = []
    const markers: string[] = []
    if (echoOf) {
      text += ` The reference ${echoOf.marker} from your message is noted.`
      sightings.push({class: 'echo', marker: echoOf.marker, partial: false, source: echoOf.session})
      markers.push(echoOf.marker)
      this.count('features', 'echo')
    }
    if (session.marker !== null && rng.next() < 0.025) {
      const times = rng.range(1, 3)
      for (let k = 0; k < times; k++) {
        const shown: string = HEX_MARKER.test(session.marker) && rng.next() < 0.3 ? flipHexCase(session.marker) : session.marker
        if (shown !== session.marker) this.count('features', 'upper_cased_marker')
        text += ` Your session reference ${shown} has been recorded.`
        markers.push(shown)
      }
      sightings.push({class: 'own', marker: session.marker, partial: false, source: session})
      this.count('features', times > 1 ? 'own_repeated' : 'own')
    }
    if (rng.next() < 0.01) {
      const r = rng.next()
      const token = r < 0.5 ? `CANARY-${rng.hex(rng.range(8, 15))}` : r < 0.7 ? `CANARY-${rng.hex(rng.range(8, 15)).toUpperCase()}` : `CANARY-${rng.hex(24)}`
      text += ` See ${token} in the runbook.`
      sightings.push({class: 'orphan', marker: token, partial: false, source: null})
      markers.push(token)
      this.count('features', 'orphan')
    }
    if (this.pair.prefix !== null && this.ambiguousPlanted < 2 && rng.next() < 0.02) {
      text += ` The ticket mentions ${this.pair.prefix} as the prefix.`
      sightings.push(this.ambiguousSighting(session, echoOf))
      markers.push(this.pair.prefix)
      this.ambiguousPlanted++
      this.count('features', 'ambiguous_prefix')
    }
    if (this.wordMarkers.size > 0 && rng.next() < 0.004) {
      const words = this.reservoir.filter((r) => !r.marker.startsWith('CANARY-'))
      if (words.length > 0) {
        const lower = rng.pick(words).marker.toLowerCase()
        text += ` The code ${lower} is not a reference.`
        this.nonSightings.push({request_id: requestId, text: lower, why: 'registered word marker in lower case (word markers match case-sensitively)'})
        this.count('features', 'lowercase_word_marker')
      }
    }
    return {text, sightings, markers}
  }

  // ---------------------------------------------------------------- shapes and boilerplate

  private pickResponseShape(endpoint: string): ResponseShape {
    const rng = this.rng
    if (endpoint === '/v1/chat/completions') return (['chat_completion', 'raw_json_string', 'sse_chat', 'tool_call', 'plain_text'] as const)[rng.weighted([34, 12, 34, 8, 6])]!
    if (endpoint === '/v1/completions') return (['text_completion', 'sse_completion', 'raw_json_string', 'plain_text'] as const)[rng.weighted([50, 30, 12, 8])]!
    return (['plain_text', 'raw_json_string'] as const)[rng.weighted([70, 30])]!
  }

  private boilerplate(kind: 'system' | 'greeting', k: number, tenant: Tenant): string {
    const text = kind === 'system' ? SYSTEM_PROMPTS[k]! : GREETINGS[k]!
    const set = this.boilerplateTenants.get(text) ?? new Set<string>()
    set.add(tenant.id)
    this.boilerplateTenants.set(text, set)
    return text
  }

  private bigBytes(): number {
    return this.n >= 20_000 ? this.rng.range(2_000_000, 5_000_000) : this.rng.range(600_000, 1_200_000)
  }

  private count(group: keyof Generator['shapes'], key: string): void {
    const m = this.shapes[group]
    m[key] = (m[key] ?? 0) + 1
  }

  // ---------------------------------------------------------------- files

  private writeRecord(i: number, gw: number, ms: number, line: string): void {
    const day = Math.min(DAYS - 1, Math.floor((ms - START_MS) / DAY_MS))
    const sink = this.sinks[gw]![day]!
    if (this.lastDay[gw] !== day) {
      // Log rotation overlap: the new day's file repeats the last lines of the previous one.
      if (this.lastDay[gw]! >= 0) {
        for (const dup of this.lastLines[gw]!) {
          sink.writeLine(dup)
          sink.duplicates++
        }
      }
      this.lastDay[gw] = day
      this.lastLines[gw] = []
    }
    const bad = this.badPositions.get(i)
    if (bad) {
      sink.writeLine(this.badLine(bad, ms))
      sink.badLines++
      this.badLines.push({file: sink.relPath, line: sink.lines, reason: bad})
    }
    if (this.blankPositions.has(i)) {
      sink.writeLine(this.hygiene.pick(['', '   ', '\t', ' \t ']))
      sink.blankLines++
    }
    sink.writeLine(line)
    sink.records++
    this.uniqueRecords++
    const pending = this.pendingDup.get(sink)
    if (pending !== undefined) {
      sink.writeLine(pending)
      sink.duplicates++
      this.pendingDup.delete(sink)
    }
    if (this.dupPositions.has(i)) {
      if (this.hygiene.next() < 0.5) {
        sink.writeLine(line)
        sink.duplicates++
      } else this.pendingDup.set(sink, line)
    }
    const last = this.lastLines[gw]!
    last.push(line)
    if (last.length > 2) last.shift()
    if (sink.needsFlush) this.toFlush.add(sink)
    if (this.canarySink.needsFlush) this.toFlush.add(this.canarySink)
  }

  private badLine(reason: BadReason, ms: number): string | Buffer {
    const h = this.hygiene
    const stub = {ts: new Date(ms).toISOString(), request_id: `bad-${h.hex(16)}`, tenant_id: 'tn-unknown', session_id: `sess-${h.hex(16)}`, status: 200, request: {prompt: prose(h, 20).words.join(' ')}, response: 'ok'}
    switch (reason) {
      case 'truncated_json': {
        const full = JSON.stringify(stub)
        return full.slice(0, h.range(20, full.length - 10))
      }
      case 'not_json':
        return `${new Date(ms).toISOString()} WARN gateway upstream connection reset by peer (retrying)`
      case 'not_object':
        return h.next() < 0.5 ? JSON.stringify(['ts', 'request_id', 'tenant_id']) : 'null'
      case 'missing_session_id': {
        const {session_id: _omit, ...rest} = stub
        void _omit
        return JSON.stringify(rest)
      }
      case 'invalid_utf8': {
        const json = JSON.stringify(stub)
        const at = json.indexOf('"ok"') + 2
        return Buffer.concat([Buffer.from(json.slice(0, at), 'utf8'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(json.slice(at), 'utf8')])
      }
    }
  }

  // ---------------------------------------------------------------- ground truth

  private groundTruth(files: GroundTruth['files']): GroundTruthOut {
    const iso = (f: number): string => new Date(START_MS + Math.round(f * SPAN_MS)).toISOString()
    const totals = files.reduce(
      (t, f) => ({records: t.records + f.records, duplicates: t.duplicates + f.duplicates, bad_lines: t.bad_lines + f.bad_lines, blank_lines: t.blank_lines + f.blank_lines, lines: t.lines + f.lines}),
      {records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0, lines: 0},
    )
    const scope = scopeFromSightings(this.crossSightings, (id) => this.contaminatedTs.get(id)!, this.atRisk)
    const exposed = new Set<string>()
    for (const s of this.crossSightings) if (s.source_session !== null) exposed.add(s.source_session)
    const boilerplate: GroundTruth['boilerplate'] = [
      ...SYSTEM_PROMPTS.map((text) => ({kind: 'system' as const, text, tenants: this.boilerplateTenants.get(text)?.size ?? 0})),
      ...GREETINGS.map((text) => ({kind: 'greeting' as const, text, tenants: this.boilerplateTenants.get(text)?.size ?? 0})),
    ]
    return {
      version: 1,
      seed: this.seed,
      params: {
        records: this.n,
        pool_tokens: this.pool,
        advertised_tokens: this.advertised,
        start: iso(0),
        end: iso(1),
        canaries_deployed_at: iso(DEPLOY_AT),
        bug_window: {start: iso(WINDOW[0]), end: iso(WINDOW[1])},
        bug_decode_nodes: [...BUG_DECODE],
        tenants: this.tenants.map((t) => t.id),
      },
      files,
      totals,
      bad_lines: [...this.badLines].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line)),
      canaries: this.canaries,
      boilerplate,
      shapes: this.shapes,
      non_sightings: this.nonSightings,
      sightings: this.sightings,
      contaminated_request_ids: [...this.contaminatedTs.keys()],
      provenance: this.provenance,
      scope,
      exposed_session_ids: [...exposed].sort(),
      true_exposed_session_ids: [...this.leakSources].sort(),
      leaks: this.leaks,
      pii: this.pii,
    }
  }
}

// ------------------------------------------------------------------ helpers

/** `count` distinct positions in [0, n), one in each equal slice (so they are spread out). */
function spread(rng: Rng, count: number, n: number): Set<number> {
  const out = new Set<number>()
  const c = Math.min(count, n)
  for (let k = 0; k < c; k++) out.add(Math.min(n - 1, Math.floor(((k + rng.next()) * n) / c)))
  return out
}

function uuid(rng: Rng): string {
  const h = rng.hex(32)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[rng.int(4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

function lastWord(text: string): string {
  return text.slice(text.lastIndexOf(' ') + 1)
}

function flipHexCase(marker: string): string {
  const hex = marker.slice(7)
  return 'CANARY-' + (hex === hex.toUpperCase() ? hex.toLowerCase() : hex.toUpperCase())
}

function differentWord(rng: Rng, candidate: string, avoid: string): string {
  let w = candidate
  for (let k = 0; k < 20 && normWord(w) === normWord(avoid); k++) w = word(rng)
  return w
}

/** The ground truth as written: its long lists are spools on disk. */
type GroundTruthOut = {[K in keyof GroundTruth]: GroundTruth[K] extends readonly (infer T)[] ? readonly T[] | Spool<T> : GroundTruth[K]}

/** A JSON array written to a temporary file one element at a time (1 MiB blocks). */
class Spool<T> {
  count = 0
  private parts: string[] = []
  private size = 0

  constructor(readonly path: string) {
    writeFileSync(path, '')
  }

  push(value: T): void {
    const s = `${this.count++ > 0 ? ',\n' : ''}    ${JSON.stringify(value)}`
    this.parts.push(s)
    this.size += s.length
    if (this.size >= 1 << 20) this.flush()
  }

  flush(): void {
    if (this.parts.length === 0) return
    appendFileSync(this.path, this.parts.join(''))
    this.parts = []
    this.size = 0
  }

  /** Copies the elements to `fd` and removes the file. */
  drainTo(fd: number): void {
    this.flush()
    const src = openSync(this.path, 'r')
    try {
      const buf = Buffer.allocUnsafe(1 << 20)
      for (let n = readSync(src, buf); n > 0; n = readSync(src, buf)) writeSync(fd, buf, 0, n)
    } finally {
      closeSync(src)
    }
    rmSync(this.path)
  }
}

/** Pretty enough to diff: one top-level key per line, one array element per line. Streamed. */
function writeGroundTruth(path: string, gt: GroundTruthOut): void {
  const fd = openSync(path, 'w')
  try {
    writeSync(fd, '{\n')
    let first = true
    for (const [key, value] of Object.entries(gt)) {
      writeSync(fd, `${first ? '' : ',\n'}  ${JSON.stringify(key)}: `)
      first = false
      if (value instanceof Spool) {
        if (value.count === 0) {
          writeSync(fd, '[]')
          value.drainTo(fd)
        } else {
          writeSync(fd, '[\n')
          value.drainTo(fd)
          writeSync(fd, '\n  ]')
        }
      } else if (Array.isArray(value)) {
        writeSync(fd, value.length === 0 ? '[]' : `[\n${value.map((v) => `    ${JSON.stringify(v)}`).join(',\n')}\n  ]`)
      } else writeSync(fd, JSON.stringify(value))
    }
    writeSync(fd, '\n}\n')
  } finally {
    closeSync(fd)
  }
}
