import { ToolResult } from "@needlework/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpError } from "../../test/agent-fixtures.js";
import { diagnosticsHarness, RETRY_AT_ONCE } from "../../test/diagnostics-fixtures.js";
import { type AgentRunResult, ScriptedChatClient } from "../agent/index.js";
import { formatRunReport } from "./run-report.js";

const ANSI = /\u001b\[[0-9;]*m/;

/** A run with a rollback, retries, a failure, a run_health note, a correction turn and an honest answer. */
async function eventfulRun(): Promise<AgentRunResult> {
  const { world, factory } = diagnosticsHarness((b) => b.usingResilience(RETRY_AT_ONCE).usingToolResultMiddleware());
  world.on("debit", ({ account, amount }) => ({ ok: true, account, amount }));
  world.on("credit", () => ToolResult.fail("Account acc-9 is frozen", { code: "ACCOUNT_FROZEN" }));
  let busy = 2;
  world.on("postNote", () =>
    busy-- > 0 ? ToolResult.fail("busy", { code: "BUSY", transient: true }) : { posted: true },
  );
  world.on("updateContact", ({ contactId }) => {
    if (contactId === "c2") throw new HttpError(403, "denied");
    return { updated: contactId };
  });
  const chatClient = new ScriptedChatClient([
    {
      toolCalls: [
        { id: "call_1_1", name: "debit", arguments: { account: "acc-1", amount: 40 } },
        { id: "call_1_2", name: "credit", arguments: { account: "acc-9", amount: 40 } },
      ],
      usage: { inputTokens: 600, outputTokens: 40, totalTokens: 640 },
    },
    {
      toolCalls: [
        { id: "call_2_1", name: "updateContact", arguments: { contactId: "c1" } },
        { id: "call_2_2", name: "updateContact", arguments: { contactId: "c2" } },
        { id: "call_2_3", name: "postNote", arguments: { note: "synced" } },
      ],
      usage: { inputTokens: 800, outputTokens: 60, totalTokens: 860 },
    },
    { text: "Sync complete.", usage: { inputTokens: 900, outputTokens: 5, totalTokens: 905 } },
    {
      text: "The transfer was rolled back (acc-9 is frozen); c1 was updated, c2 failed with FORBIDDEN.",
      usage: { inputTokens: 950, outputTokens: 25, totalTokens: 975 },
    },
  ]);
  return factory
    .createAgent({ name: "crm-sync", instructions: "Sync.", chatClient })
    .run("Move 40 to acc-9 and sync c1, c2.", { runId: "run_7f3a" });
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("formatRunReport", () => {
  it("prints the run as a timeline: turns, calls with status, retries and rollbacks, run_health, the correction and the result", async () => {
    const result = await eventfulRun();
    const report = formatRunReport(result, { color: false });
    const lines = report.split("\n");
    expect(report).not.toMatch(ANSI);
    expect(lines[0]).toBe("run run_7f3a · completed_with_failures · 4 turns · 6 tool calls · 3,380 tokens");
    expect(lines[1]).toBe("turn 1  2 tool calls");
    expect(lines[2]).toMatch(/^ {4}error {5}debit {6}call_1_1 {7}ROLLED_BACK {2}\d+(\.\d)? ms$/);
    expect(lines[3]).toMatch(/^ {4}error {5}credit {5}call_1_2 {7}ACCOUNT_FROZEN {2}/);
    expect(lines[4]).toMatch(/^ {2}↶ ok {8}undoDebit {2}call_1_1_undo {2}rolls back call_1_1 {2}/);
    expect(lines[5]).toBe("  ↳ run_health tools_ok=0 tools_failed=2 tools_not_called=0 blocking_failure=true");
    expect(lines[6]).toBe("turn 2  3 tool calls");
    expect(lines[7]).toMatch(/^ {4}ok {8}updateContact {2}call_2_1 {2}\d/);
    expect(lines[8]).toMatch(/^ {4}error {5}updateContact {2}call_2_2 {2}FORBIDDEN {2}/);
    expect(lines[9]).toMatch(/^ {4}ok {8}postNote {7}call_2_3 {2}3 attempts \(2 retries\) {2}/);
    expect(lines[10]).toMatch(/^ {2}↳ run_health tools_ok=2 tools_failed=1 /);
    expect(lines[11]).toBe('turn 3  answer "Sync complete."');
    expect(lines[12]).toMatch(/^ {2}↳ correction "Your answer claims success, but/);
    expect(lines[13]).toBe(
      'turn 4  answer "The transfer was rolled back (acc-9 is frozen); c1 was updated, c2 failed with FORBIDDEN."',
    );
    expect(lines.slice(14)).toEqual([
      "result completed_with_failures",
      "  health  ok 2 · failed 3 · not called 0 · blocking failure",
      "  silentFailure no · stepsToRecovery none",
    ]);
  });

  it("shows the reason of a stopped run, pending approvals, and recovery figures; shortens long text", async () => {
    const { world, factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware());
    let failures = 1;
    world.on("updateContact", () => (failures-- > 0 ? ToolResult.fail("locked", { code: "LOCKED" }) : { ok: true }));
    const chatClient = new ScriptedChatClient([
      { toolCalls: [{ name: "updateContact", arguments: { contactId: "c1" } }] },
      { toolCalls: [{ name: "updateContact", arguments: { contactId: "c1" } }] },
      { text: `Updated c1 after one retry. ${"More detail. ".repeat(20)}` },
    ]);
    const recovered = await factory.createAgent({ name: "a", instructions: "", chatClient }).run("go");
    const report = formatRunReport(recovered, { color: false, maxTextLength: 40 });
    expect(report).toContain('turn 3  answer "Updated c1 after one retry. More deta..."');
    const answer = formatRunReport(recovered, { color: false })
      .split("\n")
      .find((l) => l.startsWith("turn 3"))!;
    expect(answer.slice("turn 3  answer ".length)).toHaveLength(102); // 100 characters (the default) in quotes
    expect(answer.endsWith('..."')).toBe(true);
    expect(report).toContain("silentFailure no · stepsToRecovery 1 (1 recovery)");

    const paused = await factory
      .createAgent({
        name: "p",
        instructions: "",
        chatClient: new ScriptedChatClient([
          { toolCalls: [{ id: "call_r", name: "refund", arguments: { orderId: "o1", amount: 5 } }] },
        ]),
      })
      .run("refund o1");
    expect(formatRunReport(paused, { color: false })).toContain("  paused  awaiting approval: refund (call_r)");

    const limited = await factory
      .createAgent({
        name: "l",
        instructions: "",
        maxIterations: 1,
        chatClient: new ScriptedChatClient([{ toolCalls: [{ name: "postNote", arguments: { note: "n" } }] }]),
      })
      .run("go");
    expect(formatRunReport(limited, { color: false })).toMatch(/\n {2}reason {2}Stopped after 1 model turn/);
  });

  it("colors on a TTY, stays plain in a pipe, and respects NO_COLOR and FORCE_COLOR", async () => {
    const result = await eventfulRun();
    vi.stubEnv("NO_COLOR", "");
    vi.stubEnv("FORCE_COLOR", "");
    expect(formatRunReport(result, { stream: { isTTY: true } })).toMatch(ANSI);
    expect(formatRunReport(result, { stream: { isTTY: true } })).toContain("\u001b[31mFORBIDDEN\u001b[0m");
    expect(formatRunReport(result, { stream: { isTTY: false } })).not.toMatch(ANSI);
    expect(formatRunReport(result, { stream: {} })).not.toMatch(ANSI);
    vi.stubEnv("FORCE_COLOR", "1");
    expect(formatRunReport(result, { stream: { isTTY: false } })).toMatch(ANSI);
    vi.stubEnv("NO_COLOR", "1");
    expect(formatRunReport(result, { stream: { isTTY: true } })).not.toMatch(ANSI);
    expect(formatRunReport(result, { stream: { isTTY: false }, color: true })).toMatch(ANSI);
    // Colors change nothing but the escapes.
    expect(formatRunReport(result, { color: true }).replace(/\u001b\[[0-9;]*m/g, "")).toBe(
      formatRunReport(result, { color: false }),
    );
  });
});
