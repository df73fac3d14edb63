#!/usr/bin/env node
// Reads a sweep's results Parquet with DuckDB, as a SQL user would, with no
// extension (DuckDB reads Parquet natively; its Arrow IPC reader is an
// extension that needs a download):
//
//   node check.mjs DIR
//
// prints one JSON object: the column names and DuckDB types of
// DIR/runs.parquet and DIR/curves.parquet, every run's run_id, family,
// algorithm, params (a STRUCT: one DOUBLE field per parameter, NULL where
// a run's algorithm has no such parameter) and silo_pseudo_regret (a
// DOUBLE[]), each parameter also read on its own (params.<name>), and the
// curves' row count and sums. outputs' TestParquetIndependentReaders
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
const out = {
  runs_columns: await describe(runs),
  curves_columns: await describe(curves),
  runs: await all(`SELECT run_id, family, algorithm, params, silo_pseudo_regret FROM read_parquet(${runs}) ORDER BY run_id`),
};
// Each parameter on its own, as a query would select it.
const params = out.runs_columns.find(([n]) => n === 'params');
out.params = {};
for (const m of (params?.[1] ?? '').matchAll(/"?([A-Za-z_][A-Za-z0-9_]*)"? DOUBLE/g)) {
  out.params[m[1]] = (await all(`SELECT params.${m[1]} AS v FROM read_parquet(${runs}) ORDER BY run_id`)).map((r) => r.v);
}
out.curves = (await all(`SELECT count(*)::DOUBLE AS rows, sum(pseudo_regret) AS pseudo, sum(round)::DOUBLE AS rounds FROM read_parquet(${curves})`))[0];
console.log(JSON.stringify(out));
