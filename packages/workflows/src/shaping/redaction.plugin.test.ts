import {
  AgentFunction,
  AgentFunctionGroup,
  createToolInvoker,
  createToolOutcome,
  formatToolOutcome,
  ToolResult,
  type ToolMiddleware,
} from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { usingAgentFramework } from "../builder/index.js";
import type { PluginContext } from "../plugin.js";
import { countTokens, type RedactionOptions } from "@needlework/shaping";
import { toolResultMiddleware } from "../tool-result/tool-result.middleware.js";
import { redactionPlugin } from "./redaction.plugin.js";
import { truncationPlugin } from "./truncation.plugin.js";

let returned: unknown;
let thrown: unknown;

@AgentFunctionGroup()
class Tools {
  @AgentFunction({ description: "Returns whatever the test sets.", input: z.object({}) })
  returnIt(): unknown {
    return returned;
  }

  @AgentFunction({ description: "Throws whatever the test sets.", input: z.object({}) })
  throwIt(): never {
    throw thrown;
  }
}

/** A plugin's context as the builder gives it, for a stack without any other plugin. */
const context: PluginContext = { container: container.createChildContainer(), tools: [], plugins: [], position: 0 };
const middlewareOf = (options?: RedactionOptions): ToolMiddleware =>
  redactionPlugin(options).createMiddleware!(context)!;
const outside = (options?: RedactionOptions) =>
  createToolInvoker(container.createChildContainer(), {
    functions: [Tools],
    middleware: [middlewareOf(options), toolResultMiddleware()],
  });
const inside = (options?: RedactionOptions) =>
  createToolInvoker(container.createChildContainer(), {
    functions: [Tools],
    middleware: [toolResultMiddleware(), middlewareOf(options)],
  });
const alone = (options?: RedactionOptions) =>
  createToolInvoker(container.createChildContainer(), { functions: [Tools], middleware: [middlewareOf(options)] });

describe("redactionPlugin", () => {
  it("is named redaction and describes its detectors", () => {
    const plugin = redactionPlugin({
      detectors: ["email", "card"],
      patterns: [{ name: "employee_id", pattern: /EMP-[0-9]{6}/g }],
    });
    expect(plugin.name).toBe("redaction");
    expect(plugin.describe!()).toBe("redaction(3 detectors: email, card, employee_id; field names on; 0 allowed)");
  });

  it("validates options when the plugin is made", () => {
    expect(() => redactionPlugin({ detectors: ["mail" as never] })).toThrow(
      /option 'detectors.0' must be one of .*\(got "mail"\)/,
    );
  });

  it("redact() scrubs any value, for dead-letter entries, diagnostics and traces", () => {
    const plugin = redactionPlugin();
    expect(plugin.redact({ call: { arguments: { email: "jane@corp.example", password: "hunter2" } } })).toEqual({
      call: { arguments: { email: "[REDACTED:email]", password: "[REDACTED:secret]" } },
    });
  });

  for (const [where, make] of [
    ["outside the result middleware", outside],
    ["inside the result middleware", inside],
    ["without a result middleware", alone],
  ] as const) {
    it(`scrubs data ${where} and flags REDACTED`, async () => {
      returned = { id: "C-1", email: "jane@corp.example", card: "4111 1111 1111 1111" };
      const outcome = await make().invoke({ name: "returnIt" });
      expect(outcome.status).toBe("ok");
      expect(outcome.data).toEqual({ id: "C-1", email: "[REDACTED:email]", card: "[REDACTED:card]" });
      expect(outcome.metadata.flags).toEqual(["REDACTED"]);
      expect(formatToolOutcome(outcome)).not.toMatch(/jane@|4111/);
    });

    it(`returns a clean result untouched and unflagged ${where}`, async () => {
      returned = { id: "C-1", name: "Jane" };
      const outcome = await make().invoke({ name: "returnIt" });
      // Untouched in content: data is the JSON-safe snapshot taken at settle, not the object itself.
      expect(outcome.data).toEqual(returned);
      expect(outcome.metadata.flags).toBeUndefined();
    });
  }

  it("scrubs message and suggestion of a failure", async () => {
    returned = ToolResult.fail("No account for jane@corp.example", {
      code: "NOT_FOUND",
      suggestion: "Ask jane@corp.example or call +1 415 555 2671.",
    });
    const outcome = await outside().invoke({ name: "returnIt" });
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "NOT_FOUND",
      message: "No account for [REDACTED:email]",
      suggestion: "Ask [REDACTED:email] or call [REDACTED:phone].",
    });
    // Failure texts are scrubbed by core when the outcome is created, before the plugin sees them:
    // the REDACTED flag marks what only usingRedaction() does (data).
    expect(outcome.metadata.flags).toBeUndefined();
  });

  it("scrubs a ToolResult's data when registered inside the result middleware", async () => {
    returned = ToolResult.partial({
      succeeded: [{ id: "1", contact: "a@corp.example" }],
      failed: [{ code: "INVALID", message: "bad token sk-abcdefghijklmnopqrstuvwx" }],
    });
    const outcome = await inside().invoke({ name: "returnIt" });
    expect(outcome.status).toBe("partial");
    expect(JSON.stringify(outcome.data)).not.toMatch(/a@corp|sk-abc/);
  });

  it("scrubs metadata added by other layers but not the invoker's own fields", async () => {
    const addsMetadata: ToolMiddleware = async () =>
      createToolOutcome({ status: "ok", data: 1, metadata: { note: "escalated to jane@corp.example", flags: ["X"] } });
    const invoker = createToolInvoker(container.createChildContainer(), {
      functions: [Tools],
      middleware: [middlewareOf(), addsMetadata],
    });
    const outcome = await invoker.invoke({ name: "returnIt", callId: "call-4155552671" });
    expect(outcome.metadata).toMatchObject({
      note: "escalated to [REDACTED:email]",
      callId: "call-4155552671",
      flags: ["X", "REDACTED"],
    });
  });

  it("lets thrown errors pass through untouched", async () => {
    thrown = new Error("jane@corp.example");
    await expect(alone().invoke({ name: "throwIt" })).rejects.toBe(thrown);
  });

  it("composes with truncation: both flags, secrets gone from the truncated result", async () => {
    returned = Array.from({ length: 500 }, (_, i) => ({ id: `C-${i}`, email: `user${i}@corp.example` }));
    const invoker = createToolInvoker(container.createChildContainer(), {
      functions: [Tools],
      middleware: [
        middlewareOf(),
        truncationPlugin({ maxTokens: 200 }).createMiddleware!(context)!,
        toolResultMiddleware(),
      ],
    });
    const outcome = await invoker.invoke({ name: "returnIt" });
    expect(outcome.metadata.flags).toEqual(["RESULT_TRUNCATED", "REDACTED"]);
    expect(formatToolOutcome(outcome)).not.toContain("@corp.example");
  });

  // Built as a user builds it, so truncation learns from the builder that redaction comes after it.
  const truncatedThen = (options?: RedactionOptions) =>
    usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(Tools)
      .usingToolResultMiddleware()
      .usingTruncation({ maxTokens: 200 })
      .usingRedaction(options)
      .buildAgentFactory({ printDiagnostics: false }).tools;

  it("redacts a truncated result once, on what is kept", async () => {
    // This replacement is matched again by its own pattern: a second redaction would show as [x][x].
    const options = { patterns: [{ name: "ticket", pattern: /T-[0-9]{4}/g, replacement: "T-0000[x]" }] };
    returned = Array.from({ length: 500 }, (_, i) => ({ id: `C-${i}`, ticket: `T-${1000 + i}` }));
    const outcome = await truncatedThen(options).invoke({ name: "returnIt" });
    const text = formatToolOutcome(outcome);
    expect(outcome.metadata.flags).toEqual(["RESULT_TRUNCATED", "REDACTED"]);
    expect(text).toContain("T-0000[x]");
    expect(text).not.toContain("[x][x]");
    expect(text).not.toMatch(/T-1[0-9]{3}/);
  });

  it("keeps a truncated result within its budget after redaction, markers included", async () => {
    // Each address is shorter than its marker, so a cut counted before redaction would grow past the budget.
    returned = Array.from({ length: 500 }, (_, i) => ({ n: i, to: `a${i}@b.io`, cc: `c${i}@d.io` }));
    const outcome = await truncatedThen().invoke({ name: "returnIt" });
    const data = JSON.stringify(outcome.data);
    expect(data).not.toMatch(/@[bd]\.io/);
    expect(data).toContain("[REDACTED:email]");
    expect(countTokens(data)).toBeLessThanOrEqual(200);
    expect(outcome.metadata.truncation?.keptTokens).toBe(countTokens(data));
  });
});
