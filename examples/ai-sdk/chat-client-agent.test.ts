// AiSdkChatClient as a needlework agent's chat client, on each AI SDK major's mock model: here, in a
// package that depends on both, because @needlework/workflows depends on @needlework/ai-sdk (no cycle).
import { AiSdkChatClient, type AiSdkLanguageModel } from "@needlework/ai-sdk";
import { usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { type AiSdkMajor, loadAiSdkMajor } from "../../packages/ai-sdk/test/ai-sdk-majors.js";
import { ShopTools } from "../../packages/ai-sdk/test/shop-tools.js";

const lookup = { toolCalls: [{ id: "call-1", name: "getOrderStatus", input: '{"orderId":"ORD-1"}' }] };

function describeAgentOn(sdk: AiSdkMajor): void {
  describe(`a needlework agent over AiSdkChatClient (AI SDK ${sdk.major} mock, LanguageModel${sdk.spec.toUpperCase()})`, () => {
    const clientOf = (model: object) => new AiSdkChatClient(model as AiSdkLanguageModel);

    it("a needlework agent runs on the model: tool call, outcome back to the model, final answer", async () => {
      const scripted = sdk.scriptedModel([lookup, { text: "ORD-1 has shipped." }], "openai.chat");
      const agent = usingAgentFramework(container.createChildContainer())
        .addAgentFunctions(ShopTools)
        .usingToolResultMiddleware()
        .buildAgentFactory()
        .createAgent({ name: "orders", instructions: "You look up orders.", chatClient: clientOf(scripted.model) });
      const result = await agent.run("Where is ORD-1?");
      expect(result.status).toBe("completed");
      expect(result.calls).toMatchObject([{ tool: "getOrderStatus", status: "ok" }]);
      const toolMessage = scripted.calls()[1]?.prompt.find((m) => m.role === "tool");
      expect(JSON.stringify(toolMessage)).toContain('\\"status\\":\\"shipped\\"');
      expect(result.messages.at(-1)).toMatchObject({ role: "assistant", content: "ORD-1 has shipped." });
    });
  });
}

for (const major of [5, 6, 7] as const) {
  const sdk = await loadAiSdkMajor(major);
  if (sdk) describeAgentOn(sdk);
}
