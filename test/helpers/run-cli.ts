// Kept for the tests that import it by this name; everything lives in cli.ts.
export {runCli, runCliAsync, tempDir, type CliRun} from './cli.js'
