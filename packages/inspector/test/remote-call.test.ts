// A remote tool's call (connectMcpServer from @needlework/mcp) shows its server beside it: the journal
// keeps `metadata.server` on the outcome, and the run's view passes it (the name only) to the page.
import type { JournaledRun } from "@needlework/durable";
import { describe, expect, it } from "vitest";
import { runView } from "../src/run-view.js";

const run: JournaledRun = {
  runId: "run_remote",
  agent: "support",
  instructions: "",
  input: "Order 1?",
  startedAt: new Date(0).toISOString(),
  turns: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "shop_get_order", arguments: { id: 1 } }],
      },
    },
  ],
  calls: [
    {
      callId: "c1",
      tool: "shop_get_order",
      arguments: { id: 1 },
      idempotencyKey: "run_remote:c1",
      outcome: {
        callId: "c1",
        outcome: { status: "ok", retriable: false, metadata: { attempts: 1, latencyMs: 3, server: "shop" } },
        formatted: "{}",
      },
    },
  ],
};

describe("the run view of a remote call", () => {
  it("names the server the call ran on", () => {
    const result = runView(run).events.find((e) => e.type === "tool-result");
    expect(result).toMatchObject({ callId: "c1", outcome: { status: "ok", server: "shop", attempts: 1 } });
  });
});
