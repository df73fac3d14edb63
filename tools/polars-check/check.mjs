#!/usr/bin/env node
// Independent reader of fedbandit outputs with polars (CI): loads each table
// in ONE call, as a notebook does (pl.read_ipc / pl.read_parquet in Python;
// the Rust polars engine here, through nodejs-polars), and checks that every
// column arrives with its documented type, the params struct included, so
// that a notebook needs no casting or decoding. Exits 1 on any mismatch.
//
//   node check.mjs sweep DIR [--runs N] [--curve-rows N]
//       DIR/runs.arrow and DIR/curves.arrow (outputs/README.md), and their
//       Parquet copies DIR/runs.parquet and DIR/curves.parquet
//   node check.mjs dataset DIR
//       DIR/documents.parquet against DIR/manifest.json (datasets.md)
//
// nodejs-polars treats a string argument of readIPC as a path only when it
// ends in ".ipc" (a ".arrow" path is parsed as inline data), so the files
// are passed as buffers; Python's pl.read_ipc("DIR/runs.arrow") takes the
// path. The expected columns (of layout 2) are written out here on
// purpose: a schema change in Go that is not mirrored here fails CI. The
// layout in the schema metadata, which nodejs-polars does not expose, is
// checked by tools/arrow-check.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import pl from "nodejs-polars";

// Polars types of runs.arrow, in file order. "Struct<Float64...>" is the
// params struct: one Float64 field per parameter key, in key order.
const RUN_COLUMNS = [
  ["run_id", "String"], ["status", "String"], ["error", "String"], ["format_version", "Int64"],
  ["sweep", "String"], ["group", "String"], ["group_id", "String"],
  ["instance", "String"], ["instance_kind", "String"], ["instance_hash", "String"], ["instance_name", "String"],
  ["d", "Int64"], ["features", "String"], ["reward_model", "String"], ["noise_var", "Float64"],
  ["partition_strategy", "String"], ["partition_seed", "UInt64"], ["k", "Int64"], ["fixed_basis", "Bool"],
  ["instance_seed", "UInt64"], ["shared_contexts", "Bool"], ["context_gen", "String"],
  ["family", "String"], ["algorithm", "String"], ["trust", "String"], ["params", "Struct<Float64...>"],
  ["protocol", "String"], ["lazy", "Bool"], ["preset", "String"],
  ["eps", "Float64"], ["delta", "Float64"], ["relation", "String"],
  ["M", "Int64"], ["T", "Int64"], ["B", "Int64"], ["alpha", "Float64"], ["every", "Int64"], ["seed", "UInt64"],
  ["R", "Float64"], ["crs", "Float64"], ["gram_noise", "String"], ["reward_lo", "Float64"], ["reward_hi", "Float64"],
  ["no_clip", "Bool"],
  ["sigma", "Float64"], ["lambda", "Float64"], ["beta_T", "Float64"], ["kappa", "Int64"],
  ["delivered_eps", "Float64"], ["delivered_delta", "Float64"], ["amplified", "Bool"],
  ["calibration_note", "String"], ["mu_gdp", "Float64"],
  ["non_pd", "Int64"], ["syncs", "Int64"], ["scalars", "Int64"], ["rounds", "Int64"],
  ["pseudo_regret", "Float64"], ["realised_regret", "Float64"],
  ["silo_pseudo_regret", "List<Float64>"], ["silo_realised_regret", "List<Float64>"],
  ["wall_seconds", "Float64"],
];

const CURVE_COLUMNS = [
  ["run_id", "String"], ["round", "Int64"], ["pseudo_regret", "Float64"], ["realised_regret", "Float64"],
  ["time_avg_pseudo_regret", "Float64"], ["time_avg_realised_regret", "Float64"],
  ["per_silo_pseudo_regret", "Float64"], ["per_silo_realised_regret", "Float64"], ["syncs", "Int64"],
];

const errors = [];
const fail = (msg) => errors.push(msg);

// typeName writes a polars type as the column lists do.
function typeName(t) {
  switch (t.variant) {
    case "List":
      return `List<${typeName(t.inner[0])}>`;
    case "Struct": {
      const names = t.fields.map((f) => f.name);
      const sorted = names.every((n, i) => i === 0 || names[i - 1] < n);
      if (sorted && t.fields.every((f) => f.dtype.variant === "Float64")) return "Struct<Float64...>";
      return `Struct<${t.fields.map((f) => `${f.name}:${typeName(f.dtype)}`).join(",")}>`;
    }
    default:
      return t.variant;
  }
}

function load(path, read) {
  try {
    return read(readFileSync(path));
  } catch (e) {
    fail(`${path}: polars cannot load it: ${e.message}`);
    return null;
  }
}

function checkColumns(path, df, want) {
  const got = df.columns.map((n) => `${n}:${typeName(df.schema[n])}`).join(", ");
  const w = want.map(([n, t]) => `${n}:${t}`).join(", ");
  if (got !== w) fail(`${path}: columns\n  got  ${got}\n  want ${w}`);
}

function sweep(dir, opts) {
  const runsPath = join(dir, "runs.arrow");
  const curvesPath = join(dir, "curves.arrow");
  const runs = load(runsPath, (b) => pl.readIPC(b));
  const curves = load(curvesPath, (b) => pl.readIPC(b));
  if (!runs || !curves) return;
  checkColumns(runsPath, runs, RUN_COLUMNS);
  checkColumns(curvesPath, curves, CURVE_COLUMNS);
  if (errors.length) return;
  if (opts.runs !== undefined && runs.height !== opts.runs) fail(`${runsPath}: ${runs.height} rows, want ${opts.runs}`);
  if (opts.curveRows !== undefined && curves.height !== opts.curveRows) fail(`${curvesPath}: ${curves.height} rows, want ${opts.curveRows}`);

  // The notebook's next line: one typed column per parameter.
  const keys = runs.schema.params.fields.map((f) => f.name);
  const flat = runs.unnest("params");
  for (const k of keys) {
    if (flat.schema[k]?.variant !== "Float64") fail(`${runsPath}: params.${k} unnests to ${flat.schema[k]}`);
  }
  // params is null only for a run recorded by layout 1.
  const params = runs.getColumn("params").toArray();
  const layout = runs.getColumn("format_version").toArray().map(Number);
  params.forEach((p, i) => {
    if (p === null && layout[i] >= 2) fail(`${runsPath}: row ${i}: params null in a run of layout ${layout[i]}`);
  });
  // The join a notebook makes: every curve row finds its run.
  const joined = curves.join(runs.select("run_id", "algorithm"), { on: "run_id", how: "inner" });
  if (joined.height !== curves.height) fail(`${curvesPath}: ${curves.height - joined.height} rows whose run is not in runs.arrow`);
  // The Parquet copies (runs.parquet, curves.parquet): one pl.readParquet
  // call each, the same columns, types and values as the Arrow tables (a
  // params struct without fields has no Parquet form and is left out).
  for (const [name, arrowDf] of [["runs.parquet", runs], ["curves.parquet", curves]]) {
    const path = join(dir, name);
    const df = load(path, (b) => pl.readParquet(b));
    if (!df) continue;
    let want = arrowDf;
    if (want.columns.includes("params") && want.schema.params.fields.length === 0) want = want.drop("params");
    const got = df.columns.map((n) => `${n}:${typeName(df.schema[n])}`).join(", ");
    const w = want.columns.map((n) => `${n}:${typeName(want.schema[n])}`).join(", ");
    if (got !== w) fail(`${path}: columns\n  got  ${got}\n  want (the Arrow table's) ${w}`);
    else if (!df.frameEqual(want, true)) fail(`${path}: values differ from the Arrow table's`);
  }
  if (!errors.length) {
    console.log(`polars-check: ok: ${runs.height} runs (params: ${keys.join(", ") || "none"}), ${curves.height} curve rows in ${dir}, runs.parquet and curves.parquet equal to them`);
  }
}

function dataset(dir) {
  const path = join(dir, "documents.parquet");
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  const df = load(path, (b) => pl.readParquet(b));
  if (!df) return;
  const features = df.columns.filter((n) => /^f[0-9]+$/.test(n));
  if (features.length !== manifest.features) fail(`${path}: ${features.length} feature columns, manifest ${manifest.features}`);
  // Types of datasets.md: qid int64, doc and label int32, part a string
  // (dictionary-encoded in the file: polars reads it as String), features
  // float64.
  const want = { qid: "Int64", doc: "Int32", label: "Int32", part: "String" };
  for (const f of features) want[f] = "Float64";
  for (const [c, v] of Object.entries(want)) {
    const t = df.schema[c];
    if (!t) fail(`${path}: no column ${c}`);
    else if (t.variant !== v) fail(`${path}: ${c} is ${typeName(t)}, want ${v}`);
  }
  for (const c of manifest.comment_columns ?? []) {
    if (!df.schema[c.name]) fail(`${path}: no comment column ${c.name}`);
  }
  for (const n of df.columns) {
    if (["Null", "Object", "Unknown"].includes(df.schema[n].variant)) fail(`${path}: column ${n} untyped (${df.schema[n]})`);
  }
  if (errors.length) return;
  if (df.height !== manifest.rows) fail(`${path}: ${df.height} rows, manifest ${manifest.rows}`);
  const queries = df.getColumn("qid").nUnique();
  if (queries !== manifest.queries) fail(`${path}: ${queries} distinct qids, manifest ${manifest.queries}`);
  const labels = df.getColumn("label").toArray().map(Number);
  const hist = manifest.label_histogram.map((_, l) => labels.filter((x) => x === l).length);
  if (hist.join("/") !== manifest.label_histogram.join("/")) fail(`${path}: label histogram ${hist.join("/")}, manifest ${manifest.label_histogram.join("/")}`);
  if (!errors.length) console.log(`polars-check: ok: ${df.height} rows, ${queries} queries, ${features.length} features in ${path}`);
}

function main() {
  const [mode, dir, ...rest] = process.argv.slice(2);
  const opts = {};
  for (let i = 0; i < rest.length; i += 2) {
    const v = Number(rest[i + 1]);
    if (!rest[i].startsWith("--") || !Number.isInteger(v) || v < 0) throw new Error(`bad option ${rest[i]} ${rest[i + 1]}`);
    opts[rest[i].slice(2).replace(/-(.)/g, (_, c) => c.toUpperCase())] = v;
  }
  if (mode === "sweep" && dir) sweep(dir, opts);
  else if (mode === "dataset" && dir && rest.length === 0) dataset(dir);
  else throw new Error("usage: node check.mjs sweep DIR [--runs N] [--curve-rows N] | dataset DIR");
}

try {
  main();
} catch (e) {
  fail(e.message);
}
if (errors.length) {
  for (const e of errors) console.error(`polars-check: ${e}`);
  process.exit(1);
}
