// The deprecated UI-message encoder of @needlework/workflows is @needlework/ai-sdk's, not a copy: one
// encoder, whichever import a user wrote. Its behaviour over real runs is tested where both packages
// meet (examples/ai-sdk/ui-message-stream.test.ts).
import * as aiSdk from "@needlework/ai-sdk";
import * as aiSdkEncoder from "@needlework/ai-sdk/ui-message-stream";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import type * as core from "@needlework/core/events";
import { container } from "tsyringe";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as workflows from "../../index.js";
import type * as streaming from "../../streaming.js";

@AgentFunctionGroup()
class OrderTools {
  @AgentFunction({ description: "Reads an order.", input: z.object({ id: z.string().describe("Order id.") }) })
  getOrder({ id }: { id: string }) {
    return { id, status: "shipped" };
  }
}

describe("the deprecated toUiMessageStream of @needlework/workflows", () => {
  it("is @needlework/ai-sdk's function, the same object from its main entry and its ui-message-stream entry", () => {
    expect(workflows.toUiMessageStream).toBe(aiSdk.toUiMessageStream);
    expect(workflows.toUiMessageStream).toBe(aiSdkEncoder.toUiMessageStream);
    expectTypeOf<streaming.UiMessageChunk>().toEqualTypeOf<aiSdk.UiMessageChunk>();
  });

  it("encodes a run of a workflows agent: the chunks its useChat front end read before", async () => {
    const agent = workflows
      .usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(OrderTools)
      .buildAgentFactory({ printDiagnostics: false })
      .createAgent({
        name: "echo",
        instructions: "Answer.",
        chatClient: new workflows.ScriptedChatClient([
          { toolCalls: [{ name: "getOrder", arguments: { id: "O-1" } }] },
          { text: "O-1 has shipped." },
        ]),
      });
    const events: AsyncIterable<core.AgentEvent> = agent.stream("Hi", { runId: "run_ui" });
    const reader = workflows.toUiMessageStream(events).getReader();
    const types: string[] = [];
    let text = "";
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      if (next.value.type === "text-delta") text += next.value.delta;
      if (types.at(-1) !== next.value.type) types.push(next.value.type);
    }
    expect(text).toBe("O-1 has shipped.");
    // Consecutive chunks of one kind counted once (the scripted model writes its text in pieces).
    expect(types).toEqual([
      "start",
      "start-step",
      "tool-input-available",
      "tool-output-available",
      "finish-step",
      "start-step",
      "text-start",
      "text-delta",
      "text-end",
      "finish-step",
      "finish",
    ]);
  });

  it("re-exports core's run types under the same names: one type, whichever entry it is imported from", () => {
    expectTypeOf<workflows.AgentEvent>().toEqualTypeOf<core.AgentEvent>();
    expectTypeOf<streaming.ToolResultEvent>().toEqualTypeOf<core.ToolResultEvent>();
    expectTypeOf<workflows.AgentRunResult>().toEqualTypeOf<core.AgentRunResult>();
    expectTypeOf<workflows.AgentCheckpoint>().toEqualTypeOf<core.AgentCheckpoint>();
    expectTypeOf<workflows.PendingApproval>().toEqualTypeOf<core.PendingApproval>();
    expectTypeOf<workflows.RunHealth>().toEqualTypeOf<core.RunHealth>();
  });
});
