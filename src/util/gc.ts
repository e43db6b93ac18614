import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'

let gcFn: (() => void) | null | undefined

/**
 * A full garbage collection where the runtime allows it. A bound on peak memory between the
 * phases of a long command, never a correctness matter: V8 lets the old generation grow to a
 * multiple of the live heap before it collects on its own.
 */
export function fullGc(): void {
  if (gcFn === undefined) {
    try {
      setFlagsFromString('--expose-gc')
      gcFn = runInNewContext('gc') as () => void
    } catch {
      gcFn = null
    }
  }
  gcFn?.()
}
