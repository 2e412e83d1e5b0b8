import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup, ScriptedChatClient } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { usingAgentFramework } from "../src/builder/agent-framework.builder.js";

// A sparse array of length 2^32-1 is one object holding one item: every walk over a result (the
// failure detector, the snapshot, truncation, redaction, the envelope) is bounded, so such a value
// costs what its items cost, not four billion reads.
function sparse(): unknown[] {
  const list: unknown[] = [];
  list.length = 2 ** 32 - 1;
  list[7] = { id: "r7", ok: false, error: { code: "QUOTA_EXCEEDED" } };
  return list;
}

@AgentFunctionGroup()
class SparseTools {
  @AgentFunction({ description: "Exports rows.", input: z.object({}), effects: "none" })
  exportRows(): unknown {
    return { results: sparse() };
  }

  @AgentFunction({ description: "Lists rows.", input: z.object({}), effects: "none" })
  listRows(): unknown {
    return sparse();
  }
}

const stacks = {
  documented: () =>
    usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(SparseTools)
      .usingResilience()
      .usingToolResultMiddleware()
      .buildAgentFactory({ printDiagnostics: false }),
  shaped: () =>
    usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(SparseTools)
      .usingResilience()
      .usingToolResultMiddleware()
      .usingRedaction()
      .usingTruncation({ maxTokens: 500 })
      .buildAgentFactory({ printDiagnostics: false }),
};

describe("a sparse array of length 2^32-1 in a result", () => {
  for (const [label, stack] of Object.entries(stacks))
    for (const name of ["exportRows", "listRows"])
      it(`${label} stack, ${name}: a run ends within the time bound, the failed item named`, async () => {
        const started = performance.now();
        const model = new ScriptedChatClient([{ toolCalls: [{ name, arguments: {} }] }, { text: "Row r7 failed." }]);
        const result = await stack()
          .createAgent({ name: "export", instructions: "Export.", chatClient: model })
          .run("export");
        expect(performance.now() - started).toBeLessThan(15_000); // unbounded, the detector alone read 2^32-1 indexes (minutes)
        expect(result.calls[0]).toMatchObject({ status: "partial" });
        const text = model.requests[1]!.messages.find((m) => m.role === "tool")!.content;
        expect(text.slice(0, 200)).toContain("QUOTA_EXCEEDED");
      }, 30_000);
});
