import { claimsSuccess } from "@needlework/workflows";
import type { RunPlan } from "./fault-plan.js";
import type { CrmDirectory } from "./fake-crm.js";
import type { ModeRun } from "./modes.js";

/** Run statuses that tell someone the run needs attention. */
const FLAGGED = new Set(["escalated", "dead_lettered", "completed_with_failures", "max_iterations"]);

/** A stack frame, or a credential that was in a vendor error's request line. */
const LEAK = /\n\s+at |hapikey=/;
/** A latency as the envelope writes it (`"latency_ms":0.42`). */
const LATENCY = /"latency_ms":\s*[-\d.e+]+/g;

/** What one run did, measured from the fake CRMs' ground truth, not from what the model said. */
export interface RunMeasure {
  readonly run: number;
  readonly status: string;
  readonly text: string;
  readonly writes: number;
  readonly landed: number;
  /** Keys of intended writes that did not land. */
  readonly missing: readonly string[];
  /** Writes whose CRM rejected at least one request. */
  readonly faulted: number;
  /** Model turns from a write's first failed request to its first successful one (0: the runtime retried it). */
  readonly recoverySteps: readonly number[];
  /** Records (customers) with some writes landed and some not. */
  readonly halfUpdatedRecords: number;
  /** Task or note writes applied more than once. */
  readonly duplicates: number;
  readonly claimedSuccess: boolean;
  /** The run was flagged (escalated, dead-lettered, ended with failures stated) or its answer did not claim success. */
  readonly alerted: boolean;
  /** The answer claims success, an intended write is missing, and nothing alerted anyone. */
  readonly silentFailure: boolean;
  /** The model read a stack trace or a credential in a tool result. */
  readonly leaked: boolean;
  /**
   * Characters of tool results the model read, each `latency_ms` value counted as one digit: the
   * latencies' own digits follow the machine's load, and the table must read the same on every run.
   */
  readonly toolResultChars: number;
}

/**
 * Measures one finished run against the CRMs' ground truth.
 *
 * @example
 * ```ts
 * const m = measure(plan, directory, await runRaw(container, model, input));
 * m.silentFailure; // true when "Sync complete." hid a missing write
 * ```
 */
export function measure(plan: RunPlan, directory: CrmDirectory, run: ModeRun): RunMeasure {
  const missing: string[] = [];
  const recoverySteps: number[] = [];
  const landedByRecord = new Map<string, boolean[]>();
  let faulted = 0;
  let duplicates = 0;
  for (const write of plan.writes) {
    const crm = directory.get(write.crm);
    const applied = crm.applied(write.key);
    if (applied === 0) missing.push(write.key);
    if (write.tool !== "update_contact" && applied > 1) duplicates += applied - 1;
    landedByRecord.set(write.record, [...(landedByRecord.get(write.record) ?? []), applied > 0]);
    const requests = crm.requests.filter((r) => r.key === write.key);
    const firstFailure = requests.find((r) => r.result !== "applied" && r.result !== "replayed");
    const firstSuccess = requests.find((r) => r.result === "applied" || r.result === "replayed");
    if (firstFailure) {
      faulted++;
      if (firstSuccess) recoverySteps.push(firstSuccess.turn - firstFailure.turn);
    }
  }
  const halfUpdatedRecords = [...landedByRecord.values()].filter(
    (landed) => landed.includes(true) && landed.includes(false),
  ).length;
  const claimedSuccess = claimsSuccess(run.text);
  const alerted = FLAGGED.has(run.status) || !claimedSuccess;
  const toolResults = run.messages.flatMap((m) => (m.role === "tool" ? [m.content] : []));
  return {
    run: plan.run,
    status: run.status,
    text: run.text,
    writes: plan.writes.length,
    landed: plan.writes.length - missing.length,
    missing,
    faulted,
    recoverySteps,
    halfUpdatedRecords,
    duplicates,
    claimedSuccess,
    alerted,
    silentFailure: claimedSuccess && missing.length > 0 && !alerted,
    leaked: toolResults.some((content) => LEAK.test(content)),
    toolResultChars: toolResults.reduce((sum, content) => sum + content.replace(LATENCY, '"latency_ms":0').length, 0),
  };
}
