import pl from "nodejs-polars";
import { readFileSync } from "node:fs";
for (const p of process.argv.slice(2)) {
  try {
    const df = pl.readIPC(readFileSync(p));
    console.log(p, df.shape, df.schema);
    console.log(df.tail(3).toString());
    if (p.includes("/struct")) { console.log(df.unnest("params").toString()); console.log(df.select(pl.col("params").struct.field("sync_threshold")).toString()); }
    if (p.includes("/map")) console.log(JSON.stringify(df.getColumn("params").toArray()));
  } catch (e) { console.log(p, "ERROR", e.message); }
}
