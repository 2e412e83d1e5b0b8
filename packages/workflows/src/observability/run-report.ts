import type { AgentRunResult, ToolCallRecord } from "@needlework/core/events";
import type { ChatMessage } from "@needlework/core";
import { plural } from "../text/plural.js";

/**
 * Options of {@link formatRunReport}.
 *
 * @example
 * ```ts
 * process.stderr.write(formatRunReport(result, { stream: process.stderr }) + "\n");
 * ```
 */
export interface RunReportOptions {
  /**
   * ANSI colors on or off. Default: on when `stream` is a TTY, unless `NO_COLOR` is set (to
   * anything non-empty); `FORCE_COLOR` (non-empty, not `0`) turns them on for a pipe.
   */
  readonly color?: boolean;
  /** The stream the report will be written to, for the TTY check. Default `process.stdout`. */
  readonly stream?: { readonly isTTY?: boolean };
  /** Longest answer or note text shown, in characters. Default 100. */
  readonly maxTextLength?: number;
}

const STYLES = { bold: "1", dim: "2", red: "31", green: "32", yellow: "33", cyan: "36" } as const;
type Style = keyof typeof STYLES;

function colorWanted(options: RunReportOptions): boolean {
  if (options.color !== undefined) return options.color;
  const env = typeof process === "undefined" ? {} : process.env;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  const stream = options.stream ?? (typeof process === "undefined" ? undefined : process.stdout);
  return stream?.isTTY === true;
}

function statusStyle(status: string): Style {
  if (status === "ok" || status === "completed") return "green";
  if (
    status === "error" ||
    status === "timeout" ||
    status === "escalated" ||
    status === "dead_lettered" ||
    status === "max_iterations"
  )
    return "red";
  return "yellow";
}

function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

function quote(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, Math.max(1, max - 3))}...` : flat);
}

function healthOf(content: string): string | undefined {
  const firstLine = content.split("\n", 1)[0] ?? "";
  if (!firstLine.startsWith("run_health ")) return undefined;
  try {
    const block = JSON.parse(firstLine.slice("run_health ".length)) as Record<string, unknown>;
    return Object.entries(block)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(" ");
  } catch {
    return undefined;
  }
}

/**
 * A compact terminal timeline of one run: each model turn with its tool calls (status, error code,
 * attempts and retries, latency, rollbacks), the `run_health` notes and correction turns the
 * runtime added, the answer, and the final status with its reason, health, `silentFailure` and
 * steps-to-recovery. Colored on a TTY, plain otherwise (and under `NO_COLOR`).
 *
 * @example
 * ```ts
 * const result = await agent.run("Sync contacts c1 to c5.");
 * console.log(formatRunReport(result));
 * ```
 */
export function formatRunReport(result: AgentRunResult, options: RunReportOptions = {}): string {
  const color = colorWanted(options);
  const max = options.maxTextLength ?? 100;
  const paint = (style: Style, text: string): string => (color ? `\u001b[${STYLES[style]}m${text}\u001b[0m` : text);
  const lines: string[] = [];

  const byRound = new Map<number, ToolCallRecord[]>();
  for (const call of result.calls) {
    const list = byRound.get(call.round) ?? [];
    list.push(call);
    byRound.set(call.round, list);
  }
  const tokens = result.usage.totalTokens;
  lines.push(
    `${paint("bold", "run")} ${result.runId} ${paint("dim", "·")} ${paint(statusStyle(result.status), result.status)} ${paint("dim", "·")} ${plural(result.iterations, "turn")} ${paint("dim", "·")} ${plural(result.calls.length, "tool call")}` +
      (tokens > 0 ? ` ${paint("dim", "·")} ${tokens.toLocaleString("en-US")} tokens` : ""),
  );

  const callLines = (calls: readonly ToolCallRecord[]): void => {
    const toolWidth = Math.max(...calls.map((c) => c.tool.length));
    const idWidth = Math.max(...calls.map((c) => c.callId.length));
    for (const call of calls) {
      const marker = call.compensationFor === undefined ? "  " : paint("cyan", "↶ ");
      const status = paint(statusStyle(call.status), call.status.padEnd(9));
      const details: string[] = [];
      if (call.errorCode !== undefined) details.push(paint(statusStyle(call.status), call.errorCode));
      if (call.attempts > 1)
        details.push(paint("yellow", `${call.attempts} attempts (${plural(call.attempts - 1, "retry", "retries")})`));
      if (call.notCalled) details.push(paint("dim", "not called"));
      if (call.compensationFor !== undefined) details.push(paint("cyan", `rolls back ${call.compensationFor}`));
      details.push(paint("dim", formatMs(call.latencyMs)));
      lines.push(
        `  ${marker}${status} ${call.tool.padEnd(toolWidth)}  ${paint("dim", call.callId.padEnd(idWidth))}  ${details.join("  ")}`,
      );
    }
  };

  let turn = 0;
  const shown = new Set<number>();
  const messages: readonly ChatMessage[] = result.messages;
  for (const message of messages) {
    if (message.role === "assistant") {
      turn++;
      const asked = message.toolCalls?.length ?? 0;
      const calls = byRound.get(turn) ?? [];
      if (asked === 0) {
        lines.push(`${paint("bold", `turn ${turn}`)}  answer ${quote(message.content ?? "", max)}`);
        continue;
      }
      lines.push(
        `${paint("bold", `turn ${turn}`)}  ${plural(asked, "tool call")}${message.content ? `  says ${quote(message.content, max)}` : ""}`,
      );
      if (calls.length > 0) {
        callLines(calls);
        shown.add(turn);
      } else if (result.status === "awaiting_approval") {
        const pending = result.pendingApprovals.map((p) => `${p.tool} (${p.callId})`).join(", ");
        lines.push(`  ${paint("yellow", "paused")}  awaiting approval: ${pending}`);
      }
    } else if (message.role === "user" && message.kind === "run_health") {
      const health = healthOf(message.content);
      if (health !== undefined)
        lines.push(
          `  ${paint("dim", "↳")} run_health ${paint(health.includes("blocking_failure=true") ? "red" : "yellow", health)}`,
        );
    } else if (message.role === "user" && message.kind === "correction") {
      lines.push(
        `  ${paint("dim", "↳")} ${paint("yellow", "correction")} ${quote(message.content.split("\n", 1)[0] ?? "", max)}`,
      );
    }
  }
  // Calls of rounds the conversation does not show (a checkpoint from an older version, say).
  for (const [round, calls] of byRound) {
    if (shown.has(round)) continue;
    lines.push(`${paint("bold", `turn ${round}`)}`);
    callLines(calls);
  }

  const { health } = result;
  lines.push(`${paint("bold", "result")} ${paint(statusStyle(result.status), result.status)}`);
  if ("reason" in result) lines.push(`  reason  ${result.reason}`);
  lines.push(
    `  health  ok ${health.tools_ok} · failed ${health.tools_failed} · not called ${health.tools_not_called} · ${health.blocking_failure ? paint("red", "blocking failure") : paint("green", "nothing blocking")}`,
  );
  const recoveries = result.recoveries.length;
  const steps =
    result.stepsToRecovery === undefined
      ? "none"
      : `${Number(result.stepsToRecovery.toFixed(2))} (${plural(recoveries, "recovery", "recoveries")})`;
  lines.push(`  silentFailure ${result.silentFailure ? paint("red", "yes") : "no"} · stepsToRecovery ${steps}`);
  return lines.join("\n");
}
