import {existsSync} from 'node:fs'
import {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'

// The native addon (native/, Rust through napi-rs), built by `npm ci` / `npm run build` where
// cargo is installed (scripts/build-native.mjs). Everything it does has a TypeScript reference
// that stays the fallback: without the addon, or with CROSSTALK_NATIVE=0, the same answers
// come more slowly. Loaded once per thread, on first use.

/** Where the build puts the addon (the repository's native/ folder, beside dist/ and src/). */
export const ADDON_PATH = fileURLToPath(new URL('../../native/crosstalk-native.node', import.meta.url))

let addon: object | null | undefined
let loadError: string | null = null

/** The addon's exports (each caller checks for the functions it uses: an older build may lack them), or null. */
export function nativeAddon(): Record<string, unknown> | null {
  if (addon !== undefined) return addon as Record<string, unknown> | null
  addon = null
  if (process.env.CROSSTALK_NATIVE === '0') loadError = 'turned off by CROSSTALK_NATIVE=0'
  else if (!existsSync(ADDON_PATH)) loadError = 'not built (npm run build found no cargo, or its cargo build failed, and said so)'
  else {
    try {
      addon = createRequire(import.meta.url)(ADDON_PATH) as object
    } catch (error) {
      loadError = `could not be loaded: ${(error as Error).message.split('\n')[0]}`
    }
  }
  return addon as Record<string, unknown> | null
}

/** Why the addon is not in use (null when it is, or before anyone asked for it). */
export function nativeAddonError(): string | null {
  return loadError
}

/** For tests: forget the loaded addon so that CROSSTALK_NATIVE is read again. */
export function resetNativeAddon(): void {
  addon = undefined
  loadError = null
}
