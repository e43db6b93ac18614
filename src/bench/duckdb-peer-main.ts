// The DuckDB peer: the naive SQL a responder would write, run in its own process so the
// bench can measure its wall time and peak RSS like crosstalk's.
//   node dist/bench/duckdb-peer-main.js LOGS_DIR CANARIES_CSV
// Prints {"request_ids": [...]} : responses holding a CANARY- token (searched in the raw JSON
// text of `response`) that the registry assigns to a session other than the line's own.
import {DuckDBInstance} from '@duckdb/node-api'

const NAIVE_SQL = (logsGlob: string, canariesCsv: string): string => `
WITH lines AS (
  SELECT json->>'request_id' AS request_id, json->>'session_id' AS session_id, CAST(json->'response' AS VARCHAR) AS response
  FROM read_ndjson_objects(${quote(logsGlob)}, ignore_errors = true)
),
tokens AS (
  SELECT request_id, session_id, unnest(regexp_extract_all(response, 'CANARY-[0-9a-fA-F]+')) AS marker FROM lines
),
registry AS (
  SELECT marker, session_id FROM read_csv(${quote(canariesCsv)}, header = true, all_varchar = true)
)
SELECT DISTINCT t.request_id FROM tokens t JOIN registry r ON r.marker = t.marker WHERE r.session_id <> t.session_id`

function quote(s: string): string {
  return `'${s.replaceAll("'", "''")}'`
}

async function main(): Promise<void> {
  const [logs, canaries] = process.argv.slice(2)
  if (!logs || !canaries) throw new Error('usage: duckdb-peer-main.js LOGS_DIR CANARIES_CSV')
  const instance = await DuckDBInstance.create(':memory:')
  const connection = await instance.connect()
  const reader = await connection.runAndReadAll(NAIVE_SQL(`${logs}/*.jsonl*`, canaries))
  const ids = reader.getRows().map((row) => String(row[0]))
  process.stdout.write(`${JSON.stringify({request_ids: ids})}\n`)
  connection.closeSync()
  instance.closeSync()
}

await main()
