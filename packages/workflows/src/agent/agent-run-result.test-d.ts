import type { ChatUsage } from "@needlework/core";
import { describe, expectTypeOf, it } from "vitest";
import type {
  AgentRunResult,
  AgentRunResultBase,
  AgentRunStatus,
  AwaitingApprovalRunResult,
  CompletedRunResult,
  RunHealth,
  StoppedRunResult,
  ToolCallRecord,
} from "../index.js";
import type { AgentCheckpoint, PendingApproval } from "./approvals/checkpoint.js";

declare const result: AgentRunResult;

describe("AgentRunResult types", () => {
  it("is the union of its three variants, which cover every status exactly once", () => {
    expectTypeOf<AgentRunResult>().toEqualTypeOf<CompletedRunResult | AwaitingApprovalRunResult | StoppedRunResult>();
    expectTypeOf<AgentRunResult["status"]>().toEqualTypeOf<AgentRunStatus>();
    expectTypeOf<CompletedRunResult["status"]>().toEqualTypeOf<"completed" | "completed_with_failures">();
    expectTypeOf<AwaitingApprovalRunResult["status"]>().toEqualTypeOf<"awaiting_approval">();
    expectTypeOf<StoppedRunResult["status"]>().toEqualTypeOf<
      "escalated" | "dead_lettered" | "max_iterations" | "budget_exhausted" | "stalled" | "cancelled"
    >();
    expectTypeOf<AgentRunResult>().toExtend<AgentRunResultBase>();
  });

  it("reads the shared fields without narrowing", () => {
    expectTypeOf(result.status).toEqualTypeOf<AgentRunStatus>();
    expectTypeOf(result.runId).toEqualTypeOf<string>();
    expectTypeOf(result.text).toEqualTypeOf<string>();
    expectTypeOf(result.calls).toEqualTypeOf<readonly ToolCallRecord[]>();
    expectTypeOf(result.health).toEqualTypeOf<RunHealth>();
    expectTypeOf(result.silentFailure).toEqualTypeOf<boolean>();
    expectTypeOf(result.stepsToRecovery).toEqualTypeOf<number | undefined>();
    expectTypeOf(result.iterations).toEqualTypeOf<number>();
    expectTypeOf(result.usage).toEqualTypeOf<ChatUsage>();
  });

  it("narrows on status to the fields that status guarantees", () => {
    if (result.status === "awaiting_approval") {
      expectTypeOf(result).toEqualTypeOf<AwaitingApprovalRunResult>();
      expectTypeOf(result.checkpoint).toEqualTypeOf<AgentCheckpoint>();
      expectTypeOf(result.pendingApprovals).toEqualTypeOf<readonly PendingApproval[]>();
    }
    if (result.status === "escalated" || result.status === "stalled") {
      expectTypeOf(result).toEqualTypeOf<StoppedRunResult>();
      expectTypeOf(result.reason).toEqualTypeOf<string>();
    }
    if (result.status === "completed") {
      expectTypeOf(result).toEqualTypeOf<CompletedRunResult>();
      expectTypeOf(result.output).toEqualTypeOf<unknown>();
      // @ts-expect-error a completed run has no reason
      void result.reason;
      // @ts-expect-error nor a checkpoint
      void result.checkpoint;
    }
    switch (result.status) {
      case "completed":
      case "completed_with_failures":
        expectTypeOf(result).toEqualTypeOf<CompletedRunResult>();
        break;
      case "awaiting_approval":
        expectTypeOf(result).toEqualTypeOf<AwaitingApprovalRunResult>();
        break;
      default:
        expectTypeOf(result).toEqualTypeOf<StoppedRunResult>();
        expectTypeOf(result.reason).toEqualTypeOf<string>();
    }
    if ("reason" in result) expectTypeOf(result).toEqualTypeOf<StoppedRunResult>();
  });

  it("refuses a status-specific field without narrowing", () => {
    // @ts-expect-error only a stopped run has a reason: narrow on status first
    void result.reason;
    // @ts-expect-error only a paused run has a checkpoint
    void result.checkpoint;
    // @ts-expect-error only a paused run has pending approvals
    void result.pendingApprovals;
    // @ts-expect-error only a completed run has an output
    void result.output;
  });

  it("refuses a result whose status lacks the fields it guarantees", () => {
    const base = {} as Omit<AgentRunResultBase, "status">;
    const stopped: AgentRunResult = { ...base, status: "stalled", reason: "the same round repeated" };
    void stopped;
    // @ts-expect-error a stopped run must say why
    const noReason: AgentRunResult = { ...base, status: "stalled" };
    void noReason;
    // @ts-expect-error a paused run must carry its checkpoint and pending approvals
    const noCheckpoint: AgentRunResult = { ...base, status: "awaiting_approval" };
    void noCheckpoint;
  });
});
