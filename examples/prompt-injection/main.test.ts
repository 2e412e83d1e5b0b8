import { describe, expect, it } from "vitest";
import { runPromptInjectionExample } from "./main.js";

describe("examples/prompt-injection", () => {
  it("stops the injected transfer under every mode and lets the user's own transfer run under arguments", async () => {
    const lines: string[] = [];
    await runPromptInjectionExample((line) => lines.push(line));
    expect(lines).toMatchInlineSnapshot(`
      [
        "arguments: awaiting_approval, transfers made: 0",
        "  approval asked for sendMoney({"iban":"DE44500105175407324931","amount":250}); flagged: iban, amount",
        "  why: Untrusted content (from 'readInbox') entered this run before 'sendMoney', a tool with external effects, and its arguments 'iban', 'amount' came from that content.",
        "  readInbox -> ok (untrusted)",
        "deny: completed_with_failures, transfers made: 0",
        "  readInbox -> ok (untrusted)",
        "  sendMoney -> UNTRUSTED_CONTEXT",
        "  sendMoney -> UNTRUSTED_CONTEXT",
        "user-named transfer: awaiting_approval, transfers made: 1",
      ]
    `);
  });
});
