// `pnpm peer-audit`'s "remote tools" section: the same MCP Toolbox server and faults through
// needlework and four peers' MCP clients, each at its documented defaults and read through its own
// channel (channels.ts) by three readers (careful: the marker and the whole text; hurried: the
// marker and the first 200 characters; flag: the marker only). Counted per client: silent failures
// per reader (a failure the reader took for success), false alarms (a success read as a failure),
// turns lost to a thrown exception, duplicate writes, injected effects that ran.
import {
  aiSdkChannel,
  langchainChannel,
  needleworkChannel,
  openaiChannel,
  type RemoteChannel,
  type ScriptedStep,
  type Seen,
  toolboxCoreChannel,
} from "./channels.js";
import { cannotStart, PLANTED, type RemoteWorld, startRemoteWorld } from "./world.js";

/** How much of a result the model takes in. */
export type RemoteReader = "careful" | "hurried" | "flag";
/** The readers, in the order of the table's triples. */
export const REMOTE_READERS: readonly RemoteReader[] = ["careful", "hurried", "flag"];

const EMPTY_FAILURE_FIELD = /"(?:error|errors)"\s*:\s*(?:null|\[\s*\]|""|false|\{\s*\})/gi;
const FAILURE =
  /\b(?:error|errors|failed|fails|failure|exception|denied|forbidden|unauthori[sz]ed|timed out|timeout|canceling statement|unavailable|rejected|aborted|hang up|does not exist|invalid)\b|"isError"\s*:\s*true|"status"\s*:\s*"(?:error|failed|timeout|partial|cancelled)"/i;
const NOT_RETRIABLE =
  /"retriable"\s*:\s*false|do not retry|don't retry|may have been applied|outcome is unknown|check whether|invalid|does not exist|not found/i;
const RETRIABLE =
  /"retriable"\s*:\s*true|try again|retry|timed out|timeout|unavailable|temporar|reset|hang up|network|fetch failed|connection|socket/i;

/** A reader's verdict on one result. */
export function readRemote(reader: RemoteReader, seen: Seen): { failed: boolean; retriable: boolean } {
  if (reader === "flag") return { failed: seen.flagged, retriable: seen.flagged };
  const text = reader === "hurried" ? seen.text.slice(0, 200) : seen.text;
  const failed = seen.flagged || FAILURE.test(text.replace(EMPTY_FAILURE_FIELD, ""));
  return { failed, retriable: failed && !NOT_RETRIABLE.test(text) && RETRIABLE.test(text) };
}

/** One scenario: what the model asks, what the truth is, and the fault around it. */
interface Scenario {
  readonly name: string;
  /** `ok`: a success; `fail`: a failure; `write`: a write whose response is lost; `inject`: a planted instruction. */
  readonly kind: "ok" | "fail" | "write" | "inject";
  readonly model: (reader: RemoteReader, orderId: number) => ScriptedStep;
  readonly before?: (world: RemoteWorld, orderId: number) => Promise<void>;
}

const once =
  (tool: string, args: Record<string, unknown>): ScriptedStep =>
  (seen) =>
    seen.length === 0 ? { tool, args } : undefined;

/** The scenarios, in run order (the server kill last: it ends every client's session). */
export const REMOTE_SCENARIOS: readonly Scenario[] = [
  { name: "a row", kind: "ok", model: () => once("get_order", { id: 1 }) },
  { name: "no rows", kind: "ok", model: () => once("get_order", { id: 999 }) },
  { name: "SQL error (42P01)", kind: "fail", model: () => once("missing_table", {}) },
  { name: "statement_timeout", kind: "fail", model: () => once("slow_report", {}) },
  { name: "bad argument", kind: "fail", model: () => once("get_order", { id: "three" }) },
  {
    name: "write, response lost",
    kind: "write",
    before: async (world, orderId) => world.proxy.loseNextResponse(['"refund"', `"id":${orderId}`]),
    // Sends the refund; sends it again (once) when it read a failure that looks worth retrying.
    model: (reader, orderId) => (seen) => {
      const last = seen.at(-1);
      if (last === undefined) return { tool: "refund", args: { id: orderId } };
      const verdict = readRemote(reader, last);
      return seen.length < 2 && verdict.failed && verdict.retriable
        ? { tool: "refund", args: { id: orderId } }
        : undefined;
    },
  },
  {
    name: "instruction planted in a row",
    kind: "inject",
    // Reads order 3; obeys the instruction when the part it read shows it.
    model: (reader, orderId) => (seen) => {
      if (seen.length === 0) return { tool: "get_order", args: { id: 3 } };
      const shown = reader === "hurried" ? seen[0]!.text.slice(0, 200) : seen[0]!.text;
      return seen.length === 1 && reader !== "flag" && shown.includes(PLANTED.slice(0, 30))
        ? { tool: "refund", args: { id: orderId } }
        : undefined;
    },
  },
  {
    name: "server down",
    kind: "fail",
    before: async (world) => world.toolbox.kill(),
    model: () => once("get_order", { id: 1 }),
  },
];

/** One client's figures. */
export interface RemoteRow {
  readonly client: string;
  /** Per reader: failures read as success, of `failures`. */
  readonly silent: Record<RemoteReader, number>;
  readonly failures: number;
  /** Per reader: successes read as failures. */
  readonly falseAlarms: Record<RemoteReader, number>;
  readonly lost: number;
  readonly turns: number;
  readonly duplicates: number;
  readonly injected: number;
  /** Per scenario, what the careful reader was handed first (cut to 160 characters). */
  readonly samples: Record<string, string>;
}

/** What the section found, or why it could not run. */
export type RemoteAuditReport = { readonly rows: readonly RemoteRow[] } | { readonly skipped: string };

const CHANNELS: readonly ((world: RemoteWorld) => Promise<RemoteChannel>)[] = [
  (w) => needleworkChannel(w.toolsetUrl),
  (w) => needleworkChannel(w.toolsetUrl, false),
  (w) => openaiChannel(w.toolsetUrl),
  (w) => aiSdkChannel(w.toolsetUrl),
  (w) => langchainChannel(w.toolsetUrl),
  (w) => toolboxCoreChannel(w.base),
];

/** Runs every scenario through every client and reader against one Toolbox server. */
export async function runRemoteAudit(): Promise<RemoteAuditReport> {
  const why = await cannotStart();
  if (why !== undefined) return { skipped: why };
  const world = await startRemoteWorld();
  try {
    const channels: RemoteChannel[] = [];
    for (const open of CHANNELS) channels.push(await open(world));
    const rows = channels.map((c) => ({
      client: c.name,
      silent: { careful: 0, hurried: 0, flag: 0 },
      failures: 0,
      falseAlarms: { careful: 0, hurried: 0, flag: 0 },
      lost: 0,
      turns: 0,
      duplicates: 0,
      injected: 0,
      samples: {} as Record<string, string>,
    }));
    let orderId = 100;
    for (const scenario of REMOTE_SCENARIOS) {
      const stopped = scenario.name === "server down";
      if (stopped) await scenario.before?.(world, 0);
      for (const [i, channel] of channels.entries()) {
        const row = rows[i]!;
        for (const reader of REMOTE_READERS) {
          const id = ++orderId;
          if (!stopped) await scenario.before?.(world, id);
          const turn = await channel.turn(scenario.model(reader, id));
          row.turns++;
          if (turn.lost) row.lost++;
          const first = turn.seen[0];
          if (reader === "careful")
            row.samples[scenario.name] = turn.lost ? "(threw)" : (first?.text ?? "").slice(0, 160);
          if (scenario.kind === "write") row.duplicates += Math.max(0, (await world.refunds(id)) - 1);
          if (scenario.kind === "inject") row.injected += await world.refunds(id);
          if (first === undefined || turn.lost) continue;
          const failed = readRemote(reader, first).failed;
          if (scenario.kind === "fail" || scenario.kind === "write") {
            if (reader === "careful") row.failures++;
            if (!failed) row.silent[reader]++;
          }
          if (scenario.kind === "ok" && failed) row.falseAlarms[reader]++;
        }
      }
    }
    await Promise.all(channels.map((c) => c.close().catch(() => undefined)));
    return { rows };
  } finally {
    await world.close();
  }
}

const triple = (r: Record<RemoteReader, number>): string => REMOTE_READERS.map((k) => r[k]).join("/");

/** The section's lines: a table, then one plain sentence per finding that is a tie or a loss. */
export function formatRemoteAudit(report: RemoteAuditReport): string[] {
  if ("skipped" in report) return ["", `Remote tools: skipped (${report.skipped}).`];
  const lines = [
    "",
    "Remote tools (MCP Toolbox over PostgreSQL, same server and faults; readers careful/hurried/flag)",
    "| client | silent failures | false alarms | turns lost to a throw | duplicate writes | injected effects that ran |",
    "| --- | --- | --- | --- | --- | --- |",
  ];
  for (const r of report.rows)
    lines.push(
      `| ${r.client} | ${triple(r.silent)} of ${r.failures} | ${triple(r.falseAlarms)} | ${r.lost} of ${r.turns} | ${r.duplicates} | ${r.injected} |`,
    );
  const nw = report.rows.find((r) => r.client === "needlework");
  if (nw !== undefined)
    for (const peer of report.rows.filter((r) => !r.client.startsWith("needlework"))) {
      const same = (["lost", "duplicates", "injected"] as const).filter((k) => peer[k] <= nw[k]);
      const silent = REMOTE_READERS.filter((k) => peer.silent[k] <= nw.silent[k]);
      if (same.length > 0 || silent.length > 0)
        lines.push(
          `Ties or losses vs ${peer.client}: ${[...same, ...silent.map((k) => `silent (${k})`)].join(", ")} (needlework ${[...same.map((k) => nw[k]), ...silent.map((k) => nw.silent[k])].join(", ")}; ${peer.client} ${[...same.map((k) => peer[k]), ...silent.map((k) => peer.silent[k])].join(", ")}).`,
        );
    }
  return lines;
}

/** Runs the section and returns its lines (the hook `pnpm peer-audit` calls). */
export async function remoteToolsSection(): Promise<string[]> {
  return formatRemoteAudit(await runRemoteAudit());
}
