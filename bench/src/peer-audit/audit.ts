import { inVirtualTime } from "./clock.js";
import { forget } from "./loopback.js";
import { READERS, type Reader } from "./model.js";
import { runNeedlework } from "./needlework.js";
import { type FrameworkRun, type PeerKeys, runAiSdk, runLangChain, runOpenAIAgents } from "./peers.js";
import {
  auditPlans,
  CLIENTS,
  type ClientKind,
  FakeCrm,
  groundTruth,
  type RunPlan,
  SCENARIOS,
  type Scenario,
} from "./world.js";

/** The frameworks, in the order of the last line. */
export const FRAMEWORKS = ["AI SDK", "OpenAI Agents", "LangChain", "LangChain+retry", "needlework"] as const;
/** One of {@link FRAMEWORKS}. */
export type Framework = (typeof FRAMEWORKS)[number];

/** Totals of one framework with one reader over a set of runs. */
export interface Tally {
  runs: number;
  /** Model level (the headline): the model said done while a write is missing or doubled. */
  silentFailures: number;
  /** The same, and the framework's documented check did not flag the run either. */
  silentAfterCheck: number;
  /** The model reported a failure although every write landed exactly once. */
  modelFalseAlarms: number;
  writes: number;
  landed: number;
  duplicates: number;
  falseAlarms: number;
  flagged: number;
  /** Writes that met a fault and landed in the end. */
  recovered: number;
  /** Model retries spent on those writes (0 when the framework recovered them itself). */
  recoverySteps: number;
}

/** One audited run of one framework with one reader. */
export interface AuditRow {
  readonly plan: RunPlan;
  readonly framework: Framework;
  readonly reader: Reader;
  readonly run: FrameworkRun;
  readonly landed: number;
  readonly duplicates: number;
  /** Model level: said done while a write is missing or doubled. */
  readonly silentFailure: boolean;
  /** Silent, and not flagged by the framework's documented check. */
  readonly silentAfterCheck: boolean;
  /** Flagged by the framework's check although every write landed exactly once. */
  readonly falseAlarm: boolean;
  /** The model said the work failed although every write landed exactly once. */
  readonly modelFalseAlarm: boolean;
}

/** The whole audit: every row, from one pass over the plans. */
export interface PeerAuditReport {
  readonly runs: number;
  readonly seed: number;
  readonly rows: readonly AuditRow[];
}

/** Harness choices a sensitivity row varies; the headline runs with none. */
export interface AuditOptions {
  /** Where the peers' tools take their Idempotency-Key (default: the tool and its arguments). */
  readonly keys?: PeerKeys;
  /** One client for every run instead of each plan's (`fetch-response`: the returned-`Response` scenario). */
  readonly client?: ClientKind;
}

function runFramework(
  framework: Framework,
  plan: RunPlan,
  crm: FakeCrm,
  reader: Reader,
  keys: PeerKeys,
): Promise<FrameworkRun> {
  switch (framework) {
    case "AI SDK":
      return runAiSdk(plan, crm, reader, keys);
    case "OpenAI Agents":
      return runOpenAIAgents(plan, crm, reader, keys);
    case "LangChain":
      return runLangChain(plan, crm, reader, false, keys);
    case "LangChain+retry":
      return runLangChain(plan, crm, reader, true, keys);
    case "needlework":
      return runNeedlework(plan, crm, reader);
  }
}

/**
 * Runs every plan through every framework with every reader, each on a fresh CRM in virtual time,
 * and judges each run by the CRM's ground truth: a silent failure is a run whose model said the
 * work is done while a write is missing or doubled and the application was not told; a false alarm
 * is a run the application was told failed although every write landed exactly once.
 *
 * @example
 * ```ts
 * const report = await runPeerAudit(200);
 * for (const line of formatPeerAudit(report)) console.log(line);
 * ```
 */
export async function runPeerAudit(
  runs: number,
  seed = 2026,
  frameworks: readonly Framework[] = FRAMEWORKS,
  options: AuditOptions = {},
): Promise<PeerAuditReport> {
  const rows: AuditRow[] = [];
  const keys = options.keys ?? "arguments";
  for (const drawn of auditPlans(runs, seed)) {
    const plan = options.client === undefined ? drawn : { ...drawn, client: options.client };
    for (const [f, framework] of frameworks.entries()) {
      for (const [r, reader] of READERS.entries()) {
        const crm = new FakeCrm(plan);
        const { value: run } = await inVirtualTime(seed + plan.run * 97 + f * 7 + r, () =>
          runFramework(framework, plan, crm, reader, keys),
        );
        forget(crm);
        const truth = groundTruth(plan, crm);
        rows.push({
          plan,
          framework,
          reader,
          run,
          landed: truth.landed,
          duplicates: truth.duplicates,
          silentFailure: run.saidDone && !truth.exact,
          silentAfterCheck: run.saidDone && !truth.exact && !run.flagged,
          falseAlarm: run.flagged && truth.exact,
          modelFalseAlarm: !run.saidDone && truth.exact,
        });
      }
    }
  }
  return { runs, seed, rows };
}

/** Sums rows into a {@link Tally}. */
export function tally(rows: readonly AuditRow[]): Tally {
  const t: Tally = {
    runs: 0,
    silentFailures: 0,
    silentAfterCheck: 0,
    modelFalseAlarms: 0,
    writes: 0,
    landed: 0,
    duplicates: 0,
    falseAlarms: 0,
    flagged: 0,
    recovered: 0,
    recoverySteps: 0,
  };
  for (const row of rows) {
    t.runs++;
    t.silentFailures += row.silentFailure ? 1 : 0;
    t.silentAfterCheck += row.silentAfterCheck ? 1 : 0;
    t.modelFalseAlarms += row.modelFalseAlarm ? 1 : 0;
    t.writes += row.plan.writes.length;
    t.landed += row.landed;
    t.duplicates += row.duplicates;
    t.falseAlarms += row.falseAlarm ? 1 : 0;
    t.flagged += row.run.flagged ? 1 : 0;
    // Steps to recovery: for a write that met a fault and whose run landed every write, the
    // model's retries of it (a framework that recovered it itself needed 0).
    if (row.landed === row.plan.writes.length) {
      for (const w of row.plan.writes) {
        if (row.plan.faults[w.contactId] === undefined) continue;
        t.recovered++;
        t.recoverySteps += (row.run.callsPerWrite.get(w.contactId) ?? 1) - 1;
      }
    }
  }
  return t;
}

export const pct = (n: number, of: number): string => ((100 * n) / Math.max(1, of)).toFixed(1);
export const select = (report: PeerAuditReport, f: Framework, reader?: Reader, scenario?: Scenario) =>
  report.rows.filter(
    (r) =>
      r.framework === f &&
      (reader === undefined || r.reader === reader) &&
      (scenario === undefined || r.plan.scenario === scenario),
  );

/** `x.x/y.y/z.z%`: silent failures for the careful, hurried and flag-only readers. */
export function silentTriple(report: PeerAuditReport, f: Framework, scenario?: Scenario): string {
  return `${READERS.map((reader) => {
    const t = tally(select(report, f, reader, scenario));
    return pct(t.silentFailures, t.runs);
  }).join("/")}%`;
}

export const frameworksIn = (report: PeerAuditReport): Framework[] =>
  FRAMEWORKS.filter((f) => report.rows.some((r) => r.framework === f));

/** Where needlework stands against the best peer for one reader: fewer, as many, or more silent failures. */
export type Standing = "ahead" | "tied" | "behind";

/**
 * The ranking a reader of the audit relies on: per reader, the frameworks from fewest to most
 * silent failures (model level), ties joined by `=`, and where needlework stands against the best
 * peer. Two seeds must give the same standings (a test checks it on small runs).
 *
 * @example
 * ```ts
 * ranking(report).careful; // { order: "AI SDK = LangChain = needlework < ...", needlework: "tied" }
 * ```
 */
export function ranking(report: PeerAuditReport): Record<Reader, { order: string; needlework: Standing }> {
  const out = {} as Record<Reader, { order: string; needlework: Standing }>;
  for (const reader of READERS) {
    const rates = frameworksIn(report).map((f) => {
      const t = tally(select(report, f, reader));
      return { f, rate: t.silentFailures / Math.max(1, t.runs) };
    });
    rates.sort((a, b) => a.rate - b.rate);
    const order = rates.map((r, i) => (i === 0 ? r.f : `${r.rate === rates[i - 1]!.rate ? "=" : "<"} ${r.f}`));
    const own = rates.find((r) => r.f === "needlework")?.rate ?? 0;
    const best = Math.min(...rates.filter((r) => r.f !== "needlework").map((r) => r.rate));
    out[reader] = { order: order.join(" "), needlework: own < best ? "ahead" : own === best ? "tied" : "behind" };
  }
  return out;
}

/**
 * Per HTTP client (the careful reader): which clients' failures a framework turns into something
 * the model can act on. Printed by `pnpm peer-audit --by-client`, before the summary line.
 *
 * @example
 * ```ts
 * for (const line of formatByClient(report)) console.log(line);
 * ```
 */
export function formatByClient(report: PeerAuditReport): string[] {
  const lines = [
    "Per HTTP client, careful reader (silent failures, writes landed, false alarms):",
    "",
    `| client | ${frameworksIn(report).join(" | ")} |`,
    `| --- | ${frameworksIn(report)
      .map(() => "---")
      .join(" | ")} |`,
  ];
  for (const client of CLIENTS) {
    const cells = frameworksIn(report).map((f) => {
      const t = tally(select(report, f, "careful").filter((r) => r.plan.client === client));
      return t.runs === 0 ? "-" : `${pct(t.silentFailures, t.runs)}%, ${t.landed}/${t.writes}, ${t.falseAlarms}`;
    });
    lines.push(`| ${client} | ${cells.join(" | ")} |`);
  }
  return lines;
}

/**
 * The report: per framework and reader, then per scenario, then the summary line last.
 *
 * @example
 * ```ts
 * formatPeerAudit(await runPeerAudit(24)).at(-1); // "peer audit: silent failures (careful/hurried/flag) AI SDK ..."
 * ```
 */
export function formatPeerAudit(report: PeerAuditReport): string[] {
  const frameworks = frameworksIn(report);
  const lines: string[] = [
    `Per framework and reader (${report.runs} runs each, seed ${report.seed}, ${report.rows[0]?.plan.writes.length ?? 0} parallel writes a run):`,
    "",
    "| framework | reader | silent failures | writes landed | duplicate writes | false alarms | runs flagged | steps to recovery |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const f of frameworks) {
    for (const reader of READERS) {
      const t = tally(select(report, f, reader));
      const steps = t.recovered === 0 ? "-" : (t.recoverySteps / t.recovered).toFixed(2);
      lines.push(
        `| ${f} | ${reader} | ${pct(t.silentFailures, t.runs)}% | ${t.landed}/${t.writes} | ${t.duplicates} | ${t.falseAlarms} | ${t.flagged} | ${steps} |`,
      );
    }
  }
  lines.push(
    "",
    "Application level (second table): silent failures left after each framework's documented check (AI SDK `tool-error` parts, LangChain `ToolMessage.status`, the OpenAI Agents SDK's fixed error text, needlework's run status), and runs whose model reported a failure although every write landed once:",
    "",
    "| framework | reader | silent after the check | model false alarms |",
    "| --- | --- | --- | --- |",
  );
  for (const f of frameworks)
    for (const reader of READERS) {
      const t = tally(select(report, f, reader));
      lines.push(`| ${f} | ${reader} | ${pct(t.silentAfterCheck, t.runs)}% | ${t.modelFalseAlarms} |`);
    }
  lines.push(
    "",
    "Per scenario (silent failures careful/hurried/flag; the other columns summed over the three readers):",
    "",
    "| scenario | framework | runs | silent failures | writes landed | duplicate writes | false alarms |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const scenario of SCENARIOS) {
    for (const f of frameworks) {
      const rows = select(report, f, undefined, scenario);
      if (rows.length === 0) continue;
      const t = tally(rows);
      lines.push(
        `| ${scenario} | ${f} | ${t.runs / READERS.length} | ${silentTriple(report, f, scenario)} | ${t.landed}/${t.writes} | ${t.duplicates} | ${t.falseAlarms} |`,
      );
    }
  }
  lines.push("", "Ranking (silent failures, fewest first; needlework against the best peer):", "");
  for (const [reader, r] of Object.entries(ranking(report)))
    lines.push(`- ${reader}: ${r.order} (needlework ${r.needlework})`);
  const figures = frameworks.map((f) => `${f} ${silentTriple(report, f)}`).join(", ");
  lines.push("", `peer audit: silent failures (careful/hurried/flag) ${figures} (${report.runs} runs each)`);
  return lines;
}
