#!/usr/bin/env node
// Independent reader of fedbandit outputs with polars (CI): loads each table
// in ONE call, as a notebook does (pl.read_ipc / pl.read_parquet in Python;
// the Rust polars engine here, through nodejs-polars), and checks that every
// column arrives with its documented type, so that a notebook needs no
// casting or decoding, on a directory of any families. Exits 1 on any
// mismatch.
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
// path. The expected columns (of layout 3) are written out here on
// purpose: a schema change in Go that is not mirrored here fails CI. It
// checks the rules a notebook relies on, per family: certified never
// null, the columns that do not apply to a family null, no unsigned
// integer, no infinite value in curves.arrow. The layout in the schema
// metadata, which nodejs-polars does not expose, is checked by
// tools/arrow-check.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import pl from "nodejs-polars";

// Polars types of runs.arrow, in file order; the param_<key> Float64
// columns follow, in key order.
const RUN_COLUMNS = [
  ["run_id", "String"], ["status", "String"], ["error", "String"], ["format_version", "Int64"],
  ["sweep", "String"], ["group_label", "String"], ["group_id", "String"],
  ["instance", "String"], ["instance_kind", "String"], ["instance_hash", "String"], ["instance_name", "String"],
  ["instance_seed", "Int64"], ["arms", "Int64"], ["qid", "Int64"], ["d", "Int64"], ["noise_var", "Float64"],
  ["features", "String"], ["reward_model", "String"], ["partition_strategy", "String"], ["partition_seed", "Int64"],
  ["fixed_basis", "Bool"], ["shared_contexts", "Bool"], ["context_gen", "String"],
  ["family", "String"], ["algorithm", "String"], ["trust", "String"],
  ["eps", "Float64"], ["delta", "Float64"], ["M", "Int64"], ["B", "Int64"], ["horizon", "Int64"], ["checkpoint_every", "Int64"], ["seed", "Int64"],
  ["protocol", "String"], ["lazy_learner", "Bool"], ["preset", "String"], ["alpha", "Float64"], ["R", "Float64"], ["beta_crs", "Float64"],
  ["gram_noise", "String"], ["reward_lo", "Float64"], ["reward_hi", "Float64"], ["no_clip", "Bool"],
  ["ridge_lambda", "Float64"], ["beta_T", "Float64"], ["kappa", "Int64"],
  ["sigma", "Float64"], ["mu_gdp", "Float64"], ["amplified", "Bool"],
  ["non_pd", "Int64"], ["silo_pseudo_regret", "List<Float64>"], ["silo_realised_regret", "List<Float64>"],
  ["certified", "Bool"], ["target_eps", "Float64"], ["target_delta", "Float64"],
  ["delivered_eps", "Float64"], ["delivered_delta", "Float64"],
  ["relation", "String"], ["relation_note", "String"], ["mechanism", "String"], ["sampler", "String"], ["calibration_note", "String"],
  ["final_syncs", "Int64"], ["scalars", "Int64"], ["rounds", "Int64"],
  ["final_pseudo_regret", "Float64"], ["final_realised_regret", "Float64"], ["hindsight_note", "String"], ["wall_seconds", "Float64"],
];

// curves.arrow; the curve metrics families produce (Float64) follow.
const CURVE_COLUMNS = [
  ["run_id", "String"], ["t", "Int64"], ["pseudo_regret", "Float64"], ["realised_regret", "Float64"],
  ["syncs", "Int64"], ["time_avg_pseudo_regret", "Float64"], ["time_avg_realised_regret", "Float64"],
  ["per_silo_pseudo_regret", "Float64"], ["per_silo_realised_regret", "Float64"],
];

// Columns that must be null in every row of a family (outputs/README.md,
// "Applies to"): the linear family's settings for mab and bco, the silos
// and batch of mab, the dimension and feature set of mab, the arms of bco
// (the feature set applies to bco-ltr).
const LINEAR_ONLY = ["noise_var", "protocol", "lazy_learner", "preset", "alpha", "R", "beta_crs", "gram_noise", "reward_lo",
  "reward_hi", "no_clip", "ridge_lambda", "beta_T", "kappa", "sigma", "mu_gdp", "amplified", "non_pd",
  "silo_pseudo_regret", "silo_realised_regret", "reward_model", "partition_strategy", "partition_seed",
  "fixed_basis", "shared_contexts", "context_gen"];
const NULL_IN = {
  mab: [...LINEAR_ONLY, "features", "M", "B", "d", "hindsight_note"], // qid: mab-ltr's
  bco: [...LINEAR_ONLY, "arms", "qid"],
};
// Columns null in every non-private run, whatever its family.
const NULL_IF_NOT_PRIVATE = ["eps", "delta", "target_eps", "target_delta", "delivered_eps", "delivered_delta", "relation", "relation_note",
  "mechanism", "sampler", "calibration_note"];

const errors = [];
const fail = (msg) => errors.push(msg);

// typeName writes a polars type as the column lists do.
function typeName(t) {
  switch (t.variant) {
    case "List":
      return `List<${typeName(t.inner[0])}>`;
    case "Struct":
      return `Struct<${t.fields.map((f) => `${f.name}:${typeName(f.dtype)}`).join(",")}>`;
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

// checkColumns compares the leading columns with want and the rest with
// extra (a name test), each Float64; no column is unsigned. A frame's
// schema getter rebuilds the whole schema in the native binding on every
// access (7 s of CPU for the ~80 columns of runs.arrow when read per
// column), so each function reads it once.
function checkColumns(path, df, want, extra) {
  const schema = df.schema;
  const head = df.columns.slice(0, want.length);
  const got = head.map((n) => `${n}:${typeName(schema[n])}`).join(", ");
  const w = want.map(([n, t]) => `${n}:${t}`).join(", ");
  if (got !== w) fail(`${path}: columns\n  got  ${got}\n  want ${w}`);
  for (const n of df.columns.slice(want.length)) {
    if (!extra(n) || schema[n].variant !== "Float64") fail(`${path}: unexpected column ${n}:${typeName(schema[n])}`);
  }
  for (const n of df.columns) {
    if (/^UInt/.test(schema[n].variant)) fail(`${path}: column ${n} is unsigned (${typeName(schema[n])})`);
  }
}

function sweep(dir, opts) {
  const runsPath = join(dir, "runs.arrow");
  const curvesPath = join(dir, "curves.arrow");
  const runs = load(runsPath, (b) => pl.readIPC(b));
  const curves = load(curvesPath, (b) => pl.readIPC(b));
  if (!runs || !curves) return;
  checkColumns(runsPath, runs, RUN_COLUMNS, (n) => /^param_[A-Za-z0-9_]+$/.test(n));
  checkColumns(curvesPath, curves, CURVE_COLUMNS, (n) => /^[a-z][a-z0-9_]*$/.test(n));
  if (errors.length) return;
  if (opts.runs !== undefined && runs.height !== opts.runs) fail(`${runsPath}: ${runs.height} rows, want ${opts.runs}`);
  if (opts.curveRows !== undefined && curves.height !== opts.curveRows) fail(`${curvesPath}: ${curves.height} rows, want ${opts.curveRows}`);

  // Every struct column unnests (there are none in layout 4: the check
  // stands for any a later layout adds), and the frame's own methods
  // are not shadowed by a column (nodejs-polars exposes columns as
  // properties: a column "lazy" broke filter and groupBy).
  const runsSchema = runs.schema;
  for (const n of runs.columns) {
    if (runsSchema[n].variant === "Struct") {
      try { runs.unnest(n); } catch (e) { fail(`${runsPath}: unnest(${n}): ${e.message}`); }
    }
  }
  const lazyCount = runs.lazy().filter(pl.col("status").eq(pl.lit("done"))).collectSync().height;
  if (lazyCount > runs.height) fail(`${runsPath}: lazy filter`);

  // certified: boolean, never null; false for every non-private run.
  if (runs.getColumn("certified").nullCount() !== 0) fail(`${runsPath}: certified has nulls`);
  const notPrivate = runs.filter(pl.col("trust").eq(pl.lit("none")));
  if (notPrivate.filter(pl.col("certified")).height !== 0) fail(`${runsPath}: a non-private run is certified`);
  for (const c of NULL_IF_NOT_PRIVATE) {
    const n = notPrivate.getColumn(c).nullCount();
    if (n !== notPrivate.height) fail(`${runsPath}: ${c}: ${notPrivate.height - n} non-private runs with a value`);
  }
  // Per family: the columns that do not apply are null in every row.
  const families = {};
  for (const f of runs.getColumn("family").unique().toArray()) {
    const rows = runs.filter(pl.col("family").eq(pl.lit(f)));
    families[f] = rows.height;
    for (const c of NULL_IN[f] ?? []) {
      const n = rows.getColumn(c).nullCount();
      if (n !== rows.height) fail(`${runsPath}: ${c}: ${rows.height - n} ${f} runs with a value where it does not apply`);
    }
  }
  // curves.arrow: no infinite or NaN value; per-silo null where M is.
  const curvesSchema = curves.schema;
  for (const n of curves.columns) {
    if (curvesSchema[n].variant !== "Float64") continue;
    const bad = curves.filter(pl.col(n).isInfinite().or(pl.col(n).isNan())).height;
    if (bad) fail(`${curvesPath}: ${n}: ${bad} infinite or NaN values`);
  }
  // The joins a notebook makes: every curve row finds its run; the
  // per-silo averages are null exactly where the run has no silos.
  const joined = curves.join(runs.select("run_id", "M", "family"), { on: "run_id", how: "inner" });
  if (joined.height !== curves.height) fail(`${curvesPath}: ${curves.height - joined.height} rows whose run is not in runs.arrow`);
  const silos = joined.filter(pl.col("M").isNull().neq(pl.col("per_silo_pseudo_regret").isNull())).height;
  if (silos) fail(`${curvesPath}: ${silos} rows whose per-silo average is null where M is not, or the reverse`);
  // run_id is the only column the two tables share, so a join of the
  // whole frames adds no "_right" column.
  const whole = curves.join(runs, { on: "run_id", how: "inner" });
  const suffixed = whole.columns.filter((n) => n.endsWith("_right"));
  if (suffixed.length) fail(`${curvesPath}: joined with runs.arrow on run_id gives ${suffixed.join(", ")}`);
  if (whole.width !== curves.width + runs.width - 1) fail(`${curvesPath}: join on run_id has ${whole.width} columns, want ${curves.width + runs.width - 1}`);
  const mean = whole.groupBy(["group_id", "t"]).agg(pl.col("time_avg_pseudo_regret").mean());
  if (mean.height === 0 && curves.height > 0) fail(`${curvesPath}: group_by(group_id, t) is empty`);
  // certified means delivered <= target in both (core.Privacy.Check).
  const over = runs.filter(pl.col("certified").and(pl.col("delivered_eps").gt(pl.col("target_eps").mul(1 + 1e-9))
    .or(pl.col("delivered_delta").gt(pl.col("target_delta").mul(1 + 1e-9))))).height;
  if (over) fail(`${runsPath}: ${over} certified runs deliver more than their target`);
  // The Parquet copies (runs.parquet, curves.parquet): one pl.readParquet
  // call each, the same columns, types and values as the Arrow tables.
  for (const [name, want] of [["runs.parquet", runs], ["curves.parquet", curves]]) {
    const path = join(dir, name);
    const df = load(path, (b) => pl.readParquet(b));
    if (!df) continue;
    const schema = df.schema;
    const wantSchema = want.schema;
    const got = df.columns.map((n) => `${n}:${typeName(schema[n])}`).join(", ");
    const w = want.columns.map((n) => `${n}:${typeName(wantSchema[n])}`).join(", ");
    if (got !== w) fail(`${path}: columns\n  got  ${got}\n  want (the Arrow table's) ${w}`);
    else if (!df.frameEqual(want, true)) fail(`${path}: values differ from the Arrow table's`);
  }
  if (!errors.length) {
    const fams = Object.entries(families).map(([f, n]) => `${f} ${n}`).join(", ");
    const params = runs.columns.filter((n) => n.startsWith("param_")).join(", ") || "none";
    console.log(`polars-check: ok: ${runs.height} runs (${fams}; ${params}), ${curves.height} curve rows in ${dir}, runs.parquet and curves.parquet equal to them`);
  }
}

function dataset(dir) {
  const path = join(dir, "documents.parquet");
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  const df = load(path, (b) => pl.readParquet(b));
  if (!df) return;
  const schema = df.schema;
  const features = df.columns.filter((n) => /^f[0-9]+$/.test(n));
  if (features.length !== manifest.features) fail(`${path}: ${features.length} feature columns, manifest ${manifest.features}`);
  // Types of datasets.md: qid int64, doc and label int32, part a string
  // (dictionary-encoded in the file: polars reads it as String), features
  // float64.
  const want = { qid: "Int64", doc: "Int32", label: "Int32", part: "String" };
  for (const f of features) want[f] = "Float64";
  for (const [c, v] of Object.entries(want)) {
    const t = schema[c];
    if (!t) fail(`${path}: no column ${c}`);
    else if (t.variant !== v) fail(`${path}: ${c} is ${typeName(t)}, want ${v}`);
  }
  for (const c of manifest.comment_columns ?? []) {
    if (!schema[c.name]) fail(`${path}: no comment column ${c.name}`);
  }
  for (const n of df.columns) {
    if (["Null", "Object", "Unknown"].includes(schema[n].variant)) fail(`${path}: column ${n} untyped (${schema[n]})`);
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
