import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
for (const f of process.argv.slice(2)) {
  try {
  const r2 = await c.runAndReadAll(`SELECT run_id[1:3] id, family, COLUMNS('^param_'), silo_pseudo_regret, delivered_eps FROM '${f}'`);
  console.log(JSON.stringify(r2.getRowObjectsJson()));
  } catch (e) { console.log(String(e)); }
}
