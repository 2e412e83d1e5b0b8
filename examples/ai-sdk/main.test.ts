import { describe, expect, it } from "vitest";
import { runAiSdkExample } from "./main.js";

describe("examples/ai-sdk", () => {
  it("generateText: the model reads ORDER_NOT_FOUND, then finds the right order; the agent loop does the same over AiSdkChatClient", async () => {
    const lines: string[] = [];
    await runAiSdkExample((line) => lines.push(line));
    expect(lines).toHaveLength(5);
    expect(lines[0]).toContain('"error_code":"ORDER_NOT_FOUND"');
    expect(lines[1]).toContain('"status":"ok"');
    expect(lines[2]).toBe("answer: Order ORD-12345 has shipped with DHL.");
    expect(lines[3]).toBe(
      "agent over AiSdkChatClient: completed_with_failures, getOrderStatus=error, getOrderStatus=ok",
    );
    expect(lines[4]).toBe("answer: Order ORD-12345 has shipped with DHL.");
  });
});
