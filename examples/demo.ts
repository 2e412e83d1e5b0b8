import "reflect-metadata";
import { formatRunReport } from "@needlework/workflows";
import { runCrmSyncAudit } from "./crm-sync-audit/main.js";
import { runOrderLookup } from "./order-lookup/main.js";

// `pnpm demo`: both examples on scripted models, offline, in a few seconds.

console.log("== 1. order lookup: the seed's GetOrderStatus behind usingResilience().usingToolResultMiddleware()\n");
await runOrderLookup();

console.log("\n== 2. CRM sync audit: the guide's Harbor Integrations scenario, raw build vs needlework\n");
const report = await runCrmSyncAudit();

const sample = report.sample;
if (sample) {
  console.log(
    `\n== 3. one CRM run as needlework ran it (the raw build answered "${sample.raw.text}" with ${sample.raw.missing.length} write${sample.raw.missing.length === 1 ? "" : "s"} missing)\n`,
  );
  console.log(formatRunReport(sample.result));
}
