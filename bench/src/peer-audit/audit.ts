import "reflect-metadata";
import { InMemoryDeadLetterQueue } from "@needlework/workflows";
import { container } from "tsyringe";
import { CrmDirectory, FakeCrm } from "../../../examples/crm-sync-audit/fake-crm.js";
import { faultPlans, type RunPlan } from "../../../examples/crm-sync-audit/fault-plan.js";
import { measure, type RunMeasure } from "../../../examples/crm-sync-audit/measure.js";
import { type ModeRun, runNeedlework } from "../../../examples/crm-sync-audit/modes.js";
import { optimisticModel, syncRequest } from "../../../examples/crm-sync-audit/optimistic-model.js";
import { mulberry32 } from "../../../examples/crm-sync-audit/seeded-random.js";
import { runAiSdk, runLangChain, runOpenAIAgents } from "./peers.js";

/** The frameworks audited with their defaults, in the order of the last line. */
export const FRAMEWORKS = ["AI SDK", "OpenAI Agents", "LangChain", "needlework"] as const;
/**
 * Built-in options of a peer that close a gap, in rows of their own. The AI SDK and the OpenAI
 * Agents SDK have no built-in retry of a failed tool call (`maxRetries` of both retries model calls).
 */
export const WITH_OPTIONS = ["LangChain with toolRetryMiddleware"] as const;
export type Framework = (typeof FRAMEWORKS)[number] | (typeof WITH_OPTIONS)[number];
const ALL: readonly Framework[] = [...FRAMEWORKS, ...WITH_OPTIONS];

/** One framework's totals over the audit's runs (the CRM audit's metrics). */
export interface PeerSummary {
  readonly runs: number;
  readonly silentFailures: number;
  readonly writes: number;
  readonly landed: number;
  readonly duplicates: number;
  readonly leakedRuns: number;
  readonly meanToolResultChars: number;
}

function crmsFor(plan: RunPlan): CrmDirectory {
  return new CrmDirectory({ salesforce: new FakeCrm("salesforce", plan), hubspot: new FakeCrm("hubspot", plan) });
}

async function runOne(framework: Framework, plan: RunPlan, seed: number, crms: CrmDirectory): Promise<ModeRun> {
  const input = syncRequest(plan.writes);
  if (framework === "AI SDK") return runAiSdk(crms, input);
  if (framework === "OpenAI Agents") return runOpenAIAgents(crms, input);
  if (framework === "LangChain") return runLangChain(crms, input);
  if (framework === "LangChain with toolRetryMiddleware") return runLangChain(crms, input, true);
  const scope = container.createChildContainer();
  scope.registerInstance(CrmDirectory, crms);
  return runNeedlework(scope, optimisticModel(), input, {
    random: mulberry32(seed + plan.run),
    deadLetters: new InMemoryDeadLetterQueue(),
    runId: `run-${plan.run}`,
  });
}

function summarize(measures: readonly RunMeasure[]): PeerSummary {
  const sum = (f: (m: RunMeasure) => number) => measures.reduce((a, m) => a + f(m), 0);
  return {
    runs: measures.length,
    silentFailures: measures.filter((m) => m.silentFailure).length,
    writes: sum((m) => m.writes),
    landed: sum((m) => m.landed),
    duplicates: sum((m) => m.duplicates),
    leakedRuns: measures.filter((m) => m.leaked).length,
    meanToolResultChars: Math.round(sum((m) => m.toolResultChars) / Math.max(1, measures.length)),
  };
}

/**
 * The CRM audit's seeded fault plans, each run through every framework on fresh fake CRMs, measured
 * from the CRMs' ground truth (not from what the model said).
 */
export async function runPeerAudit(runs: number, seed = 2024): Promise<Record<Framework, PeerSummary>> {
  const measures = Object.fromEntries(ALL.map((f) => [f, [] as RunMeasure[]])) as Record<Framework, RunMeasure[]>;
  for (const plan of faultPlans(runs, seed)) {
    for (const framework of ALL) {
      const crms = crmsFor(plan);
      measures[framework].push(measure(plan, crms, await runOne(framework, plan, seed, crms)));
    }
  }
  return Object.fromEntries(ALL.map((f) => [f, summarize(measures[f])])) as Record<Framework, PeerSummary>;
}

const percent = (n: number, of: number): string => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;

/** The report: a table of every metric, then the one line the acceptance reads, last. */
export function formatPeerAudit(report: Record<Framework, PeerSummary>): string[] {
  const rows = ALL.map((f) => {
    const s = report[f];
    return `| ${f} | ${percent(s.silentFailures, s.runs)} | ${s.landed}/${s.writes} | ${s.duplicates} | ${s.leakedRuns} | ${s.meanToolResultChars} |`;
  });
  const runs = report.needlework.runs;
  const line = `peer audit: silent failures AI SDK ${percent(report["AI SDK"].silentFailures, runs)}, OpenAI Agents ${percent(report["OpenAI Agents"].silentFailures, runs)}, LangChain ${percent(report.LangChain.silentFailures, runs)}, needlework ${percent(report.needlework.silentFailures, runs)} (${runs} runs each)`;
  return [
    "| framework | silent failures | writes landed | duplicate writes | runs that read a stack trace or a secret | tool-result chars per run |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    line,
  ];
}
