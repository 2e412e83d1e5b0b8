// Idempotent only when declared (DESIGN "Idempotent only when declared"): a tool that passes
// ctx.idempotencyKey downstream and declares `idempotent: true` has its landed timeout retried under the
// same key (the service applies it once); reading the key is no declaration, so a tool that only logs
// it is never repeated, and the build says so (NW014).
import { AgentFunction, AgentFunctionGroup, type ToolContext } from "@needlework/core";
import { container } from "tsyringe";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { usingAgentFramework } from "../src/index.js";

/** A CRM that applies each write at most once per key, and whose first answer times out after applying. */
class Crm {
  readonly applied = new Map<string, string>();
  calls = 0;
  write(note: string, key: string | undefined): { id: string } {
    this.calls += 1;
    const id = key ?? `unkeyed-${this.calls}`;
    if (!this.applied.has(id)) this.applied.set(id, note);
    if (this.calls === 1) throw Object.assign(new Error("socket timeout reading the response"), { code: "ETIMEDOUT" });
    return { id };
  }
}

const crm = new Crm();
const input = z.object({ note: z.string().describe("The note.") });

@AgentFunctionGroup()
class NoteTools {
  @AgentFunction({ description: "Posts a note with the call's key.", input, idempotent: true })
  keyed({ note }: { note: string }, ctx: ToolContext) {
    return crm.write(note, ctx.idempotencyKey);
  }

  @AgentFunction({ description: "Posts a note without a key.", input })
  unkeyed({ note }: { note: string }) {
    return crm.write(note, undefined);
  }

  ownTimeoutAttempts = 0;
  @AgentFunction({
    description: "Times out by its own AbortController after the write landed.",
    input,
    idempotent: true,
  })
  async ownTimeout({ note }: { note: string }, ctx: ToolContext) {
    this.ownTimeoutAttempts += 1;
    crm.applied.set(ctx.idempotencyKey, note); // applied once per key, whatever the attempt
    if (this.ownTimeoutAttempts === 1)
      throw Object.assign(new Error("The operation was aborted."), { name: "AbortError" });
    return { id: ctx.idempotencyKey };
  }

  @AgentFunction({ description: "Its own abort, no key.", input })
  async ownTimeoutUnkeyed() {
    throw Object.assign(new Error("The operation was aborted."), { name: "AbortError" });
  }

  @AgentFunction({ description: "Reads the key only to log it.", input, idempotent: false })
  logsKey({ note }: { note: string }, ctx: ToolContext) {
    return crm.write(`${note} ${ctx.idempotencyKey.length}`, undefined);
  }

  @AgentFunction({ description: "Logs the key, declares nothing.", input })
  logsKeyUndeclared({ note }: { note: string }, ctx: ToolContext) {
    log.push(ctx.idempotencyKey);
    return crm.write(note, undefined);
  }
}

const log: string[] = [];

/** A fresh stack per test: its circuit breaker counts no other test's failures. */
const build = () =>
  usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(NoteTools)
    .usingResilience({ retry: { baseDelayMs: 1 } })
    .usingToolResultMiddleware()
    .buildAgentFactory({ printDiagnostics: false });
let factory = build();
beforeEach(() => {
  factory = build();
});

function fresh(): void {
  crm.applied.clear();
  crm.calls = 0;
}

describe("idempotent only when declared", () => {
  it("a tool that declares idempotent: true is retried under the same key after a timeout whose write landed: one write, status ok", async () => {
    fresh();
    const outcome = await factory.tools.invoke({ name: "keyed", arguments: { note: "hello" }, callId: "c1" });
    expect(outcome.status).toBe("ok");
    expect(outcome.metadata.attempts).toBe(2);
    expect([...crm.applied.keys()]).toEqual([outcome.metadata.idempotencyKey]);
  });

  it("a tool that never reads its key is not retried: OUTCOME_UNKNOWN, the model told to check first", async () => {
    fresh();
    const outcome = await factory.tools.invoke({ name: "unkeyed", arguments: { note: "hello" } });
    expect(outcome.errorCode).toBe("OUTCOME_UNKNOWN");
    expect(outcome.retriable).toBe(false);
    expect(crm.calls).toBe(1);
  });

  it("a tool that only logs its key, undeclared, is not retried: its landed effect runs once", async () => {
    fresh();
    const outcome = await factory.tools.invoke({ name: "logsKeyUndeclared", arguments: { note: "hello" } });
    expect(outcome.errorCode).toBe("OUTCOME_UNKNOWN");
    expect(crm.calls).toBe(1);
    expect(crm.applied.size).toBe(1);
  });

  it("the build reports a tool that reads its key without declaring idempotent (NW014), and no other", () => {
    const ids = factory.diagnostics.filter((d) => d.id === "NW014").map((d) => d.tool);
    expect(ids).toEqual(["logsKeyUndeclared"]);
    expect(factory.diagnostics.find((d) => d.id === "NW014")?.message).toContain("declare `idempotent: true`");
  });

  it("`idempotent: false` keeps a tool that reads its key from being retried", async () => {
    fresh();
    const outcome = await factory.tools.invoke({ name: "logsKey", arguments: { note: "hello" } });
    expect(outcome.errorCode).toBe("OUTCOME_UNKNOWN");
    expect(crm.calls).toBe(1);
  });

  it("an AbortError the tool threw itself (node-fetch's own timeout) is a timeout, not a cancellation", async () => {
    fresh();
    const keyed = await factory.tools.invoke({ name: "ownTimeout", arguments: { note: "hi" } });
    expect(keyed.status).toBe("ok");
    expect(keyed.metadata.attempts).toBe(2);
    expect(crm.applied.size).toBe(1);
    const unkeyed = await factory.tools.invoke({ name: "ownTimeoutUnkeyed", arguments: { note: "hi" } });
    expect(unkeyed.errorCode).toBe("OUTCOME_UNKNOWN");
    expect(unkeyed.message).toContain("TIMEOUT");
  });

  it("the caller's own abort still propagates as a cancellation", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      factory.tools.invoke({ name: "ownTimeoutUnkeyed", arguments: { note: "hi" } }, { signal: controller.signal }),
    ).rejects.toThrow();
  });
});
