#!/usr/bin/env node
// Independent reader of fedbandit sweep outputs (CI): opens DIR/runs.arrow
// and DIR/curves.arrow with the Apache Arrow JavaScript implementation (not
// the Go code that wrote them) and checks the schema, the row counts and
// the invariants documented in outputs/README.md. Exits 1 on any mismatch.
//
//   node check.mjs DIR [--runs N] [--done N] [--failed N] [--curve-rows N]
//
// The expected columns are written out here on purpose: a schema change
// in Go that is not mirrored here (and in outputs/README.md) fails CI.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tableFromIPC } from "apache-arrow";

const FORMAT_VERSION = "2";
const TRUST = new Set(["none", "central", "local", "shuffle", "distributed"]);

const RUN_COLUMNS = [
  ["run_id", "Utf8"], ["status", "Utf8"], ["error", "Utf8"], ["format_version", "Int64"],
  ["sweep", "Utf8"], ["group", "Utf8"], ["group_id", "Utf8"],
  ["instance", "Utf8"], ["instance_kind", "Utf8"], ["instance_hash", "Utf8"], ["instance_name", "Utf8"],
  ["d", "Int64"], ["features", "Utf8"], ["reward_model", "Utf8"], ["noise_var", "Float64"],
  ["partition_strategy", "Utf8"], ["partition_seed", "Uint64"], ["k", "Int64"], ["fixed_basis", "Bool"],
  ["instance_seed", "Uint64"], ["shared_contexts", "Bool"], ["context_gen", "Utf8"],
  ["family", "Utf8"], ["algorithm", "Utf8"], ["trust", "Utf8"], ["params", "Struct<float64...>"], ["protocol", "Utf8"], ["lazy", "Bool"], ["preset", "Utf8"],
  ["eps", "Float64"], ["delta", "Float64"], ["relation", "Utf8"],
  ["M", "Int64"], ["T", "Int64"], ["B", "Int64"], ["alpha", "Float64"], ["every", "Int64"], ["seed", "Uint64"],
  ["R", "Float64"], ["crs", "Float64"], ["gram_noise", "Utf8"], ["reward_lo", "Float64"], ["reward_hi", "Float64"],
  ["no_clip", "Bool"],
  ["sigma", "Float64"], ["lambda", "Float64"], ["beta_T", "Float64"], ["kappa", "Int64"],
  ["delivered_eps", "Float64"], ["delivered_delta", "Float64"], ["amplified", "Bool"],
  ["calibration_note", "Utf8"], ["mu_gdp", "Float64"],
  ["non_pd", "Int64"], ["syncs", "Int64"], ["scalars", "Int64"], ["rounds", "Int64"],
  ["pseudo_regret", "Float64"], ["realised_regret", "Float64"],
  ["silo_pseudo_regret", "List<Float64>"], ["silo_realised_regret", "List<Float64>"],
  ["wall_seconds", "Float64"],
];

const CURVE_COLUMNS = [
  ["run_id", "Utf8"], ["round", "Int64"], ["pseudo_regret", "Float64"], ["realised_regret", "Float64"],
  ["time_avg_pseudo_regret", "Float64"], ["time_avg_realised_regret", "Float64"],
  ["per_silo_pseudo_regret", "Float64"], ["per_silo_realised_regret", "Float64"], ["syncs", "Int64"],
];

const errors = [];
const fail = (msg) => errors.push(msg);

function parseArgs(argv) {
  const opts = { dir: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 0) throw new Error(`${a}: want a non-negative integer, got ${argv[i]}`);
      opts[a.slice(2).replace(/-(.)/g, (_, c) => c.toUpperCase())] = v;
    } else if (opts.dir === null) {
      opts.dir = a;
    } else {
      throw new Error(`unexpected argument ${a}`);
    }
  }
  if (opts.dir === null) throw new Error("usage: node check.mjs DIR [--runs N] [--done N] [--failed N] [--curve-rows N]");
  return opts;
}

function load(path) {
  try {
    return tableFromIPC(readFileSync(path));
  } catch (e) {
    fail(`${path}: cannot read as an Arrow IPC file: ${e.message}`);
    return null;
  }
}

// typeName is a column's type as RUN_COLUMNS writes it: the params struct
// (one Float64 field per parameter key, in key order) as
// "Struct<float64...>", anything else as Arrow JS prints it.
function typeName(f) {
  if (f.name !== "params") return String(f.type);
  const kids = f.type.children ?? [];
  const names = kids.map((c) => c.name);
  const sorted = names.every((n, i) => i === 0 || names[i - 1] < n);
  return kids.every((c) => String(c.type) === "Float64") && sorted ? "Struct<float64...>" : String(f.type);
}

function checkSchema(path, table, want) {
  const got = table.schema.fields.map((f) => [f.name, typeName(f)]);
  const g = got.map(([n, t]) => `${n}:${t}`).join(", ");
  const w = want.map(([n, t]) => `${n}:${t}`).join(", ");
  if (g !== w) fail(`${path}: columns\n  got  ${g}\n  want ${w}`);
  const v = table.schema.metadata.get("fedbandit.format_version");
  if (v !== FORMAT_VERSION) fail(`${path}: format version ${v}, want ${FORMAT_VERSION}`);
}

const col = (table, name) => [...table.getChild(name)];
const num = (x) => (typeof x === "bigint" ? Number(x) : x);
const close = (a, b) => a === b || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const runsPath = join(opts.dir, "runs.arrow");
  const curvesPath = join(opts.dir, "curves.arrow");
  const runs = load(runsPath);
  const curves = load(curvesPath);
  if (!runs || !curves) return;
  checkSchema(runsPath, runs, RUN_COLUMNS);
  checkSchema(curvesPath, curves, CURVE_COLUMNS);
  if (errors.length) return;

  // runs.arrow: ids unique, sorted, 64 hex; counts; per-run invariants.
  const ids = col(runs, "run_id");
  const status = col(runs, "status");
  const M = col(runs, "M").map(num);
  const T = col(runs, "T").map(num);
  const rounds = col(runs, "rounds").map(num);
  const siloP = col(runs, "silo_pseudo_regret");
  const pseudo = col(runs, "pseudo_regret");
  const errs = col(runs, "error");
  const family = col(runs, "family");
  const trust = col(runs, "trust");
  const params = col(runs, "params");
  const layout = col(runs, "format_version").map(num);
  const byId = new Map();
  ids.forEach((id, i) => {
    if (!/^[0-9a-f]{64}$/.test(id)) fail(`${runsPath}: row ${i}: bad run id ${id}`);
    if (i > 0 && !(ids[i - 1] < id)) fail(`${runsPath}: rows not sorted by unique run_id at row ${i}`);
    byId.set(id, i);
    if (family[i] === "") fail(`${runsPath}: run ${id}: empty family`);
    if (!TRUST.has(trust[i])) fail(`${runsPath}: run ${id}: trust ${trust[i]}`);
    // params is null only for a run recorded by layout 1 (parameters not recorded).
    if (params[i] === null && layout[i] >= 2) fail(`${runsPath}: run ${id}: params null in layout ${layout[i]}`);
    if (status[i] === "done") {
      if (rounds[i] !== T[i]) fail(`${runsPath}: run ${id}: rounds ${rounds[i]} != T ${T[i]}`);
      const s = [...siloP[i]];
      if (s.length !== M[i]) fail(`${runsPath}: run ${id}: ${s.length} silo totals, M = ${M[i]}`);
      const sum = s.reduce((a, b) => a + b, 0);
      if (Math.abs(sum - pseudo[i]) > 1e-9 * Math.max(1, Math.abs(sum))) fail(`${runsPath}: run ${id}: silo totals ${sum} != pseudo_regret ${pseudo[i]}`);
      if (errs[i] !== "") fail(`${runsPath}: done run ${id} has an error`);
    } else if (status[i] === "failed") {
      if (errs[i] === "") fail(`${runsPath}: failed run ${id} has no error message`);
    } else {
      fail(`${runsPath}: run ${id}: status ${status[i]}`);
    }
  });
  const done = status.filter((s) => s === "done").length;
  const failed = status.length - done;
  if (opts.runs !== undefined && runs.numRows !== opts.runs) fail(`${runsPath}: ${runs.numRows} rows, want ${opts.runs}`);
  if (opts.done !== undefined && done !== opts.done) fail(`${runsPath}: ${done} done runs, want ${opts.done}`);
  if (opts.failed !== undefined && failed !== opts.failed) fail(`${runsPath}: ${failed} failed runs, want ${opts.failed}`);

  // curves.arrow: sorted by (run_id, round), derived columns, last round = T.
  const cid = col(curves, "run_id");
  const cr = col(curves, "round").map(num);
  const cp = col(curves, "pseudo_regret");
  const cq = col(curves, "realised_regret");
  const tap = col(curves, "time_avg_pseudo_regret");
  const taq = col(curves, "time_avg_realised_regret");
  const psp = col(curves, "per_silo_pseudo_regret");
  const psq = col(curves, "per_silo_realised_regret");
  const lastRound = new Map();
  for (let k = 0; k < curves.numRows; k++) {
    const i = byId.get(cid[k]);
    if (i === undefined) { fail(`${curvesPath}: row ${k}: run ${cid[k]} not in runs.arrow`); continue; }
    if (status[i] !== "done") fail(`${curvesPath}: row ${k}: curve of a ${status[i]} run`);
    if (k > 0 && (cid[k - 1] > cid[k] || (cid[k - 1] === cid[k] && cr[k - 1] >= cr[k]))) fail(`${curvesPath}: rows not sorted by (run_id, round) at row ${k}`);
    const t = cr[k], m = M[i];
    if (!close(tap[k], cp[k] / t) || !close(taq[k], cq[k] / t)) fail(`${curvesPath}: row ${k}: time averages do not match regret / round`);
    if (!close(psp[k], cp[k] / (t * m)) || !close(psq[k], cq[k] / (t * m))) fail(`${curvesPath}: row ${k}: per-silo averages do not match regret / (round M)`);
    lastRound.set(cid[k], t);
    if (errors.length > 20) return;
  }
  ids.forEach((id, i) => {
    if (status[i] === "done" && lastRound.get(id) !== T[i]) fail(`${curvesPath}: run ${id}: curve ends at round ${lastRound.get(id)}, T = ${T[i]}`);
  });
  if (opts.curveRows !== undefined && curves.numRows !== opts.curveRows) fail(`${curvesPath}: ${curves.numRows} rows, want ${opts.curveRows}`);
  if (!errors.length) {
    console.log(`arrow-check: ok: ${runs.numRows} runs (${done} done, ${failed} failed), ${curves.numRows} curve rows in ${opts.dir}`);
  }
}

try {
  main();
} catch (e) {
  fail(e.message);
}
if (errors.length) {
  for (const e of errors) console.error(`arrow-check: ${e}`);
  process.exit(1);
}
