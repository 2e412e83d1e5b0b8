import "reflect-metadata";
import { createHash } from "node:crypto";
import { type AgentRunResult, InMemoryDeadLetterQueue } from "@needlework/workflows";
import { container } from "tsyringe";
import { CrmDirectory, FakeCrm } from "./fake-crm.js";
import { type FaultKind, faultPlans, type RunPlan } from "./fault-plan.js";
import { measure, type RunMeasure } from "./measure.js";
import { runNeedlework, runRaw } from "./modes.js";
import { optimisticModel, syncRequest } from "./optimistic-model.js";
import { mulberry32 } from "./seeded-random.js";

/** The two audited modes. */
export type AuditMode = "raw" | "needlework";

/** Totals of one mode over all runs. */
export interface ModeSummary {
  readonly runs: number;
  readonly silentFailures: number;
  readonly writes: number;
  readonly landed: number;
  readonly faulted: number;
  readonly recovered: number;
  /** Of `recovered`, those the runtime retried before the model saw a failure (0 model turns). */
  readonly recoveredByRuntime: number;
  /** Mean model turns to recovery; `undefined` when nothing recovered. */
  readonly meanStepsToRecovery: number | undefined;
  readonly records: number;
  readonly halfUpdatedNoAlert: number;
  readonly escalated: number;
  readonly deadLettered: number;
  readonly fullySynced: number;
  readonly leakedRuns: number;
  readonly meanToolResultChars: number;
  readonly duplicates: number;
  /** sha256 of the fault plans this mode's CRMs were given. */
  readonly planDigest: string;
  readonly statuses: Readonly<Record<string, number>>;
}

/** What {@link runAudit} returns. */
export interface AuditReport {
  readonly runs: number;
  readonly seed: number;
  /** Writes whose first request meets a fault, by kind. */
  readonly faultsByKind: Readonly<Record<FaultKind, number>>;
  readonly raw: ModeSummary;
  readonly needlework: ModeSummary;
  readonly measures: { readonly raw: readonly RunMeasure[]; readonly needlework: readonly RunMeasure[] };
  /** A run the raw build reported as "Sync complete." over a missing write and needlework escalated after recovering part of it. */
  readonly sample: { readonly plan: RunPlan; readonly raw: RunMeasure; readonly result: AgentRunResult } | undefined;
}

/** Options of {@link runAudit}. */
export interface AuditOptions {
  /** Default 500. */
  readonly runs?: number;
  /** Default 2024. */
  readonly seed?: number;
  /** Told after each run (both modes) with how many of `runs` are done. */
  readonly onProgress?: (done: number, runs: number) => void;
}

function crmsFor(plan: RunPlan) {
  const directory = new CrmDirectory({
    salesforce: new FakeCrm("salesforce", plan),
    hubspot: new FakeCrm("hubspot", plan),
  });
  const runContainer = container.createChildContainer();
  runContainer.registerInstance(CrmDirectory, directory);
  return { directory, runContainer };
}

const digest = (plans: readonly RunPlan[]): string => createHash("sha256").update(JSON.stringify(plans)).digest("hex");

function summarize(measures: readonly RunMeasure[], given: readonly RunPlan[]): ModeSummary {
  const sum = (f: (m: RunMeasure) => number): number => measures.reduce((total, m) => total + f(m), 0);
  const count = (f: (m: RunMeasure) => boolean): number => measures.filter(f).length;
  const steps = measures.flatMap((m) => m.recoverySteps);
  const statuses: Record<string, number> = {};
  for (const m of measures) statuses[m.status] = (statuses[m.status] ?? 0) + 1;
  return {
    runs: measures.length,
    silentFailures: count((m) => m.silentFailure),
    writes: sum((m) => m.writes),
    landed: sum((m) => m.landed),
    faulted: sum((m) => m.faulted),
    recovered: steps.length,
    recoveredByRuntime: steps.filter((s) => s === 0).length,
    meanStepsToRecovery: steps.length === 0 ? undefined : steps.reduce((a, b) => a + b, 0) / steps.length,
    records: measures.length * 2,
    halfUpdatedNoAlert: sum((m) => (m.alerted ? 0 : m.halfUpdatedRecords)),
    escalated: count((m) => m.status === "escalated"),
    deadLettered: count((m) => m.status === "dead_lettered"),
    fullySynced: count((m) => m.missing.length === 0),
    leakedRuns: count((m) => m.leaked),
    meanToolResultChars: Math.round(sum((m) => m.toolResultChars) / Math.max(1, measures.length)),
    duplicates: sum((m) => m.duplicates),
    planDigest: digest(given),
    statuses,
  };
}

/**
 * The Harbor Integrations audit: `runs` sync runs on seeded fault plans, each run once in raw mode
 * and once through needlework's full stack, measured from the fake CRMs' ground truth.
 *
 * @example
 * ```ts
 * const report = await runAudit({ runs: 500, seed: 2024 });
 * console.log(formatAudit(report).join("\n"));
 * ```
 */
export async function runAudit(options: AuditOptions = {}): Promise<AuditReport> {
  const runs = options.runs ?? 500;
  const seed = options.seed ?? 2024;
  const plans = faultPlans(runs, seed);
  const measures: Record<AuditMode, RunMeasure[]> = { raw: [], needlework: [] };
  const given: Record<AuditMode, RunPlan[]> = { raw: [], needlework: [] };
  const deadLetters = new InMemoryDeadLetterQueue();
  let sample: AuditReport["sample"];

  for (const plan of plans) {
    const input = syncRequest(plan.writes);

    const raw = crmsFor(plan);
    given.raw.push(raw.directory.get("salesforce").plan);
    const rawMeasure = measure(plan, raw.directory, await runRaw(raw.runContainer, optimisticModel(), input));
    measures.raw.push(rawMeasure);

    const nw = crmsFor(plan);
    given.needlework.push(nw.directory.get("salesforce").plan);
    const result = await runNeedlework(nw.runContainer, optimisticModel(), input, {
      random: mulberry32(seed + plan.run),
      deadLetters,
      runId: `run-${plan.run}`,
    });
    measures.needlework.push(measure(plan, nw.directory, result));
    // The demo's sample: a run the raw build reported as "Sync complete." over a missing write, in
    // which needlework both recovered something and escalated what it could not.
    if (!sample && rawMeasure.silentFailure && result.status === "escalated" && result.recoveries.length > 0)
      sample = { plan, raw: rawMeasure, result };
    options.onProgress?.(plan.run, runs);
  }

  const faultsByKind: Record<FaultKind, number> = {
    forbidden: 0,
    locked: 0,
    rate_limited: 0,
    server_error: 0,
    timeout: 0,
  };
  for (const plan of plans) for (const fault of Object.values(plan.faults)) faultsByKind[fault.kind]++;
  return {
    runs,
    seed,
    faultsByKind,
    raw: summarize(measures.raw, given.raw),
    needlework: summarize(measures.needlework, given.needlework),
    measures,
    sample,
  };
}

const pct = (n: number, of: number): string => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;

/**
 * The audit table and the headline line, as printed by the example.
 *
 * @example
 * ```ts
 * formatAudit(report).at(-1); // "silent-failure rate: raw 35.0% -> needlework 0.0%"
 * ```
 */
export function formatAudit(report: AuditReport): string[] {
  const { raw, needlework: nw, faultsByKind: f } = report;
  const steps = (s: ModeSummary): string =>
    s.meanStepsToRecovery === undefined ? "n/a" : s.meanStepsToRecovery.toFixed(2);
  const rows: [string, string, string][] = [
    [
      "silent failures (success claimed, write missing, no alert)",
      `${raw.silentFailures} (${pct(raw.silentFailures, raw.runs)})`,
      `${nw.silentFailures} (${pct(nw.silentFailures, nw.runs)})`,
    ],
    [`runs fully synced (all writes landed)`, `${raw.fullySynced}`, `${nw.fullySynced}`],
    [`writes landed (of ${raw.writes})`, `${raw.landed}`, `${nw.landed}`],
    [
      "writes that met a fault / later succeeded",
      `${raw.faulted} / ${raw.recovered}`,
      `${nw.faulted} / ${nw.recovered}`,
    ],
    ["  of those, retried by the runtime (0 model turns)", `${raw.recoveredByRuntime}`, `${nw.recoveredByRuntime}`],
    ["mean steps-to-recovery (model turns)", steps(raw), steps(nw)],
    [`records half-updated with no alert (of ${raw.records})`, `${raw.halfUpdatedNoAlert}`, `${nw.halfUpdatedNoAlert}`],
    [
      "runs escalated / dead-lettered",
      `${raw.escalated} / ${raw.deadLettered}`,
      `${nw.escalated} / ${nw.deadLettered}`,
    ],
    ["duplicate tasks or notes", `${raw.duplicates}`, `${nw.duplicates}`],
    ["runs where the model read a stack trace or API key", `${raw.leakedRuns}`, `${nw.leakedRuns}`],
    ["tool-result characters the model read per run", `${raw.meanToolResultChars}`, `${nw.meanToolResultChars}`],
  ];
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(3, ...rows.map((r) => r[1].length));
  const line = (a: string, b: string, c: string): string => `  ${a.padEnd(w0)}  ${b.padStart(w1)}  ${c.padStart(10)}`;
  const same =
    raw.planDigest === nw.planDigest
      ? `same fault plans in both modes (sha256 ${raw.planDigest.slice(0, 12)})`
      : "FAULT PLANS DIFFER";
  return [
    `CRM sync audit: ${report.runs} runs x 6 writes, seed ${report.seed}, ${same}`,
    `  writes meeting a fault: 403 ${f.forbidden}, 409 locked ${f.locked}, 429 ${f.rate_limited}, 500 ${f.server_error}, timeout ${f.timeout}`,
    line("", "raw", "needlework"),
    ...rows.map(([a, b, c]) => line(a, b, c)),
    `  ${nw.escalated + nw.deadLettered} needlework runs were handed to a person instead of ending "done": ${nw.escalated} escalated (the model claimed success after a correction) and ${nw.deadLettered} dead-lettered (the same write failed alike 3 times).`,
    `silent-failure rate: raw ${pct(raw.silentFailures, raw.runs)} -> needlework ${pct(nw.silentFailures, nw.runs)}`,
  ];
}
