import {benchFullScan, benchScanScaling} from './scan-scaling.js'

// `node dist/bench/scan-scaling-main.js [records] [responseWords]`
const records = Number(process.argv[2] ?? 20000)
const responseWords = Number(process.argv[3] ?? 150)
const scaling = await benchScanScaling({records, responseWords, smallRegistry: 10, largeRegistry: 100_000, rounds: 7, seed: 42})
process.stdout.write(`${JSON.stringify({scaling})}\n`)
process.stdout.write(`${JSON.stringify({full_scan: await benchFullScan({records, responseWords, seed: 7})})}\n`)
