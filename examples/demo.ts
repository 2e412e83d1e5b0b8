import "reflect-metadata";
import { formatRunReport } from "@needlework/workflows";
import { runCrmSyncAudit } from "./crm-sync-audit/main.js";
import { runOrderLookup } from "./order-lookup/main.js";

// `pnpm demo`: both examples on scripted models, offline, in a few seconds.

console.log(
  "== 1. Order lookup: an agent calls one tool, getOrderStatus, four times (usingResilience().usingToolResultMiddleware()).\n" +
    "   Under each call: exactly what the model read back.\n",
);
await runOrderLookup();

console.log(
  "\n== 2. CRM sync: 500 agent runs, each writing 6 records to a flaky CRM (403, locked, 429, 500, timeouts),\n" +
    "   once with tools called directly (raw) and once through needlework, with the same faults in both.\n",
);
const report = await runCrmSyncAudit();

const sample = report.sample;
if (sample) {
  console.log(
    `\n== 3. One of those runs, as needlework ran it. Called directly, the same run answered "${sample.raw.text}" with ${sample.raw.missing.length} write${sample.raw.missing.length === 1 ? "" : "s"} missing.\n` +
      "   Call ids read t<turn>-w<write>: t1-w0 is the model's first write in its first turn.\n",
  );
  console.log(formatRunReport(sample.result));
}
