import {
  AgentFunction,
  AgentFunctionGroup,
  createToolInvoker,
  formatToolOutcome,
  ToolResult,
  type ToolMiddleware,
} from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { PluginContext } from "../plugin.js";
import { countTokens, type TruncationOptions } from "@needlework/shaping";
import { toolResultMiddleware } from "../tool-result/tool-result.middleware.js";
import { truncationPlugin } from "./truncation.plugin.js";

let returned: unknown;
let thrown: unknown;

const bigList = () =>
  Array.from({ length: 3000 }, (_, i) => ({
    id: `ORD-${i}`,
    status: "open",
    note: "Leave the parcel at the side door. ".repeat(3),
  }));

@AgentFunctionGroup()
class Tools {
  @AgentFunction({ description: "Returns whatever the test sets.", input: z.object({}) })
  returnIt(): unknown {
    return returned;
  }

  @AgentFunction({
    description: "Returns whatever the test sets, with a small budget.",
    input: z.object({}),
    maxResultTokens: 100,
  })
  small(): unknown {
    return returned;
  }

  @AgentFunction({ description: "Throws whatever the test sets.", input: z.object({}) })
  throwIt(): never {
    throw thrown;
  }
}

/** A plugin's context as the builder gives it, for a stack without any other plugin. */
const context: PluginContext = { container: container.createChildContainer(), tools: [], plugins: [], position: 0 };
const middlewareOf = (options?: TruncationOptions): ToolMiddleware =>
  truncationPlugin(options).createMiddleware!(context)!;

/** Truncation outside the result middleware: the recommended order. */
const outside = (options?: TruncationOptions) =>
  createToolInvoker(container.createChildContainer(), {
    functions: [Tools],
    middleware: [middlewareOf(options), toolResultMiddleware()],
  });
/** Truncation inside the result middleware: it sees raw values. */
const inside = (options?: TruncationOptions) =>
  createToolInvoker(container.createChildContainer(), {
    functions: [Tools],
    middleware: [toolResultMiddleware(), middlewareOf(options)],
  });
/** Truncation alone, no result middleware at all. */
const alone = (options?: TruncationOptions) =>
  createToolInvoker(container.createChildContainer(), { functions: [Tools], middleware: [middlewareOf(options)] });

describe("truncationPlugin", () => {
  it("is named truncation and describes its options", () => {
    const plugin = truncationPlugin({ maxTokens: 1500 });
    expect(plugin.name).toBe("truncation");
    expect(plugin.describe!()).toBe(
      "truncation(maxTokens: 1500, encoding: o200k_base, maxListItems: 20, maxMessageTokens: 500)",
    );
  });

  it("validates options when the plugin is made", () => {
    expect(() => truncationPlugin({ maxTokens: 0 })).toThrow(/maxTokens/);
    expect(() => truncationPlugin({ encoding: "gpt2" as never })).toThrow(/encoding/);
  });

  for (const [where, make] of [
    ["outside the result middleware", outside],
    ["inside the result middleware", inside],
    ["without a result middleware", alone],
  ] as const) {
    it(`truncates data ${where}, flags RESULT_TRUNCATED and records the token counts`, async () => {
      returned = bigList();
      const outcome = await make({ maxTokens: 500 }).invoke({ name: "returnIt" });
      expect(outcome.status).toBe("ok");
      expect(outcome.metadata.flags).toEqual(["RESULT_TRUNCATED"]);
      const data = outcome.data as unknown[];
      expect(data.at(-1)).toMatchObject({ truncated: true });
      expect(countTokens(JSON.stringify(data))).toBe(outcome.metadata.truncation!.keptTokens);
      expect(outcome.metadata.truncation!.keptTokens).toBeLessThanOrEqual(500);
      expect(outcome.metadata.truncation!.originalTokens).toBeGreaterThan(20_000);
      expect(JSON.parse(formatToolOutcome(outcome))).toMatchObject({
        metadata: { flags: ["RESULT_TRUNCATED"], truncation: { kept_tokens: outcome.metadata.truncation!.keptTokens } },
      });
    });

    it(`returns a result that fits untouched and unflagged ${where}`, async () => {
      returned = { id: "ORD-1", status: "shipped" };
      const outcome = await make().invoke({ name: "returnIt" });
      // Untouched in content: data is the JSON-safe snapshot taken at settle, not the object itself.
      expect(outcome.data).toEqual(returned);
      expect(outcome.metadata.flags).toBeUndefined();
      expect(outcome.metadata.truncation).toBeUndefined();
    });
  }

  it("hands a raw value that fits back unchanged to the layer outside it", async () => {
    returned = { id: "ORD-1" };
    const seen: unknown[] = [];
    const spy: ToolMiddleware = async (_call, next) => {
      const value = await next();
      seen.push(value);
      return value;
    };
    await createToolInvoker(container.createChildContainer(), {
      functions: [Tools],
      middleware: [spy, middlewareOf()],
    }).invoke({ name: "returnIt" });
    expect(seen[0]).toBe(returned);
  });

  it("unwraps a ToolResult it must cut when registered inside the result middleware", async () => {
    returned = ToolResult.fail("Export too large", {
      code: "EXPORT_TOO_LARGE",
      data: bigList(),
      suggestion: "Ask for one page.",
    });
    const outcome = await inside({ maxTokens: 200 }).invoke({ name: "returnIt" });
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "EXPORT_TOO_LARGE",
      message: "Export too large",
      suggestion: "Ask for one page.",
    });
    expect(outcome.metadata.flags).toContain("RESULT_TRUNCATED");
    expect(countTokens(JSON.stringify(outcome.data))).toBeLessThanOrEqual(200);
  });

  it("caps a very long message and suggestion", async () => {
    returned = ToolResult.fail(`Validation failed: ${"field x is invalid; ".repeat(2000)}`, {
      suggestion: "Fix: ".repeat(3000),
    });
    const outcome = await outside({ maxMessageTokens: 50 }).invoke({ name: "returnIt" });
    expect(outcome.message).toMatch(/^Validation failed: field x is invalid;.*…\[truncated: \d+ chars omitted\]$/s);
    expect(countTokens(JSON.stringify(outcome.message))).toBeLessThanOrEqual(50);
    expect(countTokens(JSON.stringify(outcome.suggestion))).toBeLessThanOrEqual(50);
    expect(outcome.metadata.flags).toEqual(["RESULT_TRUNCATED"]);
    expect(outcome).toMatchObject({ status: "error", errorCode: "TOOL_ERROR" });
  });

  it("uses @AgentFunction({ maxResultTokens }) over the plugin's budget", async () => {
    returned = bigList();
    const outcome = await outside({ maxTokens: 2000 }).invoke({ name: "small" });
    expect(outcome.metadata.truncation!.keptTokens).toBeLessThanOrEqual(100);
  });

  it("lets thrown errors pass through untouched", async () => {
    thrown = new RangeError("x".repeat(100_000));
    await expect(alone({ maxTokens: 100 }).invoke({ name: "throwIt" })).rejects.toBe(thrown);
  });

  it("does not mutate the outcome the inner layers returned", async () => {
    returned = bigList();
    let inner: { data?: unknown; metadata: { flags?: string[] } } | undefined;
    const capture: ToolMiddleware = async (_call, next) => {
      const outcome = (await next()) as typeof inner;
      inner = outcome;
      return outcome;
    };
    const invoker = createToolInvoker(container.createChildContainer(), {
      functions: [Tools],
      middleware: [middlewareOf({ maxTokens: 100 }), capture, toolResultMiddleware()],
    });
    await invoker.invoke({ name: "returnIt" });
    expect(inner!.data).toEqual(returned);
    expect(inner!.metadata.flags).toBeUndefined();
  });
});
