import { AgentFunction, AgentFunctionGroup, hooks, type ToolMiddleware, TransientError } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentFrameworkPlugin } from "../plugin.js";
import { AgentFrameworkBuildError } from "./build-error.js";
import { usingAgentFramework } from "./agent-framework.builder.js";

let failuresLeft = 0;
let calls = 0;

@AgentFunctionGroup()
class FlakyTools {
  @AgentFunction({
    description: "Fails twice with a transient error, then succeeds.",
    input: z.object({ id: z.string().describe("Record id.") }),
    idempotent: true,
  })
  fetchRecord({ id }: { id: string }) {
    calls++;
    if (failuresLeft-- > 0) throw new TransientError("upstream hiccup with secret detail");
    return { id, ok: true };
  }
}

@AgentFunctionGroup()
class BadlyDescribedTools {
  @AgentFunction({
    name: "bad.name",
    description: "Takes a JSON string.",
    input: z.object({ payload: z.string().describe("The order as a JSON string."), other: z.number() }),
  })
  take() {
    return 1;
  }
}

const builder = () => usingAgentFramework(container.createChildContainer()).addAgentFunctions(FlakyTools);

describe("usingAgentFramework", () => {
  it("with resilience inside, a flaky idempotent tool succeeds on attempt 3 and the model never sees the failures", async () => {
    failuresLeft = 2;
    calls = 0;
    const factory = builder()
      .usingResilience({ retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 } })
      .usingToolResultMiddleware()
      .buildAgentFactory();
    const outcome = await factory.tools.invoke({ name: "fetchRecord", arguments: { id: "r1" } });
    expect(outcome).toMatchObject({ status: "ok", data: { id: "r1", ok: true }, metadata: { attempts: 3 } });
    expect(calls).toBe(3);
    expect(factory.diagnostics.filter((d) => d.id === "NW001")).toEqual([]);
    expect(factory.formatOutcome(outcome)).not.toContain("hiccup");
  });

  it("with the order reversed, reports NW001 and the failure reaches the model unretried", async () => {
    failuresLeft = 2;
    calls = 0;
    const factory = builder()
      .usingToolResultMiddleware()
      .usingResilience({ retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 } })
      .buildAgentFactory();
    expect(factory.diagnostics).toContainEqual(
      expect.objectContaining({ id: "NW001", severity: "warning", plugin: "tool-result" }),
    );
    const outcome = await factory.tools.invoke({ name: "fetchRecord", arguments: { id: "r1" } });
    expect(outcome.status).toBe("error");
    expect(calls).toBe(1);
  });

  it("strict turns warnings into a build error that lists them", () => {
    const build = () => builder().usingToolResultMiddleware().usingResilience().buildAgentFactory({ strict: true });
    expect(build).toThrow(AgentFrameworkBuildError);
    expect(build).toThrow(/NW001/);
  });

  it("reports provider-rejected names, undescribed parameters and JSON-string parameters", () => {
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(BadlyDescribedTools)
      .buildAgentFactory();
    const ids = factory.diagnostics.map((d) => `${d.id}:${d.tool}`);
    expect(ids).toEqual(expect.arrayContaining(["NW002:bad.name", "NW003:bad.name", "NW004:bad.name"]));
  });

  it("reports a plugin registered twice (NW005)", () => {
    const factory = builder().usingResilience().usingResilience().usingToolResultMiddleware().buildAgentFactory();
    expect(factory.diagnostics).toContainEqual(expect.objectContaining({ id: "NW005", plugin: "resilience" }));
  });

  it("wraps in registration order: first nearest the tool, last outermost; tool-scoped inside", async () => {
    const order: string[] = [];
    const tag = (name: string): AgentFrameworkPlugin => ({
      name,
      createMiddleware: () => async (_call, next) => {
        order.push(`>${name}`);
        const value = await next();
        order.push(`<${name}`);
        return value;
      },
    });
    failuresLeft = 0;
    const factory = builder()
      .usingPlugin(tag("inner"))
      .usingPlugin(tag("middle"))
      .usingPlugin(tag("outer"))
      .buildAgentFactory();
    await factory.tools.invoke({ name: "fetchRecord", arguments: { id: "x" } });
    expect(order).toEqual([">outer", ">middle", ">inner", "<inner", "<middle", "<outer"]);
    expect(factory.pipeline.map((s) => s.name)).toEqual(["outer", "middle", "inner", "tool-middleware", "tool"]);
    expect(factory.describePipeline().split("\n")[0]).toContain("(outermost)");
  });

  it("usingMiddleware takes wrap-style middleware and hooks, first entry outermost", async () => {
    const order: string[] = [];
    const wrap: ToolMiddleware = async (_call, next) => {
      order.push("wrap");
      return next();
    };
    const hook = hooks({ beforeCall: () => void order.push("hook") });
    failuresLeft = 0;
    await builder()
      .usingMiddleware(wrap, hook)
      .buildAgentFactory()
      .tools.invoke({ name: "fetchRecord", arguments: { id: "x" } });
    expect(order).toEqual(["wrap", "hook"]);
  });

  it("refuses to build without tools, and rejects malformed plugins", () => {
    expect(() => usingAgentFramework(container.createChildContainer()).buildAgentFactory()).toThrow(
      /No agent functions/,
    );
    expect(() => builder().usingPlugin({} as AgentFrameworkPlugin)).toThrow(/non-empty `name`/);
    expect(() => builder().usingMiddleware()).toThrow(/one or more middleware/);
  });

  it("without the result middleware a tool exception rejects invoke (Needlr's default)", async () => {
    failuresLeft = 1;
    await expect(
      builder()
        .buildAgentFactory()
        .tools.invoke({ name: "fetchRecord", arguments: { id: "x" } }),
    ).rejects.toThrow(TransientError);
  });
});
