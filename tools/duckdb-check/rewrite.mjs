#!/usr/bin/env node
// Rewrites a dataset's documents.parquet with DuckDB, as a user's own tool
// would publish the same rows, for `prep ingest` to read back (ingest's
// TestDuckDBRewrite):
//
//   node rewrite.mjs DATASET_DIR/documents.parquet COLUMNS.parquet LIST.parquet
//
// COLUMNS.parquet: every column as is (f1..fN), ZSTD, ROW_GROUP_SIZE 1000.
// LIST.parquet: the features as one list column "features" (DOUBLE[], a
// LIST of optional elements), the other columns but doc as they are, ZSTD,
// ROW_GROUP_SIZE 1000. DuckDB rounds the row group size up to its vector
// size, so both files have row groups of 2,048 rows (the last shorter).
// Row order is kept (DuckDB preserves insertion order for a COPY of one
// file).
import { DuckDBInstance } from '@duckdb/node-api';

const [src, cols, list] = process.argv.slice(2);
if (!src || !cols || !list) {
  console.error('usage: node rewrite.mjs DOCUMENTS.parquet COLUMNS.parquet LIST.parquet');
  process.exit(2);
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const id = (s) => `"${s.replaceAll('"', '""')}"`;

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const opts = '(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000)';
await conn.run(`COPY (SELECT * FROM read_parquet(${q(src)})) TO ${q(cols)} ${opts}`);

const names = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${q(src)})`))
  .getRowObjectsJson().map((r) => r.column_name);
const feats = names.filter((n) => /^f[0-9]+$/.test(n)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
const others = names.filter((n) => !/^f[0-9]+$/.test(n) && n !== 'doc');
const select = [...others.map(id), `[${feats.map(id).join(', ')}] AS features`].join(', ');
await conn.run(`COPY (SELECT ${select} FROM read_parquet(${q(src)})) TO ${q(list)} ${opts}`);

const n = (await conn.runAndReadAll(`SELECT count(*) AS n, max(row_group_id) + 1 AS groups FROM parquet_metadata(${q(list)})`)).getRowObjectsJson()[0];
console.log(`duckdb ${(await conn.runAndReadAll('SELECT version() AS v')).getRowObjectsJson()[0].v}: wrote ${cols} and ${list} (${feats.length} features, ${n.groups} row groups)`);
