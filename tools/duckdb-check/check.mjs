#!/usr/bin/env node
// Reads a sweep's results Parquet with DuckDB, as a SQL user would, with no
// extension (DuckDB reads Parquet natively; its Arrow IPC reader is an
// extension that needs a download):
//
//   node check.mjs DIR
//
// prints one JSON object: the column names and DuckDB types of
// DIR/runs.parquet and DIR/curves.parquet, every run's run_id, family,
// algorithm, params (results layout 4: the param_<key> DOUBLE columns,
// gathered into an object keyed by <key>, NULL where a run's algorithm has
// no such parameter) and silo_pseudo_regret (a DOUBLE[], NULL for the
// families without silos), each parameter also read on its own, and the
// curves' row count and sums, and the same over `curves JOIN runs USING
// (run_id)` with the number of distinct group_id. outputs' TestParquetIndependentReaders
// compares it with the tables the Go code wrote. Exits 1 when DuckDB
// cannot read a file.
import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';

const dir = process.argv[2];
if (!dir || process.argv.length > 3) {
  console.error('usage: node check.mjs DIR');
  process.exit(2);
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const runs = q(join(dir, 'runs.parquet'));
const curves = q(join(dir, 'curves.parquet'));
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const all = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson();

const describe = async (f) => (await all(`DESCRIBE SELECT * FROM read_parquet(${f})`)).map((r) => [r.column_name, r.column_type]);
const runsColumns = await describe(runs);
const paramCols = runsColumns.map(([n]) => n).filter((n) => n.startsWith('param_'));
const id = (n) => `"${n.replaceAll('"', '""')}"`;
const out = {
  runs_columns: runsColumns,
  curves_columns: await describe(curves),
  runs: (await all(`SELECT run_id, family, algorithm, silo_pseudo_regret${paramCols.map((n) => ', ' + id(n)).join('')} FROM read_parquet(${runs}) ORDER BY run_id`))
    .map((r) => ({
      run_id: r.run_id, family: r.family, algorithm: r.algorithm, silo_pseudo_regret: r.silo_pseudo_regret,
      params: Object.fromEntries(paramCols.map((n) => [n.slice('param_'.length), r[n]])),
    })),
};
// Each parameter on its own, as a query would select it.
out.params = {};
for (const n of paramCols) {
  out.params[n.slice('param_'.length)] = (await all(`SELECT ${id(n)} AS v FROM read_parquet(${runs}) ORDER BY run_id`)).map((r) => r.v);
}
out.curves = (await all(`SELECT count(*)::DOUBLE AS rows, sum(pseudo_regret) AS pseudo, sum(t)::DOUBLE AS rounds FROM read_parquet(${curves})`))[0];
// The join a notebook writes: run_id is the only column the two tables
// share, so every other name resolves without a table prefix (DuckDB says
// "Ambiguous reference" otherwise).
out.joined = (await all(`SELECT count(*)::DOUBLE AS rows, count(DISTINCT group_id)::DOUBLE AS groups, sum(pseudo_regret) AS pseudo
  FROM read_parquet(${curves}) JOIN read_parquet(${runs}) USING (run_id)`))[0];
console.log(JSON.stringify(out));
