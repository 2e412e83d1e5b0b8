import { container as rootContainer } from "tsyringe";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentFunction,
  AgentFunctionGroup,
  createToolInvoker,
  createToolOutcome,
  hooks,
  ToolError,
  ToolResult,
  type ToolContext,
  type ToolMiddleware,
  type ToolOutcome,
} from "./index.js";

/** Everything that happened, in order: middleware layers, hooks and tool bodies write here. */
const log: string[] = [];
const contexts: ToolContext[] = [];
beforeEach(() => {
  log.length = 0;
  contexts.length = 0;
});

/** A wrap-style middleware that records when it enters and leaves. */
const layer =
  (name: string): ToolMiddleware =>
  async (_call, next) => {
    log.push(`${name}:before`);
    const result = await next();
    log.push(`${name}:after`);
    return result;
  };

const toolScoped = [layer("tool-1"), layer("tool-2")];

@AgentFunctionGroup()
class OrderTools {
  @AgentFunction({
    description: "Looks up an order.",
    input: z.object({ orderId: z.string().regex(/^ORD-\d+$/) }),
    middleware: toolScoped,
  })
  getOrderStatus({ orderId }: { orderId: string }, ctx: ToolContext): unknown {
    log.push(`body:${orderId}`);
    contexts.push(ctx);
    return { orderId, requestId: ctx.items.get("requestId") ?? null, tenant: ctx.items.get("tenant") ?? null };
  }

  @AgentFunction({ description: "Fails unexpectedly.", input: z.object({}) })
  explode(): never {
    log.push("body:explode");
    throw new TypeError("connection string postgres://admin:pw@db");
  }

  @AgentFunction({ description: "Records its context.", input: z.object({}) })
  record(_args: Record<string, never>, ctx: ToolContext): number {
    log.push(`body:attempt${ctx.attempt}`);
    contexts.push(ctx);
    if (ctx.attempt < 2) throw new Error("first attempt fails");
    return ctx.attempt;
  }
}

const make = (middleware: ToolMiddleware[] = []) =>
  createToolInvoker(rootContainer.createChildContainer(), { functions: [OrderTools], middleware });

describe("middleware order", () => {
  it("runs agent-level middleware outside tool-scoped middleware, first entry outermost", async () => {
    const outcome = await make([layer("agent-1"), layer("agent-2"), layer("agent-3")]).invoke({
      name: "getOrderStatus",
      arguments: { orderId: "ORD-1" },
    });
    expect(outcome.status).toBe("ok");
    expect(log).toEqual([
      "agent-1:before",
      "agent-2:before",
      "agent-3:before",
      "tool-1:before",
      "tool-2:before",
      "body:ORD-1",
      "tool-2:after",
      "tool-1:after",
      "agent-3:after",
      "agent-2:after",
      "agent-1:after",
    ]);
  });

  it("runs tool-scoped middleware only for its own tool", async () => {
    await make([layer("agent")])
      .invoke({ name: "explode" })
      .catch(() => undefined);
    expect(log).toEqual(["agent:before", "body:explode"]);
  });

  it("lets middleware short-circuit the tool; the returned value becomes the outcome", async () => {
    const cached: ToolMiddleware = async () => ({ orderId: "ORD-1", cached: true });
    const outcome = await make([cached]).invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(outcome).toMatchObject({
      status: "ok",
      data: { orderId: "ORD-1", cached: true },
      metadata: { tool: "getOrderStatus" },
    });
    expect(log).toEqual([]);
  });

  it("keeps an outcome a middleware returns, filling in the call's metadata", async () => {
    const deny: ToolMiddleware = async () =>
      createToolOutcome({ status: "error", errorCode: "APPROVAL_DENIED", message: "A human declined this call." });
    const outcome = await make([deny]).invoke(
      { name: "getOrderStatus", arguments: { orderId: "ORD-1" }, callId: "c1" },
      { runId: "r1" },
    );
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "APPROVAL_DENIED",
      metadata: { tool: "getOrderStatus", callId: "c1", attempts: 1, idempotencyKey: "r1:c1" },
    });
  });

  it("gives middleware the tool's descriptor and validated arguments", async () => {
    const seen: unknown[] = [];
    const inspect: ToolMiddleware = async (call, next) => {
      seen.push([
        call.name,
        call.tool.methodName,
        call.tool.options.description,
        call.arguments,
        call.callId,
        call.runId,
      ]);
      return next();
    };
    await make([inspect]).invoke(
      { name: "getOrderStatus", arguments: '{"orderId":"ORD-9"}', callId: "c9" },
      { runId: "r9" },
    );
    expect(seen).toEqual([
      ["getOrderStatus", "getOrderStatus", "Looks up an order.", { orderId: "ORD-9" }, "c9", "r9"],
    ]);
  });
});

describe("hooks()", () => {
  const recorder = (name: string, extra: Parameters<typeof hooks>[0] = {}) =>
    hooks({
      beforeCall: (call) => {
        log.push(`${name}:beforeCall`);
        return extra.beforeCall?.(call);
      },
      afterCall: (call, result) => {
        log.push(`${name}:afterCall`);
        return extra.afterCall?.(call, result);
      },
      onError: (call, error) => {
        log.push(`${name}:onError`);
        return extra.onError?.(call, error);
      },
    });

  it("runs beforeCall in list order and afterCall in reverse", async () => {
    await make([recorder("a"), recorder("b"), recorder("c")]).invoke({
      name: "getOrderStatus",
      arguments: { orderId: "ORD-1" },
    });
    expect(log).toEqual([
      "a:beforeCall",
      "b:beforeCall",
      "c:beforeCall",
      "tool-1:before",
      "tool-2:before",
      "body:ORD-1",
      "tool-2:after",
      "tool-1:after",
      "c:afterCall",
      "b:afterCall",
      "a:afterCall",
    ]);
  });

  it("runs onError in reverse, and rethrows the original error when no hook recovers", async () => {
    const invoke = make([recorder("a"), recorder("b")]).invoke({ name: "explode" });
    await expect(invoke).rejects.toThrow(TypeError);
    expect(log).toEqual(["a:beforeCall", "b:beforeCall", "body:explode", "b:onError", "a:onError"]);
  });

  it("uses an onError recovery value as the result; outer hooks then see a result, not an error", async () => {
    const recover = recorder("inner", {
      onError: () => ToolResult.fail("Search is down", { code: "SEARCH_DOWN", transient: true }),
    });
    const outcome = await make([recorder("outer"), recover]).invoke({ name: "explode" });
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "SEARCH_DOWN",
      retriable: true,
      message: "Search is down",
    });
    expect(log).toEqual([
      "outer:beforeCall",
      "inner:beforeCall",
      "body:explode",
      "inner:onError",
      "inner:afterCall",
      "outer:afterCall",
    ]);
  });

  it("lets afterCall replace the result", async () => {
    const outcome = await make([hooks({ afterCall: (_call, result) => ({ wrapped: result }) })]).invoke({
      name: "getOrderStatus",
      arguments: { orderId: "ORD-1" },
    });
    expect(outcome.data).toEqual({ wrapped: { orderId: "ORD-1", requestId: null, tenant: null } });
  });

  it("lets beforeCall rewrite the arguments, which are validated again", async () => {
    const redirect = hooks({ beforeCall: () => ({ orderId: "ORD-6" }) });
    const suffix = hooks({ beforeCall: (call) => ({ orderId: `${String(call.arguments.orderId)}0` }) });
    const outcome = await make([redirect, suffix]).invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(outcome.data).toMatchObject({ orderId: "ORD-60" });
    expect(log).toContain("body:ORD-60");
  });

  it("refuses an invalid rewrite with an INVALID_ARGUMENTS ToolError before the tool runs", async () => {
    const broken = hooks({ beforeCall: () => ({ orderId: 42, debug: true }) });
    const error: unknown = await make([broken])
      .invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" }, callId: "c3" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({
      code: "INVALID_ARGUMENTS",
      toolName: "getOrderStatus",
      callId: "c3",
      transient: false,
      message:
        "Arguments rewritten by middleware are invalid for tool 'getOrderStatus': (root): unknown field 'debug' (remove it); orderId: expected string, received number.",
    });
    expect(log).toEqual([]);
  });

  it("keeps the arguments when beforeCall returns nothing", async () => {
    const outcome = await make([hooks({ beforeCall: () => undefined })]).invoke({
      name: "getOrderStatus",
      arguments: { orderId: "ORD-2" },
    });
    expect(outcome.data).toMatchObject({ orderId: "ORD-2" });
  });
});

describe("ToolContext", () => {
  it("hands the tool the items middleware set, and those the caller passed", async () => {
    const requestId = hooks({ beforeCall: (call) => void call.items.set("requestId", "req-1") });
    const outcome = await make([requestId]).invoke(
      { name: "getOrderStatus", arguments: { orderId: "ORD-1" } },
      { items: new Map([["tenant", "acme"]]) },
    );
    expect(outcome.data).toEqual({ orderId: "ORD-1", requestId: "req-1", tenant: "acme" });
  });

  it("gives callId, runId, attempt 1, a signal and an idempotency key", async () => {
    const outcome = await make().invoke(
      { name: "getOrderStatus", arguments: { orderId: "ORD-1" }, callId: "call-42" },
      { runId: "run-7" },
    );
    const [ctx] = contexts;
    expect(ctx).toMatchObject({ callId: "call-42", runId: "run-7", attempt: 1, idempotencyKey: "run-7:call-42" });
    expect(ctx!.signal).toBeInstanceOf(AbortSignal);
    expect(ctx!.signal.aborted).toBe(false);
    expect(outcome.metadata).toMatchObject({
      tool: "getOrderStatus",
      callId: "call-42",
      attempts: 1,
      idempotencyKey: "run-7:call-42",
    });
    expect(outcome.metadata.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("generates ids when the caller gives none", async () => {
    const a = await make().invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    const b = await make().invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(a.metadata.callId).toMatch(/^call_/);
    expect(a.metadata.callId).not.toBe(b.metadata.callId);
    expect(contexts[0]!.runId).toMatch(/^run_/);
  });

  it("keeps the idempotency key stable across attempts of one call", async () => {
    const retryOnce: ToolMiddleware = async (call, next) => {
      try {
        return await next();
      } catch {
        call.attempt += 1;
        return next();
      }
    };
    const outcome: ToolOutcome = await make([retryOnce]).invoke({ name: "record", callId: "c1" }, { runId: "r1" });
    expect(outcome).toMatchObject({ status: "ok", data: 2, metadata: { attempts: 2, idempotencyKey: "r1:c1" } });
    expect(log).toEqual(["body:attempt1", "body:attempt2"]);
    expect(contexts.map((c) => c.idempotencyKey)).toEqual(["r1:c1", "r1:c1"]);
  });

  it("gives the tool the signal middleware set for the attempt", async () => {
    const attempt = new AbortController();
    const perAttempt: ToolMiddleware = async (call, next) => {
      call.signal = attempt.signal;
      return next();
    };
    await make([perAttempt]).invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(contexts[0]!.signal).toBe(attempt.signal);
  });
});

describe("invoke: failures and cancellation", () => {
  it("rejects with the tool's own exception when no result middleware is installed", async () => {
    const error: unknown = await make()
      .invoke({ name: "explode" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain("postgres://");
  });

  it("rejects with an AbortError when the signal is already aborted, and runs nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const invoker = make([layer("agent")]);
    const error: unknown = await invoker
      .invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } }, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "AbortError" });
    expect(
      await invoker.invoke({ name: "nope" }, { signal: controller.signal }).catch((e: unknown) => (e as Error).name),
    ).toBe("AbortError");
    expect(log).toEqual([]);
  });

  it("rejects with the abort reason when the caller cancels during the call, even if middleware swallowed it", async () => {
    const controller = new AbortController();
    const swallow: ToolMiddleware = async (_call, next) => {
      controller.abort();
      try {
        return await next();
      } catch {
        throw new Error("wrapped");
      }
    };
    const cancelling = make([swallow]);
    const error: unknown = await cancelling
      .invoke({ name: "explode" }, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "AbortError" });
  });

  it("tells observers about every outcome, and ignores an observer that throws", async () => {
    const seen: string[] = [];
    const invoker = createToolInvoker(rootContainer.createChildContainer(), {
      functions: [OrderTools],
      observers: [
        () => {
          throw new Error("observer bug");
        },
        (outcome, info) => void seen.push(`${info.name}:${outcome.status}:${outcome.errorCode ?? "-"}`),
      ],
    });
    await invoker.invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    await invoker.invoke({ name: "getOrderStatus", arguments: { orderId: 1 } });
    await invoker.invoke({ name: "nope" });
    expect(seen).toEqual(["getOrderStatus:ok:-", "getOrderStatus:error:INVALID_ARGUMENTS", "nope:error:UNKNOWN_TOOL"]);
  });
});
