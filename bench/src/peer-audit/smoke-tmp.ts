import { inVirtualTime } from "./clock.js";
import { closeLoopback } from "./loopback.js";
import { runAiSdk } from "./peers.js";
import { runNeedlework } from "./needlework.js";
import { auditPlans, CLIENTS, FakeCrm, type Fault, groundTruth } from "./world.js";
const faults: Fault[] = [
  { kind: "http", status: 503, times: 1 },
  { kind: "http", status: 429, times: 1, retryAfter: "seconds", retryAfterS: 2 },
  { kind: "network", times: 1 },
  { kind: "landed-timeout" },
  { kind: "held-out", shape: "html-200", times: 1 },
];
for (const client of ["stripe","octokit"] as const) for (const fault of faults) {
  const base = auditPlans(1, 1)[0]!;
  const plan = { ...base, client, faults: { [base.writes[0]!.contactId]: fault } };
  for (const [name, run] of [["ai", runAiSdk], ["nw", runNeedlework]] as const) {
    const crm = new FakeCrm(plan);
    const t0 = Date.now();
    const { value, elapsedMs } = await inVirtualTime(1, () => run(plan, crm, "careful"));
    console.log(client, fault.kind, (fault as {status?: number}).status ?? "", name, value.status, value.saidDone, JSON.stringify(groundTruth(plan, crm)), elapsedMs, Date.now() - t0);
  }
}
await closeLoopback();
