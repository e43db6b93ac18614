import type {Engine} from './engine.js'

// Prometheus text exposition (format 0.0.4). Names follow vLLM's where one exists, under a
// `testbed:` prefix so nobody mistakes the simulator for a real engine on a dashboard.

export function renderMetrics(engine: Engine, model: string): string {
  const lines: string[] = []
  const label = `model_name="${model.replace(/["\\\n]/g, '_')}"`
  const gauge = (name: string, help: string, value: number, type = 'gauge'): void => {
    lines.push(`# HELP testbed:${name} ${help}`, `# TYPE testbed:${name} ${type}`, `testbed:${name}{${label}} ${value}`)
  }
  const pool = engine.prefill
  const c = engine.counters
  gauge('kv_pool_tokens', 'KV pool capacity in tokens (whole pages).', pool.capacityTokens)
  gauge('kv_page_size', 'Tokens per KV page.', pool.pageSize)
  gauge('kv_pages_total', 'KV pages in the prefill pool.', pool.pageCount)
  gauge('kv_cache_usage_perc', 'Fraction of KV pages held by running requests.', pool.pageCount === 0 ? 0 : pool.pagesInUse / pool.pageCount)
  gauge('prefix_cached_pages', 'Pages currently reachable through the prefix cache.', pool.cachedPages)
  gauge('max_model_len', 'Advertised context window in tokens.', engine.options.maxModelLen)
  gauge('prefix_cache_queries_total', 'Prompt tokens looked up in the prefix cache.', c.prefixQueryTokens, 'counter')
  gauge('prefix_cache_hits_total', 'Prompt tokens served from the prefix cache.', c.prefixHitTokens, 'counter')
  gauge('requests_total', 'Generation requests received.', c.requests, 'counter')
  gauge('requests_served_total', 'Generation requests answered.', c.served, 'counter')
  gauge('requests_hung_total', 'Requests left without an answer (--on-overflow hang).', c.hung, 'counter')
  gauge('stale_kv_reads_total', 'Requests answered from KV pages they never wrote (--on-overflow stale).', c.stale, 'counter')
  gauge('kv_handoffs_total', 'Prefill-to-decode KV transfers (--disaggregated).', c.handoffs, 'counter')
  lines.push('# HELP testbed:rejections_total Requests rejected, by reason.', '# TYPE testbed:rejections_total counter')
  for (const [reason, count] of Object.entries(c.rejected)) lines.push(`testbed:rejections_total{${label},reason="${reason}"} ${count}`)
  return lines.join('\n') + '\n'
}
