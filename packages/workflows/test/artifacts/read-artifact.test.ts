import "reflect-metadata";
import { createToolOutcome } from "@needlework/core";
import { InMemoryArtifactStore } from "@needlework/durable";
import { countTokens } from "@needlework/shaping";
import { usingAgentFramework } from "@needlework/workflows";
import { storeAsArtifact } from "@needlework/workflows/shaping";
import { describe, expect, it } from "vitest";
import { ReportTools } from "./artifact-fixtures.js";

const report = {
  title: "Quarter",
  rows: Array.from({ length: 3_000 }, (_, id) => ({ id, name: `row ${id}` })),
  text: "long text. ".repeat(20_000),
};

describe("read_artifact: paths, objects and text", () => {
  it("pages a list found by a path, an object's members, and text by characters, each within the budget", async () => {
    const store = new InMemoryArtifactStore();
    const factory = usingAgentFramework()
      .addAgentFunctions(ReportTools)
      .usingToolResultMiddleware()
      .usingArtifacts({ store, pageTokens: 400 })
      .buildAgentFactory({ printDiagnostics: false });
    const stored = await storeAsArtifact(createToolOutcome({ status: "ok", data: report }), { store, runId: "run_1" });
    expect(stored.artifact).toMatchObject({ items: 3 });
    expect(stored.artifact!.schema).toMatchObject({
      type: "object",
      properties: { rows: { type: "array", minItems: 3_000 }, text: { type: "string" } },
    });
    const read = (args: Record<string, unknown>) =>
      factory.tools.invoke(
        { name: "read_artifact", arguments: { id: stored.artifact!.id, ...args } },
        { runId: "run_1" },
      );

    for (const path of ["$.rows", "rows", "/rows", '$["rows"]']) {
      const page = await read({ path, offset: 10, limit: 5 });
      expect(page.data).toEqual({ items: report.rows.slice(10, 15), offset: 10, total: 3_000 });
    }
    expect((await read({ path: "rows[7].id", offset: 0, limit: 1 })).data).toEqual({ value: 7 });
    expect((await read({ path: "rows[7].name", offset: 0, limit: 1 })).data).toEqual({
      text: "row 7",
      offset: 0,
      total: 5,
    });
    const members = await read({ offset: 0, limit: 10 });
    expect(members.data).toMatchObject({ offset: 0, total: 3, items: { title: "Quarter" } });
    const text = await read({ path: "text", offset: 11, limit: 1 });
    const { text: part, total } = text.data as { text: string; total: number };
    expect(total).toBe(report.text.length);
    expect(report.text.slice(11).startsWith(part)).toBe(true);
    expect(part.length).toBeGreaterThan(100);
    for (const outcome of [members, text]) expect(countTokens(factory.formatOutcome(outcome))).toBeLessThanOrEqual(400);

    expect(await read({ path: "rows[9999]", offset: 0, limit: 1 })).toMatchObject({
      status: "error",
      errorCode: "INVALID_ARGUMENTS",
    });
    expect(await read({ path: "$..[", offset: 0, limit: 1 })).toMatchObject({ errorCode: "INVALID_ARGUMENTS" });
    expect(await read({ path: "__proto__", offset: 0, limit: 1 })).toMatchObject({ errorCode: "INVALID_ARGUMENTS" });
  });

  it("storeAsArtifact leaves a small outcome as it is", async () => {
    const small = createToolOutcome({ status: "ok", data: { total: 1 } });
    expect(await storeAsArtifact(small, { store: new InMemoryArtifactStore(), runId: "run_1" })).toBe(small);
  });
});
