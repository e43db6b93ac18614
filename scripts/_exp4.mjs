import {plainEntry} from '../dist/ingest/ingest-canaries.js'
import {parseTimestamp} from '../dist/util/timestamps.js'
import {markerKey} from '../dist/extract/markers.js'
import {readFileSync} from 'node:fs'
for (let r = 0; r < 3; r++) {
  let t0 = performance.now()
  const whole = readFileSync('bench/out/incident-200000-s1/canaries.csv').toString('utf8')
  let t1 = performance.now()
  const rows = []
  for (let from = 0; from < whole.length;) { let nl = whole.indexOf('\n', from); if (nl === -1) nl = whole.length; rows.push(whole.slice(from, nl).split(',')); from = nl + 1 }
  let t2 = performance.now()
  let n = 0
  for (const c of rows.slice(1)) { const e = plainEntry({marker: c[0], tenant_id: c[1], session_id: c[2], issued_at: c[3]}); if (e) n++ }
  let t3 = performance.now()
  for (const c of rows.slice(1)) parseTimestamp(c[3])
  let t4 = performance.now()
  for (const c of rows.slice(1)) markerKey(c[0])
  let t5 = performance.now()
  console.log('read', (t1-t0).toFixed(0), 'split', (t2-t1).toFixed(0), 'plain', (t3-t2).toFixed(0), 'ts', (t4-t3).toFixed(0), 'key', (t5-t4).toFixed(0))
}
