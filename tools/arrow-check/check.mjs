#!/usr/bin/env node
// Independent reader of fedbandit sweep outputs (CI): opens DIR/runs.arrow
// and DIR/curves.arrow with the Apache Arrow JavaScript implementation (not
// the Go code that wrote them) and checks the schema, the row counts and
// the invariants documented in outputs/README.md, per family: a column
// that does not apply to a row's family, instance kind, privacy or status
// is null, and one that applies is not; certified is never null; no
// unsigned integer; no infinite or NaN value in curves.arrow. Exits 1 on
// any mismatch.
//
//   node check.mjs DIR [--runs N] [--done N] [--failed N] [--curve-rows N]
//
// The expected columns are written out here on purpose: a schema change
// in Go that is not mirrored here (and in outputs/README.md) fails CI.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tableFromIPC } from "apache-arrow";

const FORMAT_VERSION = "4";
const TRUST = new Set(["none", "central", "local", "shuffle", "distributed"]);
const FAMILIES = new Set(["linear", "mab", "bco"]);

const RUN_COLUMNS = [
  ["run_id", "Utf8"], ["status", "Utf8"], ["error", "Utf8"], ["format_version", "Int64"],
  ["sweep", "Utf8"], ["group_label", "Utf8"], ["group_id", "Utf8"],
  ["instance", "Utf8"], ["instance_kind", "Utf8"], ["instance_hash", "Utf8"], ["instance_name", "Utf8"],
  ["instance_seed", "Int64"], ["arms", "Int64"], ["qid", "Int64"], ["d", "Int64"], ["noise_var", "Float64"],
  ["features", "Utf8"], ["reward_model", "Utf8"], ["partition_strategy", "Utf8"], ["partition_seed", "Int64"],
  ["fixed_basis", "Bool"], ["shared_contexts", "Bool"], ["context_gen", "Utf8"],
  ["family", "Utf8"], ["algorithm", "Utf8"], ["trust", "Utf8"],
  ["eps", "Float64"], ["delta", "Float64"], ["M", "Int64"], ["B", "Int64"], ["horizon", "Int64"], ["checkpoint_every", "Int64"], ["seed", "Int64"],
  ["protocol", "Utf8"], ["lazy_learner", "Bool"], ["preset", "Utf8"], ["alpha", "Float64"], ["R", "Float64"], ["beta_crs", "Float64"],
  ["gram_noise", "Utf8"], ["reward_lo", "Float64"], ["reward_hi", "Float64"], ["no_clip", "Bool"],
  ["ridge_lambda", "Float64"], ["beta_T", "Float64"], ["kappa", "Int64"],
  ["sigma", "Float64"], ["mu_gdp", "Float64"], ["amplified", "Bool"],
  ["non_pd", "Int64"], ["silo_pseudo_regret", "List<Float64>"], ["silo_realised_regret", "List<Float64>"],
  ["certified", "Bool"], ["target_eps", "Float64"], ["target_delta", "Float64"],
  ["delivered_eps", "Float64"], ["delivered_delta", "Float64"],
  ["relation", "Utf8"], ["relation_note", "Utf8"], ["mechanism", "Utf8"], ["sampler", "Utf8"], ["calibration_note", "Utf8"],
  ["final_syncs", "Int64"], ["scalars", "Int64"], ["rounds", "Int64"],
  ["final_pseudo_regret", "Float64"], ["final_realised_regret", "Float64"], ["hindsight_note", "Utf8"], ["wall_seconds", "Float64"],
];
// After RUN_COLUMNS: the columns instance kinds declare of their own
// (registry.Kind.NewColumns; Int64, Float64, Utf8 or Bool, in name order,
// their applies_to "instance kinds " and the kinds), then param_<key>
// Float64 columns, in key order.
const KIND_TYPES = new Set(["Int64", "Float64", "Utf8", "Bool"]);
// The shipped kinds, which APPLIES below describes.
const KNOWN_KINDS = new Set(["synthetic", "ltr", "ltr-click", "dubey", "mab", "mab-ltr", "bco", "bco-ltr"]);
const KINDS_PREFIX = "instance kinds ";

const CURVE_COLUMNS = [
  ["run_id", "Utf8"], ["t", "Int64"], ["pseudo_regret", "Float64"], ["realised_regret", "Float64"],
  ["syncs", "Int64"], ["time_avg_pseudo_regret", "Float64"], ["time_avg_realised_regret", "Float64"],
  ["per_silo_pseudo_regret", "Float64"], ["per_silo_realised_regret", "Float64"],
];
// After CURVE_COLUMNS: the curve metrics families produce (outputs.Metrics),
// Float64 each, null where a run does not produce it.

// The columns no row leaves null: non-nullable fields; every other field
// is nullable (outputs/README.md, "Self-describing tables").
const REQUIRED = new Set(["run_id", "status", "format_version", "group_label", "group_id", "instance", "instance_kind",
  "instance_hash", "instance_name", "family", "algorithm", "trust", "horizon", "checkpoint_every", "seed", "certified",
  "t", "pseudo_regret", "realised_regret", "syncs", "time_avg_pseudo_regret", "time_avg_realised_regret"]);
// Every field's metadata: its unit, the rows it applies to, its meaning.
const FIELD_KEYS = ["fedbandit.unit", "fedbandit.applies_to", "fedbandit.meaning"];

// Names a notebook cannot use as columns: SQL reserved words and
// DataFrame attributes (pandas, polars, nodejs-polars); outputs'
// TestColumnNamesSafe holds every name against the full lists.
const FORBIDDEN = new Set(["group", "lambda", "T", "round", "lazy", "params", "query", "every"]);
// Relation and mechanism are tokens (core.Relations, core.Mechanisms).
const RELATIONS = new Set(["add-remove", "replace-one"]);
const MECHANISM = /^[a-z0-9]+(-[a-z0-9]+)*$/;

// APPLIES says, per column, when a row must hold a value (true), must be
// null (false), or may be either (undefined): outputs/README.md's
// "Applies to". r is the row's family, kind, private, done.
const linear = (r) => r.family === "linear";
const APPLIES = {
  error: (r) => !r.done,
  instance_seed: (r) => (r.kind === "synthetic" || r.kind === "dubey" || r.kind === "bco" ? true : r.kind === "mab" || r.kind === "bco-ltr" ? undefined : false),
  qid: (r) => r.kind === "mab-ltr",
  arms: (r) => r.kind === "synthetic" || r.kind === "dubey" || r.kind === "mab" || r.kind === "mab-ltr",
  d: (r) => r.family === "linear" || r.family === "bco",
  noise_var: (r) => linear(r) && r.kind !== "dubey",
  features: (r) => r.kind === "ltr" || r.kind === "ltr-click" || r.kind === "bco-ltr",
  reward_model: (r) => r.kind === "ltr" || r.kind === "ltr-click",
  partition_strategy: (r) => r.kind === "ltr" || r.kind === "ltr-click",
  partition_seed: (r) => r.kind === "ltr" || r.kind === "ltr-click",
  fixed_basis: (r) => r.kind === "synthetic",
  shared_contexts: (r) => r.kind === "synthetic",
  context_gen: (r) => (r.kind === "synthetic" ? undefined : false),
  eps: (r) => (r.private ? true : false),
  delta: (r) => (r.private ? undefined : false),
  M: (r) => r.family !== "mab",
  B: (r) => r.family !== "mab",
  protocol: linear, lazy_learner: linear, preset: linear, alpha: linear, R: linear, beta_crs: linear,
  gram_noise: linear, reward_lo: linear, reward_hi: linear, no_clip: linear,
  ridge_lambda: linear, beta_T: linear, kappa: linear,
  sigma: (r) => linear(r) && r.private && r.done, mu_gdp: (r) => linear(r) && r.private && r.done, amplified: (r) => linear(r) && r.private && r.done,
  non_pd: (r) => linear(r) && r.done,
  silo_pseudo_regret: (r) => linear(r) && r.done, silo_realised_regret: (r) => linear(r) && r.done,
  certified: () => true,
  target_eps: (r) => (r.private ? (r.done ? true : undefined) : false), target_delta: (r) => (r.private ? (r.done ? true : undefined) : false),
  delivered_eps: (r) => (r.private ? (r.certified ? true : undefined) : false),
  delivered_delta: (r) => (r.private ? (r.certified ? true : undefined) : false),
  relation: (r) => (r.private ? undefined : false),
  relation_note: (r) => (r.private && r.family !== "linear" ? undefined : false),
  mechanism: (r) => (r.private ? undefined : false),
  sampler: (r) => (r.private ? undefined : false),
  calibration_note: (r) => (r.private ? undefined : false),
  final_syncs: (r) => r.done, scalars: (r) => r.done, rounds: (r) => r.done,
  final_pseudo_regret: (r) => r.done, final_realised_regret: (r) => r.done, wall_seconds: (r) => r.done,
  hindsight_note: (r) => (r.kind === "bco-ltr" || r.kind === "ltr" ? undefined : false),
};
for (const c of ["run_id", "status", "format_version", "sweep", "group_label", "group_id", "instance", "instance_kind",
  "instance_hash", "instance_name", "family", "algorithm", "trust", "horizon", "checkpoint_every", "seed"]) APPLIES[c] = () => true;

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

// checkSchema compares the columns with want, then the extra columns
// (after want) with extra: a name test; every extra column is Float64.
// With kinds, the extra columns may start with the kinds' own columns
// (KIND_TYPES, in name order, applied to instance kinds).
function checkSchema(path, table, want, extra, what, kinds) {
  const fields = table.schema.fields;
  const got = fields.slice(0, want.length).map((f) => `${f.name}:${f.type}`).join(", ");
  const w = want.map(([n, t]) => `${n}:${t}`).join(", ");
  if (got !== w) fail(`${path}: columns\n  got  ${got}\n  want ${w}`);
  let rest = fields.slice(want.length);
  if (kinds) {
    const own = rest.filter((f) => !extra(f.name) && (f.metadata.get("fedbandit.applies_to") ?? "").startsWith(KINDS_PREFIX));
    own.forEach((f, i) => {
      if (rest[i] !== f) fail(`${path}: kind column ${f.name} after a ${what} column`);
      if (!KIND_TYPES.has(String(f.type))) fail(`${path}: kind column ${f.name}: type ${f.type}`);
      if (i > 0 && !(own[i - 1].name < f.name)) fail(`${path}: kind columns not in name order at ${f.name}`);
    });
    rest = rest.slice(own.length);
  }
  rest.forEach((f, i) => {
    if (!extra(f.name) || String(f.type) !== "Float64") fail(`${path}: column ${f.name}:${f.type}: not a Float64 ${what} column`);
    if (i > 0 && what === "param_<key>" && !(rest[i - 1].name < f.name)) fail(`${path}: ${what} columns not in key order at ${f.name}`);
  });
  for (const f of fields) {
    if (/^Uint/.test(String(f.type))) fail(`${path}: column ${f.name} is unsigned (${f.type})`);
    if (FORBIDDEN.has(f.name)) fail(`${path}: column ${f.name} has a forbidden name`);
    if (String(f.type).startsWith("Struct")) fail(`${path}: column ${f.name} is a struct`);
  }
  const md = table.schema.metadata;
  const v = md.get("fedbandit.format_version");
  if (v !== FORMAT_VERSION) fail(`${path}: format version ${v}, want ${FORMAT_VERSION}`);
  // The build: a version, a 40-hex revision or "unknown" (never a guess),
  // whether the checkout was modified ("unknown" exactly without a
  // revision), the simulator semantics (digits, or "unknown" when the
  // writer did not link the registry).
  const rev = md.get("fedbandit.vcs_revision"), mod = md.get("fedbandit.vcs_modified");
  const sem = md.get("fedbandit.semantics_version");
  if (!md.get("fedbandit.version")) fail(`${path}: no fedbandit.version`);
  if (!(rev === "unknown" || /^[0-9a-f]{40}$/.test(rev ?? ""))) fail(`${path}: fedbandit.vcs_revision ${rev}`);
  if ((rev === "unknown") !== (mod === "unknown") || !["true", "false", "unknown"].includes(mod)) fail(`${path}: fedbandit.vcs_modified ${mod} with revision ${rev}`);
  if (!(sem === "unknown" || /^[0-9]+$/.test(sem ?? ""))) fail(`${path}: fedbandit.semantics_version ${sem}`);
  for (const f of fields) {
    if (f.nullable === REQUIRED.has(f.name)) fail(`${path}: column ${f.name}: nullable ${f.nullable}, want ${!REQUIRED.has(f.name)}`);
    for (const k of FIELD_KEYS) if (!f.metadata.has(k)) fail(`${path}: column ${f.name}: no field metadata ${k}`);
    // A parameter's meaning comes from the registry, which a writer that
    // records its semantics version linked.
    const param = f.name.startsWith("param_");
    if ((!param || sem !== "unknown") && !f.metadata.get("fedbandit.meaning")) fail(`${path}: column ${f.name}: no meaning`);
    if ((!param || sem !== "unknown") && !f.metadata.get("fedbandit.applies_to")) fail(`${path}: column ${f.name}: applies to nothing`);
  }
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
  checkSchema(runsPath, runs, RUN_COLUMNS, (n) => /^param_[A-Za-z0-9_]+$/.test(n), "param_<key>", true);
  checkSchema(curvesPath, curves, CURVE_COLUMNS, (n) => /^[a-z][a-z0-9_]*$/.test(n), "curve metric");
  if (errors.length) return;

  // runs.arrow: ids unique, sorted, 64 hex; counts; per-family nulls.
  const ids = col(runs, "run_id");
  const status = col(runs, "status");
  const family = col(runs, "family");
  const kind = col(runs, "instance_kind");
  const trust = col(runs, "trust");
  const certified = col(runs, "certified");
  const note = col(runs, "calibration_note");
  const M = col(runs, "M").map((x) => (x === null ? null : num(x)));
  const T = col(runs, "horizon").map(num);
  const rounds = col(runs, "rounds").map(num);
  const siloP = col(runs, "silo_pseudo_regret");
  const pseudo = col(runs, "final_pseudo_regret");
  const relation = col(runs, "relation");
  const mechanism = col(runs, "mechanism");
  const targetEps = col(runs, "target_eps"), targetDelta = col(runs, "target_delta");
  const delivEps = col(runs, "delivered_eps"), delivDelta = col(runs, "delivered_delta");
  const groups = col(runs, "group_id");
  const values = Object.fromEntries(RUN_COLUMNS.map(([n]) => [n, col(runs, n)]));
  // The columns of the kinds' own, shared or new: null in the rows of
  // every kind their applies_to does not name (the registry's kinds).
  const kindCols = runs.schema.fields.map((f) => [f.name, f.metadata.get("fedbandit.applies_to") ?? ""])
    .filter(([, a]) => a.startsWith(KINDS_PREFIX))
    .map(([n, a]) => [n, new Set(a.slice(KINDS_PREFIX.length).split(", ")), col(runs, n)]);
  const byId = new Map();
  const perFamily = {};
  ids.forEach((id, i) => {
    if (!/^[0-9a-f]{64}$/.test(id)) fail(`${runsPath}: row ${i}: bad run id ${id}`);
    if (i > 0 && !(ids[i - 1] < id)) fail(`${runsPath}: rows not sorted by unique run_id at row ${i}`);
    byId.set(id, i);
    if (!FAMILIES.has(family[i])) fail(`${runsPath}: run ${id}: family ${family[i]}`);
    if (!TRUST.has(trust[i])) fail(`${runsPath}: run ${id}: trust ${trust[i]}`);
    if (status[i] !== "done" && status[i] !== "failed") fail(`${runsPath}: run ${id}: status ${status[i]}`);
    perFamily[family[i]] = (perFamily[family[i]] ?? 0) + 1;
    const r = { family: family[i], kind: kind[i], private: trust[i] !== "none", done: status[i] === "done", certified: certified[i] };
    for (const [name] of RUN_COLUMNS) {
      // A kind these rules do not know (a kind of Go's tests) is held to
      // its columns' applies_to only (kindCols, below).
      if (!KNOWN_KINDS.has(r.kind) && kindCols.some(([n]) => n === name)) continue;
      const want = APPLIES[name](r);
      const isNull = values[name][i] === null;
      if (want === true && isNull) fail(`${runsPath}: run ${id} (${r.family}, ${r.kind}, trust ${trust[i]}, ${status[i]}): ${name} is null`);
      if (want === false && !isNull) fail(`${runsPath}: run ${id} (${r.family}, ${r.kind}, trust ${trust[i]}, ${status[i]}): ${name} = ${values[name][i]} where it does not apply`);
    }
    for (const [name, by, v] of kindCols) {
      if (!by.has(r.kind) && v[i] !== null) fail(`${runsPath}: run ${id} (${r.kind}): ${name} = ${v[i]}, a column of kinds ${[...by].join(", ")}`);
    }
    if (!r.private && certified[i]) fail(`${runsPath}: run ${id}: certified without privacy`);
    if (relation[i] !== null && !RELATIONS.has(relation[i])) fail(`${runsPath}: run ${id}: relation ${JSON.stringify(relation[i])} is not a token`);
    if (mechanism[i] !== null && !MECHANISM.test(mechanism[i])) fail(`${runsPath}: run ${id}: mechanism ${JSON.stringify(mechanism[i])} is not a token`);
    // certified means delivered <= target in both (core.Privacy.Check's 1e-9 relative slack on eps).
    if (certified[i] && !(delivEps[i] <= targetEps[i] * (1 + 1e-9) && delivDelta[i] <= targetDelta[i] * (1 + 1e-9))) {
      fail(`${runsPath}: run ${id}: certified with delivered (${delivEps[i]}, ${delivDelta[i]}) above target (${targetEps[i]}, ${targetDelta[i]})`);
    }
    if (r.private && r.done && !certified[i] && !(note[i] ?? "").startsWith("not certified: ")) fail(`${runsPath}: run ${id}: not certified, note ${JSON.stringify(note[i])}`);
    if (r.done) {
      if (rounds[i] !== T[i]) fail(`${runsPath}: run ${id}: rounds ${rounds[i]} != horizon ${T[i]}`);
      if (r.family === "linear") {
        const s = [...siloP[i]];
        if (s.length !== M[i]) fail(`${runsPath}: run ${id}: ${s.length} silo totals, M = ${M[i]}`);
        const sum = s.reduce((a, b) => a + b, 0);
        if (Math.abs(sum - pseudo[i]) > 1e-9 * Math.max(1, Math.abs(sum))) fail(`${runsPath}: run ${id}: silo totals ${sum} != final_pseudo_regret ${pseudo[i]}`);
      }
    }
    if (errors.length > 40) throw new Error("too many errors");
  });
  const done = status.filter((s) => s === "done").length;
  const failed = status.length - done;
  if (opts.runs !== undefined && runs.numRows !== opts.runs) fail(`${runsPath}: ${runs.numRows} rows, want ${opts.runs}`);
  if (opts.done !== undefined && done !== opts.done) fail(`${runsPath}: ${done} done runs, want ${opts.done}`);
  if (opts.failed !== undefined && failed !== opts.failed) fail(`${runsPath}: ${failed} failed runs, want ${opts.failed}`);

  // curves.arrow: sorted by (the run's group_id in runs.arrow, run_id, t),
  // run_id the only column shared with runs.arrow, derived columns, last
  // round = horizon, per-silo null without silos, every value finite.
  const cid = col(curves, "run_id");
  const cg = cid.map((id) => groups[byId.get(id)] ?? null);
  const cr = col(curves, "t").map(num);
  const cp = col(curves, "pseudo_regret");
  const cq = col(curves, "realised_regret");
  const tap = col(curves, "time_avg_pseudo_regret");
  const taq = col(curves, "time_avg_realised_regret");
  const psp = col(curves, "per_silo_pseudo_regret");
  const psq = col(curves, "per_silo_realised_regret");
  const runNames = new Set(runs.schema.fields.map((f) => f.name));
  for (const f of curves.schema.fields) if (f.name !== "run_id" && runNames.has(f.name)) fail(`${curvesPath}: column ${f.name} is in runs.arrow too (a join on run_id would be ambiguous)`);
  const floats = curves.schema.fields.filter((f) => String(f.type) === "Float64").map((f) => [f.name, col(curves, f.name)]);
  const lastRound = new Map();
  for (let k = 0; k < curves.numRows; k++) {
    const i = byId.get(cid[k]);
    if (i === undefined) { fail(`${curvesPath}: row ${k}: run ${cid[k]} not in runs.arrow`); continue; }
    if (status[i] !== "done") fail(`${curvesPath}: row ${k}: curve of a ${status[i]} run`);
    const key = (j) => [cg[j], cid[j]];
    if (k > 0) {
      const [g0, r0] = key(k - 1), [g1, r1] = key(k);
      if (g0 > g1 || (g0 === g1 && (r0 > r1 || (r0 === r1 && cr[k - 1] >= cr[k])))) fail(`${curvesPath}: rows not sorted by (group_id, run_id, t) at row ${k}`);
    }
    for (const [name, v] of floats) {
      if (v[k] !== null && !Number.isFinite(v[k])) fail(`${curvesPath}: row ${k}: ${name} = ${v[k]}`);
    }
    const t = cr[k], m = M[i];
    if (!close(tap[k], cp[k] / t) || !close(taq[k], cq[k] / t)) fail(`${curvesPath}: row ${k}: time averages do not match regret / t`);
    if (m === null) {
      if (psp[k] !== null || psq[k] !== null) fail(`${curvesPath}: row ${k}: per-silo averages of a ${family[i]} run without silos`);
    } else if (!close(psp[k], cp[k] / (t * m)) || !close(psq[k], cq[k] / (t * m))) fail(`${curvesPath}: row ${k}: per-silo averages do not match regret / (t M)`);
    lastRound.set(cid[k], t);
    if (errors.length > 40) return;
  }
  ids.forEach((id, i) => {
    if (status[i] === "done" && lastRound.get(id) !== T[i]) fail(`${curvesPath}: run ${id}: curve ends at round ${lastRound.get(id)}, horizon = ${T[i]}`);
  });
  if (opts.curveRows !== undefined && curves.numRows !== opts.curveRows) fail(`${curvesPath}: ${curves.numRows} rows, want ${opts.curveRows}`);
  if (!errors.length) {
    const fams = Object.entries(perFamily).map(([f, n]) => `${f} ${n}`).join(", ");
    console.log(`arrow-check: ok: ${runs.numRows} runs (${done} done, ${failed} failed; ${fams}), ${curves.numRows} curve rows in ${opts.dir}`);
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
