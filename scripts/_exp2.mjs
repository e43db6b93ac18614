import {openCase} from '../dist/store/open-case.js'
import {stageRegistry} from '../dist/store/canaries.js'
import {readFileSync, rmSync} from 'node:fs'
const lines = readFileSync('bench/out/incident-200000-s1/canaries.csv','utf8').split('\n').slice(1).filter(Boolean).map(l=>l.split(','))
for (const pragma of ['', 'temp_store=MEMORY', 'temp.page_size=4096', 'temp_store=MEMORY']) {
  rmSync('/tmp/exp/c.db',{force:true}); rmSync('/tmp/exp/c.db-wal',{force:true})
  const db = openCase('/tmp/exp/c.db', {create: true})
  if (pragma) db.pragma(pragma)
  const s = stageRegistry(db)
  db.exec('BEGIN')
  let t0 = performance.now()
  lines.forEach((l,i)=>s.add({line:i+2, marker_key:l[0], marker:l[0], tenant_id:l[1], session_id:l[2], issued_at:l[3]}))
  let t1 = performance.now()
  s.conflicts(4)
  let t2 = performance.now()
  s.commit(null)
  let t3 = performance.now()
  db.exec('COMMIT'); let t4 = performance.now()
  console.log(pragma||'-', 'add', (t1-t0).toFixed(0), 'conflicts', (t2-t1).toFixed(0), 'commit', (t3-t2).toFixed(0), 'COMMIT', (t4-t3).toFixed(0))
  s.drop(); db.close()
}
