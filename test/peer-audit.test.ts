// `pnpm peer-audit` runs the AI SDK, the OpenAI Agents SDK, LangChain (with and without
// toolRetryMiddleware) and needlework at their documented defaults over the field report's
// scenarios, with three readers. A small run here checks what a reader of its tables relies on: the
// last line's format, every row from the one run, and each peer's model reading that peer's own
// error channel (not needlework's envelope).
import { describe, expect, it } from "vitest";
import { FRAMEWORKS, formatByClient, formatPeerAudit, runPeerAudit, tally } from "../bench/src/peer-audit/audit.js";
import { inVirtualTime } from "../bench/src/peer-audit/clock.js";
import { READERS, read } from "../bench/src/peer-audit/model.js";
import { flaggedEnvelope, runNeedlework } from "../bench/src/peer-audit/needlework.js";
import { runAiSdk, runLangChain, runOpenAIAgents } from "../bench/src/peer-audit/peers.js";
import {
  auditPlans,
  FakeCrm,
  type Fault,
  groundTruth,
  type RunPlan,
  SCENARIOS,
} from "../bench/src/peer-audit/world.js";

const TRIPLE = String.raw`\d+\.\d/\d+\.\d/\d+\.\d%`;

/** A run whose first write meets `fault` through `client`; the other four succeed. */
function planWith(fault: Fault, client: RunPlan["client"] = "axios"): RunPlan {
  const base = auditPlans(1, 1)[0]!;
  return { ...base, client, faults: { [base.writes[0]!.contactId]: fault } };
}

describe("pnpm peer-audit", () => {
  it("runs every framework and reader on the same plans and ends with the summary line", async () => {
    const runs = SCENARIOS.length;
    const report = await runPeerAudit(runs, 11);
    const plans = new Set(report.rows.map((r) => r.plan));
    expect(plans.size).toBe(runs);
    for (const framework of FRAMEWORKS) {
      for (const reader of READERS) {
        const rows = report.rows.filter((r) => r.framework === framework && r.reader === reader);
        expect(rows.map((r) => r.plan)).toEqual([...plans]);
      }
    }
    const lines = formatPeerAudit(report);
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^peer audit: silent failures \\(careful/hurried/flag\\) AI SDK ${TRIPLE}, OpenAI Agents ${TRIPLE}, LangChain ${TRIPLE}, LangChain\\+retry ${TRIPLE}, needlework ${TRIPLE} \\(${runs} runs each\\)$`,
      ),
    );
    // The table's rows are the same run's tallies.
    const careful = tally(report.rows.filter((r) => r.framework === "needlework" && r.reader === "careful"));
    expect(lines).toContain(
      `| needlework | careful | ${((100 * careful.silentFailures) / runs).toFixed(1)}% | ${careful.landed}/${careful.writes} | ${careful.duplicates} | ${careful.falseAlarms} | ${careful.flagged} | ${careful.recovered === 0 ? "-" : (careful.recoverySteps / careful.recovered).toFixed(2)} |`,
    );
    for (const scenario of SCENARIOS) expect(lines.some((l) => l.startsWith(`| ${scenario} | AI SDK |`))).toBe(true);
    expect(
      formatByClient(report).filter((l) => /^\| (axios|got|node-fetch|fetch|openapi|stripe) \|/.test(l)),
    ).toHaveLength(6);
  }, 180_000);

  it("reads a thrown 403 through each peer's own error marker", async () => {
    const forbidden: Fault = { kind: "http", status: 403, times: Number.POSITIVE_INFINITY };
    const plan = planWith(forbidden);
    const first = plan.writes[0]!.contactId;
    const flagOnly = async (run: (p: typeof plan, c: FakeCrm, r: "flag") => ReturnType<typeof runAiSdk>) =>
      (await inVirtualTime(1, () => run(plan, new FakeCrm(plan), "flag"))).value;
    // The AI SDK's error-text part and LangChain's ToolMessage status are markers: the flag-only
    // model sees the failure, tries again twice, and reports it.
    for (const run of [runAiSdk, runLangChain, runNeedlework]) {
      const outcome = await flagOnly(run);
      expect(outcome.saidDone).toBe(false);
      expect(outcome.callsPerWrite.get(first)).toBe(3);
    }
    // The OpenAI Agents SDK's marker is its default error function's fixed text: the flag-only model
    // sees it, and the application's check flags the run.
    const agents = await flagOnly(runOpenAIAgents);
    expect(agents.saidDone).toBe(false);
    expect(agents.flagged).toBe(true);
    expect(agents.callsPerWrite.get(first)).toBe(3);
  }, 60_000);

  it("a timeout retried by the model writes once with argument-derived keys, twice with call-id keys", async () => {
    const plan = planWith({ kind: "landed-timeout" }, "got");
    const crm = new FakeCrm(plan);
    const { value } = await inVirtualTime(2, () => runAiSdk(plan, crm, "careful"));
    expect(value.saidDone).toBe(true);
    expect(groundTruth(plan, crm)).toEqual({ landed: 5, duplicates: 0, exact: true });
    const byCallId = new FakeCrm(plan);
    await inVirtualTime(2, () => runAiSdk(plan, byCallId, "careful", "call-id"));
    expect(groundTruth(plan, byCallId)).toEqual({ landed: 5, duplicates: 1, exact: false });
    // needlework repeats the same call with the same idempotency key: the CRM applies it once.
    const crm2 = new FakeCrm(plan);
    await inVirtualTime(2, () => runNeedlework(plan, crm2, "careful"));
    expect(groundTruth(plan, crm2).duplicates).toBe(0);
  }, 60_000);

  it("the readers differ only in how much of a result they take in", () => {
    const buried = { text: `{"data":"${"x".repeat(300)}","error":"rate limited"}`, flagged: false };
    expect(read("careful", buried)).toEqual({ failed: true, retriable: true });
    expect(read("hurried", buried).failed).toBe(false);
    expect(read("flag", buried).failed).toBe(false);
    expect(read("flag", { text: "{}", flagged: true })).toEqual({ failed: true, retriable: true });
    expect(read("careful", { text: '{"error":null,"errors":[]}', flagged: false }).failed).toBe(false);
    // No needlework vocabulary: `retriable` decides nothing, needlework's status names are no failure words.
    expect(read("careful", { text: '{"note":"saved","retriable":true}', flagged: false }).failed).toBe(false);
    expect(read("careful", { text: '{"status":"partial"}', flagged: false }).failed).toBe(false);
  });

  it("the MDN idiom through fetch: a 503 is retried by needlework and lands", async () => {
    const plan = planWith({ kind: "http", status: 503, times: 1 }, "fetch");
    const crm = new FakeCrm(plan);
    const { value } = await inVirtualTime(3, () => runNeedlework(plan, crm, "flag"));
    expect(value.saidDone).toBe(true);
    expect(groundTruth(plan, crm).exact).toBe(true);
    expect(value.callsPerWrite.get(plan.writes[0]!.contactId)).toBe(1);
  }, 60_000);

  it("needlework's marker is the envelope's status, however the text around it is shaped", () => {
    expect(flaggedEnvelope('{"status":"ok","retriable":false,"data":{"error":"x"}}')).toBe(false);
    expect(flaggedEnvelope('{"status":"partial","error_code":"PARTIAL_FAILURE"}')).toBe(true);
    expect(flaggedEnvelope('status: error (RATE_LIMITED)\n{"data":1}')).toBe(true);
  });
});
