import {
  AgentFunction,
  AgentFunctionGroup,
  type ReturnedFailure,
  type ToolOutcome,
  ToolResult,
} from "@needlework/core";
import { container } from "tsyringe";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { failing, legitimate, partial } from "../../../core/src/returned-failure.corpus.js";
import { misses } from "../../../core/src/returned-failure.corpus-apis.js";
import { heldTimers, useFakeTimers } from "../../test/support/fake-timers.js";
import { ScriptedChatClient } from "@needlework/core";
import { usingAgentFramework } from "../builder/agent-framework.builder.js";

/** What the tools of this file return or throw, per call; set by each test. */
let next: (args: Record<string, unknown>, attempt: number) => unknown = () => null;
let calls = 0;

const Contact = z.object({ id: z.string(), email: z.string() });

@AgentFunctionGroup()
class CrmTools {
  @AgentFunction({ description: "Writes a contact.", input: z.object({ contactId: z.string() }) })
  updateContact(args: { contactId: string }, ctx: { attempt: number }): unknown {
    calls++;
    return next(args, ctx.attempt);
  }

  @AgentFunction({
    description: "Writes a contact, safe to repeat.",
    input: z.object({ contactId: z.string() }),
    idempotent: true,
  })
  upsertContact(args: { contactId: string }, ctx: { attempt: number }): unknown {
    calls++;
    return next(args, ctx.attempt);
  }

  @AgentFunction({ description: "Reads test results.", input: z.object({}), failures: "off" })
  testResults(): unknown {
    return next({}, 1);
  }

  @AgentFunction({
    description: "Reads an order; its state REJECTED is a failure.",
    input: z.object({}),
    failures: (value): ReturnedFailure | undefined =>
      (value as { state?: unknown }).state === "REJECTED"
        ? { code: "ORDER_REJECTED", message: "The order was rejected.", retriable: false }
        : undefined,
  })
  readOrder(): unknown {
    return next({}, 1);
  }

  @AgentFunction({
    description: "Searches the logs.",
    input: z.object({ query: z.string().describe("What to look for.") }),
    effects: "none",
  })
  searchLogs(): unknown {
    return next({}, 1);
  }

  @AgentFunction({ description: "Reads a contact.", input: z.object({}), output: Contact })
  readContact(): unknown {
    return next({}, 1);
  }
}

const documentedStack = () =>
  usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(CrmTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .buildAgentFactory();

const truncatedStack = () =>
  usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(CrmTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .usingTruncation({ maxTokens: 300 })
    .buildAgentFactory();

async function settle<T>(promise: Promise<T>): Promise<T> {
  await vi.runAllTimersAsync();
  return promise;
}

beforeEach(() => {
  useFakeTimers();
  calls = 0;
});
afterEach(() => {
  expect(heldTimers()).toBe(0);
  vi.useRealTimers();
});

const invokeWith = async (
  factory: ReturnType<typeof documentedStack>,
  value: unknown,
  name = "updateContact",
): Promise<{ outcome: ToolOutcome; text: string }> => {
  next = () => value;
  const outcome = await settle(
    factory.tools.invoke({ name, arguments: name.endsWith("teContact") ? { contactId: "c1" } : {} }),
  );
  return { outcome, text: factory.formatOutcome(outcome) };
};

describe("returned failures through the documented stack", () => {
  it.each(legitimate.map((c) => [c.name, c.value] as const))("%s stays ok", async (_name, value) => {
    const { outcome } = await invokeWith(documentedStack(), value);
    expect(outcome.status).toBe("ok");
  });

  it.each(failing.map((c) => [c.name, c] as const))(
    "%s is an error the first 200 characters state",
    async (_name, c) => {
      const { outcome, text } = await invokeWith(documentedStack(), c.value);
      expect(outcome).toMatchObject({ status: "error", errorCode: c.code, retriable: c.retriable });
      expect(text.slice(0, 200)).toContain('"status":"error"');
      expect(text.slice(0, 200)).toContain(c.code);
    },
  );

  it.each(partial.map((c) => [c.name, c] as const))(
    "%s is partial, the failed items listed before the data",
    async (_name, c) => {
      const { outcome, text } = await invokeWith(documentedStack(), c.value);
      expect(outcome).toMatchObject({ status: "partial", errorCode: "PARTIAL_FAILURE" });
      expect(outcome.failures?.map((f) => f.index)).toEqual(c.failed.map((f) => f.index));
      const head = text.slice(0, 200);
      expect(head).toContain('"status":"partial"');
      for (const item of c.failed) expect(head).toContain(item.code);
      expect(text.indexOf('"failures"')).toBeLessThan(text.indexOf('"data"'));
    },
  );

  it("a Response 403 from a tool is FORBIDDEN, with no body shown", async () => {
    const { outcome, text } = await invokeWith(
      documentedStack(),
      new Response('{"detail":"token sk_live_abc expired"}', { status: 403 }),
    );
    expect(outcome).toMatchObject({ status: "error", errorCode: "FORBIDDEN", retriable: false });
    expect(outcome.data).toBeUndefined();
    expect(text).not.toContain("sk_live");
  });

  it("the value of a returned failure stays the tool's data; the message is fixed text", async () => {
    const { outcome } = await invokeWith(documentedStack(), {
      ok: false,
      error: "Contact c1 is locked",
      lockedBy: "sync-7",
    });
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "TOOL_ERROR",
      message: "The tool returned a failure. Detail: Contact c1 is locked.",
      data: { ok: false, error: "Contact c1 is locked", lockedBy: "sync-7" },
    });
  });

  it('failures: "off" keeps every returned value as data', async () => {
    const { outcome } = await invokeWith(
      documentedStack(),
      { results: [{ id: "t1", ok: false, error: "expected 1, got 2" }] },
      "testResults",
    );
    expect(outcome.status).toBe("ok");
  });

  it("a detector of the tool's own decides, and nothing else does", async () => {
    const factory = documentedStack();
    expect((await invokeWith(factory, { state: "REJECTED" }, "readOrder")).outcome).toMatchObject({
      status: "error",
      errorCode: "ORDER_REJECTED",
      message: "The order was rejected.",
    });
    expect((await invokeWith(factory, { ok: false }, "readOrder")).outcome.status).toBe("ok");
  });

  it("a bare invoker (no result middleware) reports a returned failure too", async () => {
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(CrmTools)
      .buildAgentFactory();
    const { outcome } = await invokeWith(
      factory,
      new Response(null, { status: 429, headers: { "retry-after": "12" } }),
    );
    expect(outcome).toMatchObject({ status: "error", errorCode: "RATE_LIMITED", retriable: true });
    expect(outcome.metadata.retryAfterMs).toBe(12_000);
  });
});

describe("declared output", () => {
  it("a value that matches is ok", async () => {
    const { outcome } = await invokeWith(documentedStack(), { id: "c1", email: "a@b.example" }, "readContact");
    expect(outcome.status).toBe("ok");
  });

  it("a value that does not match is OUTPUT_INVALID, naming paths and never values", async () => {
    const { outcome, text } = await invokeWith(documentedStack(), { id: 42, mail: "leak@example.com" }, "readContact");
    expect(outcome).toMatchObject({
      status: "error",
      errorCode: "OUTPUT_INVALID",
      retriable: false,
      message: "The tool's result does not match its declared output (id: expected string; email: expected string).",
    });
    expect(text).not.toContain("leak@example.com");
  });

  it("ToolResult.ok is checked too; a returned failure keeps its own code", async () => {
    const factory = documentedStack();
    expect((await invokeWith(factory, ToolResult.ok({ id: "c1" }), "readContact")).outcome.errorCode).toBe(
      "OUTPUT_INVALID",
    );
    expect((await invokeWith(factory, { ok: false, code: "CONTACT_GONE" }, "readContact")).outcome.errorCode).toBe(
      "CONTACT_GONE",
    );
  });
});

describe("resilience and returned failures", () => {
  it("an idempotent tool's 503 Response is retried, and the retry's value is what the model reads", async () => {
    next = (_args, attempt) => (attempt === 1 ? new Response(null, { status: 503 }) : { id: "c1", updated: true });
    const outcome = await settle(
      documentedStack().tools.invoke({ name: "upsertContact", arguments: { contactId: "c1" } }),
    );
    expect(outcome).toMatchObject({ status: "ok", data: { id: "c1", updated: true } });
    expect(calls).toBe(2);
  });

  it("a non-idempotent tool's 502 Response is not retried: the write may have landed", async () => {
    next = () => new Response(null, { status: 502 });
    const outcome = await settle(
      documentedStack().tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } }),
    );
    expect(outcome).toMatchObject({ status: "error", errorCode: "UPSTREAM_UNAVAILABLE", retriable: true });
    expect(calls).toBe(1);
  });

  it("a 429 Response proves nothing was applied: retried for any tool after its Retry-After", async () => {
    const started = Date.now();
    let secondAt = 0;
    next = (_args, attempt) => {
      if (attempt === 2) secondAt = Date.now();
      return attempt === 1
        ? new Response(null, { status: 429, headers: { "retry-after": "2" } })
        : { id: "c1", updated: true };
    };
    const outcome = await settle(
      documentedStack().tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } }),
    );
    expect(outcome.status).toBe("ok");
    expect(calls).toBe(2);
    expect(secondAt - started).toBeGreaterThanOrEqual(2000);
  });

  it("{ ok: false, retriable: true } is retried like ToolResult.fail transient, for any tool", async () => {
    next = (_args, attempt) => (attempt < 3 ? { ok: false, retriable: true } : { ok: true });
    const outcome = await settle(
      documentedStack().tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } }),
    );
    expect(outcome.status).toBe("ok");
    expect(calls).toBe(3);
  });

  it("when attempts run out the model reads the last returned failure", async () => {
    next = () => ({ ok: false, retriable: true, error: "Gateway busy" });
    const outcome = await settle(
      documentedStack().tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } }),
    );
    expect(outcome).toMatchObject({ status: "error", errorCode: "TOOL_ERROR", retriable: true });
    expect(outcome.metadata.attempts).toBe(3);
    expect(calls).toBe(3);
  });

  it("returned 503s open the circuit breaker like thrown ones", async () => {
    next = () => new Response(null, { status: 503 });
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(CrmTools)
      .usingResilience({
        retry: { maxAttempts: 1 },
        circuitBreaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 },
      })
      .usingToolResultMiddleware()
      .buildAgentFactory();
    const call = { name: "updateContact", arguments: { contactId: "c1" } };
    for (let i = 0; i < 2; i++)
      expect((await settle(factory.tools.invoke(call))).errorCode).toBe("UPSTREAM_UNAVAILABLE");
    expect((await settle(factory.tools.invoke(call))).errorCode).toBe("CIRCUIT_OPEN");
    expect(calls).toBe(2);
  });

  it("a partial batch is never retried whole", async () => {
    next = () => ({
      results: [
        { id: "a", status: 201 },
        { id: "b", status: 503 },
      ],
    });
    const outcome = await settle(
      documentedStack().tools.invoke({ name: "upsertContact", arguments: { contactId: "c1" } }),
    );
    expect(outcome.status).toBe("partial");
    expect(calls).toBe(1);
  });
});

describe("failures survive shaping", () => {
  const buried = () => ({
    rows: Array.from({ length: 200 }, (_, i) => ({ id: `row-${i}`, note: "n".repeat(80) })),
    error: { code: "EXPORT_ABORTED", message: "quota exceeded" },
  });
  const buriedItem = () => ({
    results: [
      ...Array.from({ length: 199 }, (_, i) => ({ id: `r${i}`, ok: true, note: "y".repeat(80) })),
      { id: "r199", ok: false, error: { code: "QUOTA_EXCEEDED" } },
    ],
  });

  it("the values are about 20 KB", () => {
    expect(JSON.stringify(buried()).length).toBeGreaterThan(19_000);
    expect(JSON.stringify(buriedItem()).length).toBeGreaterThan(19_000);
  });

  for (const [label, stack] of [
    ["truncation off", documentedStack],
    ["truncation on", truncatedStack],
  ] as const) {
    it(`${label}: an error field at the end of ~20 KB is in the status, the first 200 characters and the data`, async () => {
      const { outcome, text } = await invokeWith(stack(), buried());
      expect(outcome).toMatchObject({ status: "error", errorCode: "EXPORT_ABORTED" });
      expect(text.slice(0, 200)).toContain('"status":"error","error_code":"EXPORT_ABORTED"');
      expect((outcome.data as { error?: unknown }).error).toEqual({
        code: "EXPORT_ABORTED",
        message: "quota exceeded",
      });
    });

    it(`${label}: a failed item at the end of ~20 KB is partial, named first, and kept in the data`, async () => {
      const { outcome, text } = await invokeWith(stack(), buriedItem());
      expect(outcome.status).toBe("partial");
      expect(text.slice(0, 200)).toContain('"status":"partial"');
      expect(text.slice(0, 200)).toContain("QUOTA_EXCEEDED");
      expect(outcome.failures).toEqual([{ index: 199, id: "r199", code: "QUOTA_EXCEEDED", retriable: false }]);
      const kept = (outcome.data as { results: { id?: string; error?: unknown }[] }).results;
      expect(kept.find((item) => item.id === "r199")).toMatchObject({ error: { code: "QUOTA_EXCEEDED" } });
    });
  }

  // A long export whose one failed row is far down: the detector and truncation look at every item,
  // not a first slice of the list.
  const longList = () => ({
    results: Array.from({ length: 5000 }, (_, i) =>
      i === 4321 ? { id: "r4321", ok: false, error: { code: "QUOTA_EXCEEDED" } } : { id: `r${i}`, ok: true },
    ),
  });
  for (const [label, stack] of [
    ["truncation off", documentedStack],
    ["truncation on", truncatedStack],
  ] as const)
    it(`${label}: a failed item at index 4321 of 5,000 is partial and kept in the data`, async () => {
      const { outcome, text } = await invokeWith(stack(), longList());
      expect(outcome.status).toBe("partial");
      expect(text.slice(0, 200)).toContain("QUOTA_EXCEEDED");
      expect(outcome.failures).toEqual([{ index: 4321, id: "r4321", code: "QUOTA_EXCEEDED", retriable: false }]);
      const kept = (outcome.data as { results: { id?: string }[] }).results;
      expect(kept.find((item) => item.id === "r4321")).toMatchObject({ error: { code: "QUOTA_EXCEEDED" } });
    });

  it("truncation on really cuts the value", async () => {
    const { outcome } = await invokeWith(truncatedStack(), buriedItem());
    expect(outcome.metadata.flags).toContain("RESULT_TRUNCATED");
    expect((outcome.data as { results: unknown[] }).results.length).toBeLessThan(200);
  });
});

describe("an agent run over returned failures", () => {
  const writes = {
    toolCalls: ["c1", "c2", "c3"].map((contactId) => ({ name: "updateContact", arguments: { contactId } })),
  };

  it("a returned { ok: false } fails the run's health, and a model claiming success is corrected", async () => {
    next = ({ contactId }) =>
      contactId === "c2" ? { ok: false, error: "Contact is locked" } : { id: contactId, ok: true };
    const factory = documentedStack();
    const model = new ScriptedChatClient([writes, { text: "Sync complete." }, { text: "Sync complete." }]);
    const result = await settle(
      factory.createAgent({ name: "crm", instructions: "Sync contacts.", chatClient: model }).run("sync"),
    );
    expect(result.status).toBe("escalated");
    expect(result.health).toEqual({ tools_ok: 2, tools_failed: 1, tools_not_called: 0, blocking_failure: true });
    expect(result.calls.map((c) => c.status)).toEqual(["ok", "error", "ok"]);
    const health = model.requests[1]!.messages.find((m) => m.role === "user" && m.kind === "run_health");
    expect(health?.content).toContain("1 tool failed");
  });

  it("a partial batch in one result is a failed call of the run", async () => {
    next = () => ({
      results: [
        { id: "a", status: 201 },
        { id: "b", status: 429 },
      ],
    });
    const model = new ScriptedChatClient([
      { toolCalls: [{ name: "updateContact", arguments: { contactId: "batch" } }] },
      { text: "Item a was written; item b was rate limited (RATE_LIMITED) and was not written." },
    ]);
    const result = await settle(
      documentedStack().createAgent({ name: "crm", instructions: "Sync.", chatClient: model }).run("sync"),
    );
    expect(result.status).toBe("completed_with_failures");
    expect(result.calls[0]).toMatchObject({ status: "partial", errorCode: "PARTIAL_FAILURE" });
  });

  it("no false alarm: a run whose every write landed ends completed", async () => {
    next = ({ contactId }) => ({ id: contactId, ok: true, error: null, errors: [] });
    const model = new ScriptedChatClient([writes, { text: "All three contacts synced." }]);
    const result = await settle(
      documentedStack().createAgent({ name: "crm", instructions: "Sync.", chatClient: model }).run("sync"),
    );
    expect(result.status).toBe("completed");
    expect(result.health).toEqual({ tools_ok: 3, tools_failed: 0, tools_not_called: 0, blocking_failure: false });
  });
});

describe("precision before reach, end to end", () => {
  it.each(misses.map((c) => [c.name, c] as const))(
    "a miss the detector leaves is in what the model reads: %s",
    async (_name, c) => {
      const { outcome, text } = await invokeWith(documentedStack(), c.value);
      expect(outcome.status).toBe("ok");
      expect(text).toContain(c.visible);
    },
  );

  it("a read-only log search whose hits carry errors ends its run completed", async () => {
    const hits = legitimate.find((c) => c.name.startsWith("a log search tool's hits"))!.value;
    next = () => hits;
    const model = new ScriptedChatClient([
      { toolCalls: [{ name: "searchLogs", arguments: { query: "billing errors" } }] },
      { text: "Two billing errors in the last hour: a declined card and an upstream timeout." },
    ]);
    const result = await settle(
      documentedStack()
        .createAgent({ name: "ops", instructions: "Answer from the logs.", chatClient: model })
        .run("errors?"),
    );
    expect(result.status).toBe("completed");
    expect(result.calls[0]?.status).toBe("ok");
  });

  it("twelve failure codes in one result: the first 200 characters state the count of each", async () => {
    const codes = ["FORBIDDEN", "TIMEOUT", "NOT_FOUND", "CONFLICT", "RATE_LIMITED"];
    const counts = [5, 4, 1, 1, 1];
    const results = [{ id: "ok-1", ok: true }];
    codes.forEach((code, c) => {
      for (let i = 0; i < counts[c]!; i++) results.push({ id: `${code}-${i}`, ok: false, code } as never);
    });
    const { outcome, text } = await invokeWith(documentedStack(), { results });
    expect(outcome.status).toBe("partial");
    const head = text.slice(0, 200);
    expect(head).toContain("12 failed: FORBIDDEN×5, TIMEOUT×4, NOT_FOUND, CONFLICT, RATE_LIMITED");
  });

  it("twelve errors in a top-level errors list: every code counted in the first 200 characters", async () => {
    const value = failing.find((c) => c.name === "twelve errors with codes in one result")!.value;
    const { text } = await invokeWith(documentedStack(), value);
    expect(text.slice(0, 200)).toContain("12 errors: FORBIDDEN×5, TIMEOUT×4, NOT_FOUND, CONFLICT, RATE_LIMITED");
  });

  it('failures: "jsend" and "graphql" read those formats whatever else the value holds', async () => {
    @AgentFunctionGroup()
    class Formats {
      @AgentFunction({ description: "JSend.", input: z.object({}), failures: "jsend" })
      jsend(): unknown {
        return { status: "error", message: "Database down", requestId: "r-1", region: "eu" };
      }
      @AgentFunction({ description: "GraphQL.", input: z.object({}), failures: "graphql" })
      graphql(): unknown {
        return { data: { contact: null }, errors: [{ path: ["contact"], extensions: { code: "THROTTLED" } }] };
      }
      @AgentFunction({ description: "Default.", input: z.object({}) })
      plain(): unknown {
        return { status: "error", message: "Database down", requestId: "r-1", region: "eu" };
      }
    }
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(Formats)
      .usingResilience()
      .usingToolResultMiddleware()
      .buildAgentFactory({ printDiagnostics: false });
    expect((await settle(factory.tools.invoke({ name: "jsend", arguments: {} }))).status).toBe("error");
    expect((await settle(factory.tools.invoke({ name: "graphql", arguments: {} }))).status).toBe("error");
    expect((await settle(factory.tools.invoke({ name: "plain", arguments: {} }))).status).toBe("ok");
  });
});
