import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {startTestbed, TESTBED_DEFAULTS} from '../../testbed/server.js'
import {count} from '../../cli/plural.js'

export default class TestbedServe extends BaseCommand {
  static override description = `Run the reference serving backend: a SIMULATOR, not a model.

An OpenAI-compatible server over a simulated paged KV pool with prefix caching and optional disaggregated prefill. Freed pages are not zeroed; its deterministic "model" answers from the KV pages decode reads. Use it as a positive control for probe and replay.

What a client sees is vLLM's OpenAI server: the routes (/v1/chat/completions, /v1/completions, /v1/models, /tokenize, /version, /health, /metrics); request-validation errors as HTTP 400 with type "Bad Request"; prompts over the window as 400 BadRequestError with vLLM's messages; an unknown model as 404 NotFoundError; no max_tokens meaning what is left of the window; n choices; unknown routes as 404 {"detail":"Not Found"}; --api-key guarding /v1 with 401. Bodies take vLLM's nested shape, or SGLang's flat one with --error-style sglang (the official openai clients then report "400 status code (no body)", as they do against SGLang).

--on-overflow picks what happens to a prompt that fits the advertised window but not the pool: stale answers HTTP 200 decoded from another request's pages, as released vLLM does in disaggregated mode (the incident, vllm#52234); hang never answers, as released vLLM does with a pool shrunk below its window (vllm#35541, #39734); reject sends an explicit 400 naming the KV cache, which is NOT what released vLLM does but what a fixed build should do (with --error-style sglang: SGLang's scheduler rejection).

Ours, not vLLM's: the model and its word tokenizer, metric names (testbed: prefix), /version (0.0.0+crosstalk.testbed), the 16 MiB request-body limit, and --on-overflow reject. Stops on SIGINT or SIGTERM: closes every connection, hung ones included, and says so.` 
  static override examples = [
    '<%= config.bin %> testbed serve --port 0 --on-overflow stale --disaggregated',
    '<%= config.bin %> testbed serve --port 8000 --pool-tokens 4096 --max-model-len 16384 --on-overflow reject --error-style sglang',
  ]

  static override enableJsonFlag = false

  static override flags = {
    host: Flags.string({description: 'Address to listen on.', default: TESTBED_DEFAULTS.host}),
    port: Flags.integer({description: 'Port (0 picks a free one).', default: TESTBED_DEFAULTS.port, min: 0, max: 65535}),
    'pool-tokens': Flags.integer({description: 'KV pool size in tokens.', default: TESTBED_DEFAULTS.poolTokens, min: 1}),
    'page-size': Flags.integer({description: 'Tokens per KV page.', default: TESTBED_DEFAULTS.pageSize, min: 1}),
    'max-model-len': Flags.integer({description: 'Advertised context window in tokens.', default: TESTBED_DEFAULTS.maxModelLen, min: 2}),
    'on-overflow': Flags.option({options: ['reject', 'hang', 'stale'] as const, description: 'Prompts above the pool but inside the window: stale (released vLLM, disaggregated: the incident), hang (released vLLM with a shrunk pool) or reject (ours: what a fixed build should do).', default: 'reject'})(),
    disaggregated: Flags.boolean({description: 'Separate prefill and decode workers that hand KV pages over.'}),
    'error-style': Flags.option({options: ['vllm', 'sglang'] as const, description: "Error bodies in vLLM's nested shape or SGLang's flat one.", default: 'vllm'})(),
    'no-prefix-cache': Flags.boolean({description: 'Turn prefix caching off.'}),
    'ignore-cache-salt': Flags.boolean({description: 'Leave cache_salt out of page hashes (the LMCache/sglang#37160 bug).'}),
    model: Flags.string({description: 'Model name served.', default: TESTBED_DEFAULTS.model}),
    'api-key': Flags.string({description: 'Require this bearer token on /v1 routes.', env: 'CROSSTALK_TESTBED_API_KEY'}),
  }

  public async run(): Promise<void> {
    const {flags} = await this.parse(TestbedServe)
    if (flags['pool-tokens'] < flags['page-size']) this.error(`--pool-tokens must hold at least one page (${flags['page-size']} tokens)`, {exit: 2})
    const testbed = await startTestbed({
      host: flags.host,
      port: flags.port,
      poolTokens: flags['pool-tokens'],
      pageSize: flags['page-size'],
      maxModelLen: flags['max-model-len'],
      onOverflow: flags['on-overflow'],
      disaggregated: flags.disaggregated,
      errorStyle: flags['error-style'],
      prefixCache: !flags['no-prefix-cache'],
      ignoreCacheSalt: flags['ignore-cache-salt'],
      model: flags.model,
      apiKey: flags['api-key'],
    })
    const pool = testbed.engine.prefill
    this.note(
      `crosstalk testbed (simulator) listening on ${testbed.url}  pool=${pool.capacityTokens} tokens (${pool.pageCount}x${pool.pageSize})` +
        ` max-model-len=${flags['max-model-len']} on-overflow=${flags['on-overflow']}${flags.disaggregated ? ' disaggregated' : ''} error-style=${flags['error-style']}`,
    )
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      const stop = (received: NodeJS.Signals): void => {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
        resolve(received)
      }
      process.on('SIGINT', stop)
      process.on('SIGTERM', stop)
    })
    const {connections} = await testbed.close()
    this.note(`crosstalk testbed stopped on ${signal}; closed ${count(connections, 'connection')}`)
  }
}
