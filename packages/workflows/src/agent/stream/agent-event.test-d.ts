import type { ChatUsage, ToolOutcome } from "@needlework/core";
import { describe, expectTypeOf, it } from "vitest";
import type { Agent } from "../agent.js";
import type { AgentEvent, AgentEventType, AgentRunResult } from "@needlework/core/events";
import type { AgentRunStream } from "./agent-run-stream.js";

declare const agent: Agent;

describe("AgentEvent types", () => {
  it("narrows on type to each event's fields", () => {
    const event = {} as AgentEvent;
    if (event.type === "text-delta") expectTypeOf(event.delta).toEqualTypeOf<string>();
    if (event.type === "tool-result") expectTypeOf(event.outcome).toEqualTypeOf<ToolOutcome>();
    if (event.type === "tool-retry") expectTypeOf(event.errorCode).toEqualTypeOf<string | undefined>();
    if (event.type === "turn-end") expectTypeOf(event.usage).toEqualTypeOf<ChatUsage | undefined>();
    if (event.type === "run-end") expectTypeOf(event.result).toEqualTypeOf<AgentRunResult>();
    expectTypeOf<AgentEventType>().toEqualTypeOf<
      | "run-start"
      | "turn-start"
      | "text-delta"
      | "tool-call"
      | "tool-retry"
      | "tool-result"
      | "run-health"
      | "correction"
      | "approval-required"
      | "turn-end"
      | "run-end"
    >();
  });

  it("agent.stream() is an async iterable of events with a result", () => {
    const stream = agent.stream("hi");
    expectTypeOf(stream).toEqualTypeOf<AgentRunStream>();
    expectTypeOf(stream).toMatchTypeOf<AsyncIterable<AgentEvent>>();
    expectTypeOf(stream.result).toEqualTypeOf<Promise<AgentRunResult>>();
    expectTypeOf(agent.resumeStream).returns.toEqualTypeOf<AgentRunStream>();
  });
});
