// Every run writes to a journal; without a store it is the run's own record in memory, which must
// go with the run: an agent that runs many runs keeps no journal of a finished one.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { ChatUsage } from "@needlework/core";
import { describe, expect, it } from "vitest";
import { harness } from "../../../test/agent-fixtures.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("the in-memory journal of a run without a store", () => {
  it("is dropped when the run ends: what it recorded by reference is collected", async () => {
    const h = harness();
    const recorded: WeakRef<ChatUsage>[] = [];
    // Each turn's usage is a fresh object the run's journal records by reference (nothing else keeps it).
    const usage = (): ChatUsage => {
      const made = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
      recorded.push(new WeakRef(made));
      return made;
    };
    const { agent } = h.agent([
      () => ({ toolCalls: [{ name: "lookupOrder", arguments: { orderId: "o1" } }], usage: usage() }),
      () => ({ text: "Found it.", usage: usage() }),
    ]);
    const result = await agent.run("Where is o1?");
    expect(result.status).toBe("completed");
    expect(recorded).toHaveLength(2);
    for (let i = 0; i < 5 && recorded.some((r) => r.deref() !== undefined); i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    expect(recorded.map((r) => r.deref())).toEqual([undefined, undefined]);
    // The run itself is still readable: only the journal went.
    expect(result.usage).toMatchObject({ totalTokens: 4 });
  });
});
