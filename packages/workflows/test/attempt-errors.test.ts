// Each retried attempt's code stays on the outcome (`metadata.attemptErrors`) and in the journal, so
// the inspector can show a call that failed after several attempts attempt by attempt.
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { container } from "tsyringe";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { InMemoryRunStore, ScriptedChatClient, usingAgentFramework } from "../src/index.js";

class HttpError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

let failures: number[] = [];

@AgentFunctionGroup()
class Lookups {
  @AgentFunction({
    description: "Looks a customer up.",
    input: z.object({ id: z.string().describe("Customer id.") }),
    readOnly: true,
    idempotent: true,
  })
  lookup({ id }: { id: string }) {
    const status = failures.shift();
    if (status !== undefined) throw new HttpError(status);
    return { id };
  }
}

/** A fresh stack per test: its circuit breaker counts no other test's failures. */
const build = () =>
  usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(Lookups)
    .usingResilience({ retry: { baseDelayMs: 1, maxAttempts: 3 } })
    .usingToolResultMiddleware()
    .buildAgentFactory();
let factory = build();
beforeEach(() => {
  factory = build();
});

describe("each attempt's error code", () => {
  it("is kept in order on an outcome that succeeded after retries", async () => {
    failures = [503, 429];
    const outcome = await factory.tools.invoke({ name: "lookup", arguments: { id: "c1" } });
    expect(outcome.status).toBe("ok");
    expect(outcome.metadata.attemptErrors).toEqual(["UPSTREAM_UNAVAILABLE", "RATE_LIMITED"]);
  });

  it("lists the retried attempts of a call that failed in the end (its own code is the outcome's)", async () => {
    failures = [503, 500, 500];
    const outcome = await factory.tools.invoke({ name: "lookup", arguments: { id: "c1" } });
    expect(outcome.errorCode).toBe("UPSTREAM_ERROR");
    expect(outcome.metadata.attempts).toBe(3);
    expect(outcome.metadata.attemptErrors).toEqual(["UPSTREAM_UNAVAILABLE", "UPSTREAM_ERROR"]);
  });

  it("is absent on a call that passed at once, and journaled with the outcome", async () => {
    failures = [];
    const first = await factory.tools.invoke({ name: "lookup", arguments: { id: "c1" } });
    expect(first.metadata.attemptErrors).toBeUndefined();

    failures = [503];
    const store = new InMemoryRunStore();
    const agent = factory.createAgent({
      name: "lookups",
      instructions: "Look customers up.",
      store,
      chatClient: new ScriptedChatClient([
        { toolCalls: [{ name: "lookup", arguments: { id: "c1" } }] },
        { text: "Found c1." },
      ]),
    });
    await agent.run("Find c1.", { runId: "run-attempts" });
    const journal = await store.journal.read("run-attempts");
    expect(journal?.calls[0]?.outcome?.outcome.metadata).toMatchObject({ attemptErrors: ["UPSTREAM_UNAVAILABLE"] });
  });
});
