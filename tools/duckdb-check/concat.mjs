#!/usr/bin/env node
// Concatenates the runs tables of several results directories with DuckDB,
// as a SQL user would, without union_by_name (the columns of every results
// directory of a release are the same: outputs/README.md, "Self-describing
// tables"):
//
//   node concat.mjs DIR...
//
// prints one JSON object: the rows of SELECT * FROM read_parquet([...]),
// the columns (name and DuckDB type) and the rows per family. Exits 1 when
// DuckDB refuses the concatenation, or when a file's columns differ from
// the first's: DuckDB then reads every file as the first (a column only a
// later file has is dropped, without a word), which is what union_by_name
// is for.
import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';

const dirs = process.argv.slice(2);
if (dirs.length < 2) {
  console.error('usage: node concat.mjs DIR DIR...');
  process.exit(2);
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const files = `[${dirs.map((d) => q(join(d, 'runs.parquet'))).join(', ')}]`;
const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const all = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson();
try {
  const first = await all(`DESCRIBE SELECT * FROM read_parquet(${q(join(dirs[0], 'runs.parquet'))})`);
  const show = (cols) => cols.map((r) => `${r.column_name} ${r.column_type}`).join(', ');
  for (const d of dirs.slice(1)) {
    const cols = await all(`DESCRIBE SELECT * FROM read_parquet(${q(join(d, 'runs.parquet'))})`);
    if (show(cols) !== show(first)) {
      console.error(`duckdb: ${join(d, 'runs.parquet')} has the columns\n  ${show(cols)}\n${join(dirs[0], 'runs.parquet')} has\n  ${show(first)}`);
      process.exit(1);
    }
  }
  const columns = (await all(`DESCRIBE SELECT * FROM read_parquet(${files}, union_by_name = false)`)).map((r) => [r.column_name, r.column_type]);
  const rows = Number((await all(`SELECT count(*)::DOUBLE AS n FROM (SELECT * FROM read_parquet(${files}, union_by_name = false))`))[0].n);
  const families = Object.fromEntries((await all(`SELECT family, count(*)::DOUBLE AS n FROM read_parquet(${files}, union_by_name = false) GROUP BY family ORDER BY family`))
    .map((r) => [r.family, Number(r.n)]));
  console.log(JSON.stringify({ rows, columns, families }));
} catch (e) {
  console.error(`duckdb: ${e.message}`);
  process.exit(1);
}
