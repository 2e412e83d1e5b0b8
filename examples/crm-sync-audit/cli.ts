import "reflect-metadata";
import { runCrmSyncAudit } from "./main.js";

// The entry run by `node examples/dist/crm-sync-audit.js`; main.ts only exports, so the demo can import it without running it twice.
await runCrmSyncAudit();
