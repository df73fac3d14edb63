#!/usr/bin/env node
// Concatenates the runs tables of several results directories with polars
// (nodejs-polars), vertically, without a diagonal or relaxed concat: the
// columns of every results directory of a release are the same, in the same
// order and types (outputs/README.md, "Self-describing tables"):
//
//   node concat.mjs DIR...
//
// concatenates the runs.arrow files and the runs.parquet files and prints
// one JSON object: rows, columns and rows per family of each. Exits 1 when
// polars refuses a concatenation.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pl from "nodejs-polars";

const dirs = process.argv.slice(2);
if (dirs.length < 2) {
  console.error("usage: node concat.mjs DIR DIR...");
  process.exit(2);
}
const out = {};
for (const [what, file, read] of [
  ["arrow", "runs.arrow", (b) => pl.readIPC(b)],
  ["parquet", "runs.parquet", (b) => pl.readParquet(b)],
]) {
  try {
    const all = pl.concat(dirs.map((d) => read(readFileSync(join(d, file)))), { how: "vertical" });
    const families = {};
    for (const f of all.getColumn("family").toArray()) families[f] = (families[f] ?? 0) + 1;
    out[what] = { rows: all.height, columns: all.columns, families };
  } catch (e) {
    console.error(`polars: ${file}: ${e.message}`);
    process.exit(1);
  }
}
console.log(JSON.stringify(out));
