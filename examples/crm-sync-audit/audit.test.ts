import "reflect-metadata";
import { InMemoryDeadLetterQueue } from "@needlework/workflows";
import { container } from "tsyringe";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AuditReport, formatAudit, runAudit } from "./audit.js";
import { CrmDirectory, FakeCrm } from "./fake-crm.js";
import { faultPlans, type RunPlan } from "./fault-plan.js";
import { measure } from "./measure.js";
import { runNeedlework, runRaw } from "./modes.js";
import { optimisticModel, readToolResult, SYNC_COMPLETE, syncRequest } from "./optimistic-model.js";
import { mulberry32 } from "./seeded-random.js";

/** Runs `work` under fake timers, advancing them 1 ms at a time so Retry-After waits pass without real sleeping. */
async function withFakeTime<T>(work: () => Promise<T>): Promise<T> {
  let done = false;
  const pending = work().finally(() => {
    done = true;
  });
  while (!done) await vi.advanceTimersByTimeAsync(1);
  return pending;
}

function crms(plan: RunPlan) {
  const directory = new CrmDirectory({
    salesforce: new FakeCrm("salesforce", plan),
    hubspot: new FakeCrm("hubspot", plan),
  });
  const runContainer = container.createChildContainer();
  runContainer.registerInstance(CrmDirectory, directory);
  return { directory, runContainer };
}

/** One run whose HubSpot contact update is forbidden (403) and whose Salesforce task is rate limited twice. */
function handMadePlan(): RunPlan {
  const plan = faultPlans(1, 7)[0]!;
  const [, hubspotUpdate, task] = plan.writes;
  return {
    ...plan,
    faults: {
      [hubspotUpdate!.key]: { kind: "forbidden", failures: 1, permanent: true },
      [task!.key]: { kind: "rate_limited", failures: 2, retryAfterS: 2 },
    },
  };
}

describe("examples/crm-sync-audit", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    // Left pending: at most the resilience layer's idle timer, one per agent factory, which holds no process open.
    vi.clearAllTimers();
    vi.useRealTimers();
  });

  describe("40 audited runs", () => {
    let report: AuditReport;
    beforeEach(async () => {
      report ??= await withFakeTime(() => runAudit({ runs: 40, seed: 2024 }));
    });

    it("both modes ran the same fault plans, the ones the seed gives", () => {
      expect(report.raw.planDigest).toBe(report.needlework.planDigest);
      expect(faultPlans(40, 2024)).toEqual(faultPlans(40, 2024));
      expect(faultPlans(40, 2025)).not.toEqual(faultPlans(40, 2024));
    });

    it("needlework's silent-failure rate is below the raw build's, which is substantial", () => {
      expect(report.raw.silentFailures).toBeGreaterThanOrEqual(5);
      expect(report.needlework.silentFailures).toBeLessThan(report.raw.silentFailures);
      expect(report.needlework.landed).toBeGreaterThan(report.raw.landed);
      expect(report.needlework.leakedRuns).toBe(0);
      expect(report.raw.leakedRuns).toBeGreaterThan(0);
    });

    it("every needlework run with a missing write was escalated or dead-lettered", () => {
      for (const m of report.measures.needlework) {
        if (m.missing.length > 0) expect(["escalated", "dead_lettered"]).toContain(m.status);
        else expect(m.status).toBe("completed");
      }
    });

    it("prints the table and the headline line", () => {
      const lines = formatAudit(report);
      expect(lines[0]).toContain("same fault plans in both modes");
      expect(lines.at(-1)).toMatch(/^silent-failure rate: raw \d+\.\d% -> needlework \d+\.\d%$/);
    });
  });

  it("a 403 next to a successful write: raw is a silent failure, needlework escalates; both measured from the CRMs", async () => {
    const plan = handMadePlan();
    const input = syncRequest(plan.writes);

    const raw = crms(plan);
    const rawRun = await withFakeTime(() => runRaw(raw.runContainer, optimisticModel(), input));
    const rawMeasure = measure(plan, raw.directory, rawRun);
    expect(rawRun.text).toBe(SYNC_COMPLETE);
    expect(rawMeasure).toMatchObject({ silentFailure: true, landed: 4, faulted: 2, leaked: true });
    expect(rawMeasure.missing).toEqual([plan.writes[1]!.key, plan.writes[2]!.key]);

    const nw = crms(plan);
    const result = await withFakeTime(() =>
      runNeedlework(nw.runContainer, optimisticModel(), input, {
        random: mulberry32(1),
        deadLetters: new InMemoryDeadLetterQueue(),
        runId: "r1",
      }),
    );
    const nwMeasure = measure(plan, nw.directory, result);
    expect(result.status).toBe("escalated");
    expect(nwMeasure).toMatchObject({ silentFailure: false, landed: 5, faulted: 2, leaked: false, recoverySteps: [0] });
    expect(nwMeasure.missing).toEqual([plan.writes[1]!.key]);
    // The rate-limited task was retried inside one call, honouring Retry-After: three requests, one landed.
    expect(
      nw.directory
        .get("salesforce")
        .requests.filter((r) => r.key === plan.writes[2]!.key)
        .map((r) => r.result),
    ).toEqual(["rate_limited", "rate_limited", "applied"]);
  });

  it("the optimistic model retries only what an envelope calls retriable", () => {
    expect(readToolResult('{"status":"error","error_code":"RATE_LIMITED","retriable":true}')).toBe("retriable");
    expect(readToolResult('{"status":"error","error_code":"FORBIDDEN","retriable":false}')).toBe("failed");
    expect(readToolResult('{"status":"ok","retriable":false,"data":{}}')).toBe("ok");
    expect(readToolResult('{"id":"003","success":true}')).toBe("ok");
    expect(readToolResult("HubSpotApiError: HTTP 429 Too Many Requests\n    at FakeCrm.write")).toBe("failed");
  });
});
