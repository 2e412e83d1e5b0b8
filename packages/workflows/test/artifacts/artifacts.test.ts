import "reflect-metadata";
import { countTokens } from "@needlework/shaping";
import { InMemoryArtifactStore, InMemoryRunStore } from "@needlework/durable";
import { describe, expect, it } from "vitest";
import { usingAgentFramework } from "@needlework/workflows";
import { PLANTED_CARD, ReportTools, ROW_COUNT, pagingModel } from "./artifact-fixtures.js";

const PREVIEW_TOKENS = 500;
/** The truncation plugin's default budget: each page's. */
const PAGE_TOKENS = 2000;

function factoryWith(store: InMemoryArtifactStore) {
  return usingAgentFramework()
    .addAgentFunctions(ReportTools)
    .usingToolResultMiddleware()
    .usingTruncation()
    .usingRedaction()
    .usingArtifacts({ store })
    .buildAgentFactory({ printDiagnostics: false });
}

describe("usingArtifacts: a 10,000-row result", () => {
  it("costs the model's first read at most the preview budget, and paging reads every row exactly once", async () => {
    const artifacts = new InMemoryArtifactStore();
    const runs = new InMemoryRunStore();
    const seen: number[] = [];
    const model = pagingModel(seen);
    const agent = factoryWith(artifacts).createAgent({
      name: "analyst",
      instructions: "Read every order.",
      chatClient: model,
      store: runs,
      maxIterations: 1000,
      functionGroups: ["reports"],
    });
    const result = await agent.run("How many orders?");
    expect(result.text).toBe(`Read ${ROW_COUNT} rows.`);
    expect(seen).toEqual(Array.from({ length: ROW_COUNT }, (_, i) => i));

    // Every tool message the model read: the stored result's envelope and each page, within the budget.
    const toolMessages = model.requests.at(-1)!.messages.filter((m) => m.role === "tool");
    expect(toolMessages.length).toBeGreaterThan(2);
    expect(countTokens(toolMessages[0]!.content)).toBeLessThanOrEqual(PREVIEW_TOKENS);
    for (const message of toolMessages.slice(1)) expect(countTokens(message.content)).toBeLessThanOrEqual(PAGE_TOKENS);
    const first = JSON.parse(toolMessages[0]!.content);
    expect(first.artifact).toMatchObject({ items: ROW_COUNT });
    expect(first.artifact.schema).toMatchObject({ type: "array", minItems: ROW_COUNT, maxItems: ROW_COUNT });
    expect(first.metadata.flags).toContain("ARTIFACT_STORED");

    // Redacted before it was stored: the planted card is in no stored byte.
    const [stored] = await artifacts.list(result.runId);
    const content = (await artifacts.get(result.runId, stored!.id))!.content;
    expect(content).not.toContain(PLANTED_CARD);
    expect(content).toContain("[REDACTED:card]");

    // The journal keeps references, never the bytes: each call's record under 4 KB.
    const journaled = await runs.journal.read(result.runId);
    expect(journaled!.calls.length).toBe(toolMessages.length);
    for (const call of journaled!.calls) expect(Buffer.byteLength(JSON.stringify(call))).toBeLessThan(4096);
    expect(journaled!.calls[0]!.outcome!.outcome.artifact?.id).toBe(stored!.id);
  });

  it("answers another run's artifact id NOT_FOUND", async () => {
    const artifacts = new InMemoryArtifactStore();
    const factory = factoryWith(artifacts);
    const mine = await factory.tools.invoke({ name: "orders", arguments: {} }, { runId: "run_mine" });
    expect(mine.artifact?.id).toMatch(/^[0-9a-f]{64}$/);
    const read = (runId: string) =>
      factory.tools.invoke(
        { name: "read_artifact", arguments: { id: mine.artifact!.id, offset: 0, limit: 5 } },
        { runId },
      );
    const theirs = await read("run_theirs");
    expect(theirs).toMatchObject({ status: "error", errorCode: "NOT_FOUND" });
    expect(JSON.stringify(theirs.data ?? null)).not.toContain("customer");
    const own = await read("run_mine");
    expect(own.data).toMatchObject({ offset: 0, total: ROW_COUNT });
    expect((own.data as { items: unknown[] }).items).toHaveLength(5);
  });

  it("leaves small results alone, and publishes read_artifact to every agent", async () => {
    const factory = factoryWith(new InMemoryArtifactStore());
    const small = await factory.tools.invoke({ name: "total", arguments: {} });
    expect(small.artifact).toBeUndefined();
    expect(small.data).toEqual({ total: 42 });
    expect(factory.tools.definitions.map((d) => d.name)).toContain("read_artifact");
  });

  it("reports a wrong order as NW013, and still redacts before storing", async () => {
    const artifacts = new InMemoryArtifactStore();
    const factory = usingAgentFramework()
      .addAgentFunctions(ReportTools)
      .usingToolResultMiddleware()
      .usingArtifacts({ store: artifacts })
      .usingRedaction()
      .buildAgentFactory({ printDiagnostics: false });
    expect(factory.diagnostics.map((d) => d.id)).toContain("NW013");
    const outcome = await factory.tools.invoke({ name: "orders", arguments: {} }, { runId: "run_1" });
    const content = (await artifacts.get("run_1", outcome.artifact!.id))!.content;
    expect(content).not.toContain(PLANTED_CARD);
  });
});
