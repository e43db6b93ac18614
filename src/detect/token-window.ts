import {UsageError} from '../errors.js'

/**
 * A KV pool serves prompts inside the window the service advertises: a window below its pool is
 * a pair of flags that contradict each other, a usage error wherever the pair is taken (scan,
 * scope, report case; probe says it in its own words). scope and report case used to accept it
 * and printed "at or over the advertised window: 0" over prompts well past the window, since that
 * figure is counted inside the at-risk set, empty at such a pool.
 *
 * `recorded`: the pool is the one the scan recorded, not one given with --pool-tokens.
 */
export function checkTokenWindow(pool: number | null | undefined, advertised: number | null | undefined, recorded = false): void {
  if (pool === null || pool === undefined || advertised === null || advertised === undefined || advertised >= pool) return
  if (!recorded) throw new UsageError('--advertised-tokens must be at least --pool-tokens')
  throw new UsageError(`--advertised-tokens must be at least the pool it is judged at: ${advertised} is below the pool size the scan recorded (${pool} tokens); give a window at or over it, or --pool-tokens N for another pool`)
}
