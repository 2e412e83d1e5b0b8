// Child process of the file store's stalled-worker test: runs the mailer over a FileRunStore.
// node --conditions=@needlework/source --import tsx file-stalled-worker.ts <directory> <leaseMs> <runId>
import { FileRunStore } from "@needlework/durable";
import { mailer } from "./mailer.js";
import { report } from "./stalled-worker.js";

const [directory, leaseMs, runId] = process.argv.slice(2) as [string, string, string];
const store = new FileRunStore(directory, { leaseMs: Number(leaseMs) });
await report(mailer(store, `Email sent (worker ${process.pid}).`).run("Email c1.", { runId }));
