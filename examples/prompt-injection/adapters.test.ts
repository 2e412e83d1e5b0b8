import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { AiSdkChatClient, toAiSdkToolApproval, toAiSdkTools } from "@needlework/ai-sdk";
import { createMcpServer } from "@needlework/mcp";
import { OpenAIChatClient } from "@needlework/openai";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ChatCompletionsServer,
  completion,
  startChatCompletionsServer,
} from "../../packages/openai/test/chat-completions-server.js";
import { buildAssistant } from "./main.js";

// The injected order in the newsletter: an attacker's IBAN and amount.
const ATTACK = { iban: "LT121000011101001000", amount: 4900 };

type Step = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;
const usage: Step["usage"] = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};
const toolCall = (toolCallId: string, toolName: string, input: unknown): Step => ({
  content: [{ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});
const answer = (text: string): Step => ({
  content: [{ type: "text", text }],
  finishReason: { unified: "stop", raw: "stop" },
  usage,
  warnings: [],
});

let server: ChatCompletionsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the injection policy through every adapter", () => {
  it("AI SDK tools: the injected transfer stops at the SDK's approval request with the policy's reason; it runs only approved", async () => {
    const { factory, ledger } = buildAssistant("arguments");
    const steps = [
      toolCall("t1", "readInbox", {}),
      toolCall("t2", "sendMoney", ATTACK),
      answer("Done."),
      answer("Ok."),
    ];
    let step = 0;
    const model = new MockLanguageModelV4({ doGenerate: async () => steps[step++]! });
    const options = {
      model,
      tools: toAiSdkTools(factory.tools, { runId: "conversation-1" }),
      toolApproval: toAiSdkToolApproval(factory.tools, { runId: "conversation-1" }),
      stopWhen: stepCountIs(5),
    };
    const first = await generateText({ ...options, prompt: "Summarize my inbox." });
    expect(first.steps[0]?.toolResults[0]?.output).toMatchObject({ status: "ok", provenance: "untrusted" });
    const request = first.content.find((part) => part.type === "tool-approval-request");
    expect(request).toMatchObject({
      toolCall: { toolName: "sendMoney", input: ATTACK },
      reason: expect.stringContaining("its arguments 'iban', 'amount' came from that content"),
    });
    expect(ledger.transfers).toEqual([]);
    const decide = (approved: boolean) =>
      generateText({
        ...options,
        messages: [
          { role: "user", content: "Summarize my inbox." },
          ...first.response.messages,
          { role: "tool", content: [{ type: "tool-approval-response", approvalId: request!.approvalId, approved }] },
        ],
      });
    await decide(false);
    expect(ledger.transfers).toEqual([]);
    await decide(true);
    expect(ledger.transfers).toEqual([ATTACK]);
  });

  it("AI SDK model through needlework's loop (AiSdkChatClient): the injected transfer pauses for approval", async () => {
    const steps = [toolCall("t1", "readInbox", {}), toolCall("t2", "sendMoney", ATTACK), answer("Done.")];
    let step = 0;
    const model = new MockLanguageModelV4({ doGenerate: async () => steps[step++]! });
    const { agent, ledger } = buildAssistant("arguments", { chatClient: new AiSdkChatClient(model) });
    const result = await agent.run("Summarize my inbox.");
    expect(result.status).toBe("awaiting_approval");
    if (result.status !== "awaiting_approval") return;
    expect(result.pendingApprovals[0]).toMatchObject({ tool: "sendMoney", untrustedArguments: ["iban", "amount"] });
    expect(ledger.transfers).toEqual([]);
  });

  it("MCP: calls of one session share its provenance; the injected transfer is refused", async () => {
    const { factory, ledger } = buildAssistant("deny");
    const mcp = createMcpServer(factory.tools, { runId: ({ sessionId }) => sessionId ?? "stdio-session" });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverTransport);
    const client = new Client({ name: "injection-test", version: "1.0.0" });
    await client.connect(clientTransport);
    try {
      const inbox = await client.callTool({ name: "readInbox", arguments: {} });
      expect(JSON.stringify(inbox.content)).toContain('\\"provenance\\":\\"untrusted\\"');
      const transfer = await client.callTool({ name: "sendMoney", arguments: ATTACK });
      expect(transfer.isError).toBe(true);
      expect(JSON.stringify(transfer.content)).toContain("UNTRUSTED_CONTEXT");
      expect(ledger.transfers).toEqual([]);
    } finally {
      await client.close();
      await mcp.close();
    }
  });

  it("MCP: a call the policy would put to a person is asked through the server's approval path, with the reason", async () => {
    const { factory, ledger } = buildAssistant("arguments");
    const asked: (string | undefined)[] = [];
    let answer = false;
    const mcp = createMcpServer(factory.tools, {
      runId: "session-a",
      approve: (call) => {
        asked.push(call.reason);
        return answer;
      },
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverTransport);
    const client = new Client({ name: "injection-test", version: "1.0.0" });
    await client.connect(clientTransport);
    try {
      await client.callTool({ name: "readInbox", arguments: {} });
      const refused = await client.callTool({ name: "sendMoney", arguments: ATTACK });
      expect(JSON.stringify(refused.content)).toContain("UNTRUSTED_CONTEXT");
      expect(ledger.transfers).toEqual([]);
      answer = true;
      const approved = await client.callTool({ name: "sendMoney", arguments: ATTACK });
      expect(approved.isError).toBe(false);
      expect(ledger.transfers).toEqual([ATTACK]);
      expect(asked).toEqual([
        "Text a third party wrote entered this session before this call, and its arguments 'iban', 'amount' came from it.",
        "Text a third party wrote entered this session before this call, and its arguments 'iban', 'amount' came from it.",
      ]);
      // A transfer the user could have named (values from no untrusted text) is not put to anyone.
      await client.callTool({ name: "sendMoney", arguments: { iban: "GB33BUKB20201555555555", amount: 80 } });
      expect(asked).toHaveLength(2);
    } finally {
      await client.close();
      await mcp.close();
    }
  });

  it("the OpenAI client: the agent loop pauses the injected transfer for approval and the model read the mark", async () => {
    server = await startChatCompletionsServer([
      { body: completion({ id: "c1", toolCalls: [{ id: "call_1", name: "readInbox", arguments: "{}" }] }) },
      {
        body: completion({
          id: "c2",
          toolCalls: [{ id: "call_2", name: "sendMoney", arguments: JSON.stringify(ATTACK) }],
        }),
      },
    ]);
    const { factory, ledger } = buildAssistant("approve");
    const agent = factory.createAgent({
      name: "assistant",
      instructions: "You help with mail and money.",
      chatClient: new OpenAIChatClient({ baseURL: server.baseURL, apiKey: "test", model: "gpt-test", maxRetries: 0 }),
    });
    const result = await agent.run("Summarize my inbox.");
    expect(result.status).toBe("awaiting_approval");
    if (result.status !== "awaiting_approval") return;
    expect(result.pendingApprovals).toEqual([
      expect.objectContaining({ tool: "sendMoney", reason: expect.stringContaining("'readInbox'") }),
    ]);
    expect(ledger.transfers).toEqual([]);
    const sent = JSON.stringify(server.requests[1]!.body);
    expect(sent).toContain('\\"provenance\\":\\"untrusted\\"');
  });
});
