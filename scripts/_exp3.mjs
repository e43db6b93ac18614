import {openCase} from '../dist/store/open-case.js'
import {ingestCanaries} from '../dist/ingest/ingest-canaries.js'
import {rmSync} from 'node:fs'
for (let i = 0; i < 3; i++) {
  rmSync('/tmp/exp/c.db',{force:true}); rmSync('/tmp/exp/c.db-wal',{force:true})
  let t0 = performance.now()
  const db = openCase('/tmp/exp/c.db', {create: true})
  let t1 = performance.now()
  await ingestCanaries(db, {path: 'bench/out/incident-200000-s1/canaries.csv', now: () => new Date()})
  let t2 = performance.now()
  db.close()
  let t3 = performance.now()
  console.log('open', (t1-t0).toFixed(0), 'ingest', (t2-t1).toFixed(0), 'close', (t3-t2).toFixed(0))
}
