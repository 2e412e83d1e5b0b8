// `pnpm peer-audit` runs the AI SDK, the OpenAI Agents SDK, LangChain (with and without
// toolRetryMiddleware) and needlework at their documented defaults over the field report's
// scenarios, with three readers. A small run here checks what a reader of its tables relies on: the
// last line's format, every row from the one run, and each peer's model reading that peer's own
// error channel (not needlework's envelope).
import { afterAll, describe, expect, it } from "vitest";
import {
  FRAMEWORKS,
  formatByClient,
  formatPeerAudit,
  ranking,
  runPeerAudit,
  tally,
} from "../bench/src/peer-audit/audit.js";
import { inVirtualTime } from "../bench/src/peer-audit/clock.js";
import { closeLoopback } from "../bench/src/peer-audit/loopback.js";
import { READERS, read } from "../bench/src/peer-audit/model.js";
import { flaggedEnvelope, runNeedlework } from "../bench/src/peer-audit/needlework.js";
import { runAiSdk, runLangChain, runOpenAIAgents } from "../bench/src/peer-audit/peers.js";
import { syncContact } from "../bench/src/peer-audit/clients.js";
import { AxiosError } from "axios";
import {
  auditPlans,
  FakeCrm,
  type Fault,
  groundTruth,
  type RunPlan,
  SCENARIOS,
} from "../bench/src/peer-audit/world.js";

/**
 * Plans per seed in the ranking test: two per scenario (each scenario seen through two clients). At
 * this size the careful reader's standing is "tied"; the full audit (200 runs) puts needlework behind
 * the AI SDK and LangChain for that reader, as docs/benchmarks.md says: the test checks that two seeds
 * agree, not that needlework wins.
 */
const RANKING_RUNS = 20;
const TRIPLE = String.raw`\d+\.\d/\d+\.\d/\d+\.\d%`;

/** A run whose first write meets `fault` through `client`; the other four succeed. */
function planWith(fault: Fault, client: RunPlan["client"] = "axios"): RunPlan {
  const base = auditPlans(1, 1)[0]!;
  return { ...base, client, faults: { [base.writes[0]!.contactId]: fault } };
}

describe("pnpm peer-audit", () => {
  afterAll(() => closeLoopback());

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
      formatByClient(report).filter((l) => /^\| (axios|got|ky|node-fetch|fetch|openapi|octokit|stripe) \|/.test(l)),
    ).toHaveLength(8);
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

  it("a lost response retried by the model writes once with argument-derived keys, twice with call-id keys", async () => {
    const plan = planWith({ kind: "lost-response" }, "got");
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

  it("the clients' errors come from real requests to the loopback CRM, each client at its defaults", async () => {
    const plan = planWith({ kind: "http", status: 503, times: 1 });
    const write = plan.writes[0]!;
    const crm = new FakeCrm(plan);
    const thrown = await syncContact(crm, "axios", write, "k-1").catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(AxiosError);
    expect((thrown as AxiosError).response?.status).toBe(503);
    expect(crm.requestsFor(write.contactId)).toBe(1);
    // Stripe keeps its default maxNetworkRetries (2): it retries the 503 itself, with the same key.
    const stripePlan = { ...plan, client: "stripe" as const };
    const stripeCrm = new FakeCrm(stripePlan);
    await inVirtualTime(4, () => syncContact(stripeCrm, "stripe", write, "k-2"));
    expect(stripeCrm.requestsFor(write.contactId)).toBe(2);
    expect(groundTruth(stripePlan, stripeCrm).duplicates).toBe(0);
    // A lost response: the write landed, the connection dropped before the answer.
    const lost = new FakeCrm(planWith({ kind: "lost-response" }, "fetch"));
    const error = await syncContact(lost, "fetch", write, "k-3").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "TypeError", message: "fetch failed" });
    expect(lost.notes.get(write.contactId)).toBe(1);
  }, 60_000);

  it("through plain fetch (MDN's idiom), needlework lands at least as many writes as the best peer", async () => {
    const report = await runPeerAudit(SCENARIOS.length, 5, FRAMEWORKS, { client: "fetch" });
    const landed = (f: (typeof FRAMEWORKS)[number]) =>
      tally(report.rows.filter((r) => r.framework === f && r.reader === "careful")).landed;
    const peers = FRAMEWORKS.filter((f) => f !== "needlework").map(landed);
    expect(landed("needlework")).toBeGreaterThanOrEqual(Math.max(...peers));
  }, 180_000);

  it("two seeds give the same ranking (per reader, and needlework against the best peer)", async () => {
    const first = ranking(await runPeerAudit(RANKING_RUNS, 2026));
    expect(Object.values(first).map((r) => r.needlework)).toEqual(["tied", "ahead", "ahead"]);
    expect(ranking(await runPeerAudit(RANKING_RUNS, 7))).toEqual(first);
  }, 600_000);

  it("needlework's marker is the envelope's status, however the text around it is shaped", () => {
    expect(flaggedEnvelope('{"status":"ok","retriable":false,"data":{"error":"x"}}')).toBe(false);
    expect(flaggedEnvelope('{"status":"partial","error_code":"PARTIAL_FAILURE"}')).toBe(true);
    expect(flaggedEnvelope('status: error (RATE_LIMITED)\n{"data":1}')).toBe(true);
  });
});
