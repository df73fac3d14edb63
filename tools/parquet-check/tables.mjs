#!/usr/bin/env node
// Reads a sweep's runs.parquet and curves.parquet with hyparquet (a
// pure-JavaScript Parquet reader, sharing no code with the Go writer):
//
//   node tables.mjs DIR
//
// prints one JSON object: the column names of both files, every run's
// run_id, family, algorithm, params (results layout 4: the param_<key>
// columns gathered into an object keyed by <key>, null where a run's
// algorithm has no such parameter) and silo_pseudo_regret (an array, null
// for the families without silos), and the curves' row count and sums;
// per file the top-level columns whose repetition type is REQUIRED
// (non-nullable) and the key-value metadata (fedbandit.* and
// ARROW:schema).
// outputs' TestParquetIndependentReaders compares it with the tables the
// Go code wrote. Exits 1 when hyparquet cannot read a file.
import { join } from 'node:path'
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet'

const dir = process.argv[2]
if (!dir || process.argv.length > 3) {
  console.error('usage: node tables.mjs DIR')
  process.exit(2)
}
const read = async (name) => {
  const file = await asyncBufferFromFile(join(dir, name))
  const metadata = await parquetMetadataAsync(file)
  const rows = await parquetReadObjects({ file, metadata })
  const top = metadata.schema[0].num_children
  // The top-level columns: the root's children, in order.
  const names = []
  const required = []
  for (let i = 1, left = top; left > 0; left--) {
    names.push(metadata.schema[i].name)
    if (metadata.schema[i].repetition_type === 'REQUIRED') required.push(metadata.schema[i].name)
    // Skip the node's subtree.
    let pending = 1
    while (pending > 0) {
      pending += (metadata.schema[i].num_children ?? 0) - 1
      i++
    }
  }
  const kv = Object.fromEntries((metadata.key_value_metadata ?? []).map(({ key, value }) => [key, value]))
  return { names, rows, required, kv }
}
const num = (v) => (typeof v === 'bigint' ? Number(v) : v)
const runs = await read('runs.parquet')
const curves = await read('curves.parquet')
runs.rows.sort((a, b) => (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0))
console.log(JSON.stringify({
  runs_columns: runs.names,
  curves_columns: curves.names,
  runs_required: runs.required,
  curves_required: curves.required,
  runs_kv: runs.kv,
  curves_kv: curves.kv,
  runs: runs.rows.map((r) => ({
    run_id: r.run_id, family: r.family, algorithm: r.algorithm,
    params: Object.fromEntries(runs.names.filter((n) => n.startsWith('param_')).map((n) => [n.slice('param_'.length), r[n] ?? null])),
    silo_pseudo_regret: r.silo_pseudo_regret ?? null,
  })),
  curves: {
    rows: curves.rows.length,
    pseudo: curves.rows.reduce((s, r) => s + num(r.pseudo_regret), 0),
    rounds: curves.rows.reduce((s, r) => s + num(r.t), 0),
  },
}, (_, v) => (typeof v === 'bigint' ? Number(v) : v)))
