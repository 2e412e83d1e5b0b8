import { FRAMEWORKS, runPeerAudit } from "./audit.js";
import { closeLoopback } from "./loopback.js";
const report = await runPeerAudit(Number(process.argv[2] ?? 10), Number(process.argv[3] ?? 5), FRAMEWORKS, { client: "fetch" });
const by = new Map<number, Record<string, number>>();
for (const r of report.rows) if (r.reader === "careful") { const m = by.get(r.plan.run) ?? {}; m[r.framework] = r.landed; by.set(r.plan.run, m); }
for (const r of report.rows) if (r.reader === "careful" && r.framework === "needlework") {
  const m = by.get(r.plan.run)!; const best = Math.max(...Object.values(m));
  if (m["needlework"]! < best) console.log(r.plan.run, r.plan.scenario, JSON.stringify(m), JSON.stringify(r.plan.faults));
}
await closeLoopback();
