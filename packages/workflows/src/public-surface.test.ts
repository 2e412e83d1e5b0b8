import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as internal from "./internal.js";
import * as workflows from "./index.js";
import * as testing from "./testing.js";

// Runtime names DESIGN.md promises from `@needlework/workflows` (types are checked by tsc, not here).
const DESIGN_VALUES = [
  "usingAgentFramework",
  "createAgent",
  "ScriptedChatClient",
  "InMemoryDeadLetterQueue",
  "FileDeadLetterQueue",
  "toServerSentEvents",
  "AgentFrameworkBuilder",
  "createToolResultMiddleware",
  "toolResultMiddleware",
  "createResiliencePlugin",
] as const;

const INTERNALS = [
  "parseOptions",
  "nextId",
  "composeMiddleware",
  "ResolvedTruncationOptions",
  "ResolvedRedactionOptions",
  "ResolvedDiagnosticsOptions",
  "UNKNOWN_PROVIDER",
  "SETTLED_RUN_STATUSES",
] as const;

describe("the public surface of @needlework/workflows", () => {
  it.each(DESIGN_VALUES)("exports %s", (name) => {
    expect(workflows).toHaveProperty(name);
    expect((workflows as Record<string, unknown>)[name]).toBeTypeOf("function");
  });

  it.each(INTERNALS)("does not export the internal %s", (name) => {
    expect(Object.keys(workflows)).not.toContain(name);
  });

  it("keeps the old factory names as aliases of the createX() ones", () => {
    expect(workflows.toolResultMiddleware).toBe(workflows.createToolResultMiddleware);
    expect(testing.createChaos).toBeTypeOf("function");
    const faults = testing.chaos({ rate: 0, faults: { exception: true } });
    expect(faults).toBeTypeOf("function");
  });

  it("keeps the main entry to at most 110 names, types included (the rest live on subpaths)", () => {
    const entry = join(dirname(fileURLToPath(import.meta.url)), "index.ts");
    const program = ts.createProgram([entry], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noEmit: true,
      skipLibCheck: true,
      experimentalDecorators: true,
    });
    const checker = program.getTypeChecker();
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
    const names = checker.getExportsOfModule(module).map((s) => s.name);
    expect(names.length, names.join(", ")).toBeLessThanOrEqual(110);
    // Chat types are @needlework/core's; the entry does not repeat them.
    expect(names.filter((n) => n.startsWith("Chat") && n !== "ChatStreamIncompleteError")).toEqual([]);
  }, 60_000);

  it("offers parseOptions to other needlework packages from the internal entry point", () => {
    expect(internal.parseOptions).toBeTypeOf("function");
  });
});
