import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {startTestbed, TESTBED_DEFAULTS} from '../../testbed/server.js'

export default class TestbedServe extends BaseCommand {
  static override description = `Run the reference serving backend: a SIMULATOR, not a model.

An OpenAI-compatible server (/v1/chat/completions, /v1/completions, /v1/models, /tokenize, /health, /metrics) over a simulated paged KV pool with prefix caching and optional disaggregated prefill. Freed pages are not zeroed; its deterministic "model" answers from the KV pages decode reads. --on-overflow picks what happens to a prompt that fits the advertised window but not the pool: reject (a correct 400), hang (never answers, like vLLM with a shrunken pool), or stale (HTTP 200 decoded from another request's pages: the incident). Use it as a positive control for probe/replay.`

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
    'on-overflow': Flags.option({options: ['reject', 'hang', 'stale'] as const, description: 'Behaviour for prompts above the pool but inside the window.', default: 'reject'})(),
    disaggregated: Flags.boolean({description: 'Separate prefill and decode workers that hand KV pages over.'}),
    'error-style': Flags.option({options: ['vllm', 'sglang'] as const, description: 'Shape of rejection bodies.', default: 'vllm'})(),
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
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
        void testbed.close().then(resolve)
      }
      process.on('SIGINT', stop)
      process.on('SIGTERM', stop)
    })
  }
}
