import {asyncBufferFromFile, parquetReadObjects} from 'hyparquet'
import {fileWriter, ParquetWriter, type SchemaElement} from 'hyparquet-writer'
import {InputError} from '../errors.js'

// Small Parquet tables in and out (the registry export; the findings a Spark job wrote).

export type Cell = string | number | boolean | null

/**
 * The rows of one Parquet file as plain objects (64-bit integers as numbers: every value here is below 2^53).
 * A file that cannot be opened or decoded (truncated, damaged) is an InputError naming it: the
 * library's own messages ("parquet file invalid (footer != PAR1)") name no file.
 */
export async function readParquetRows(path: string): Promise<Array<Record<string, unknown>>> {
  let rows: Array<Record<string, unknown>>
  try {
    const file = await asyncBufferFromFile(path)
    rows = (await parquetReadObjects({file})) as Array<Record<string, unknown>>
  } catch (error) {
    const e = error as NodeJS.ErrnoException
    if (e.code) throw new InputError(`${path}: cannot read (${e.code})`, 'E_UNREADABLE')
    throw new InputError(`${path}: not a readable Parquet file (${oneLine(e.message ?? String(error))}): damaged or cut short`, 'E_UNREADABLE')
  }
  return rows.map((row) => normalise(row) as Record<string, unknown>)
}

const oneLine = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim().slice(0, 200)

function normalise(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value)
  if (Array.isArray(value)) return value.map(normalise)
  if (value instanceof Uint8Array) return value
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)]))
  return value
}

/** A table of string columns (nullable) as one Parquet file. */
export function writeStringTable(path: string, columns: readonly string[], rows: ReadonlyArray<Record<string, string | null>>): void {
  const schema: SchemaElement[] = [
    {name: 'root', num_children: columns.length},
    ...columns.map((name): SchemaElement => ({name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL'})),
  ]
  const writer = new ParquetWriter({writer: fileWriter(path), schema, statistics: false, createdBy: 'crosstalk'})
  if (rows.length > 0) writer.write({columnData: columns.map((name) => ({name, data: rows.map((r) => r[name] ?? null)})), rowGroupSize: 100_000})
  writer.finish()
}
