import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as internal from "./internal.js";
import * as workflows from "./index.js";
import * as testing from "./testing.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

// Runtime names users are promised from `@needlework/workflows` (types are checked by tsc, not here), each
// with the page that promises it: a docs page, or the TSDoc of the source for names no page shows. The
// test reads each page, so a citation cannot point at a file that is gone.
const PROMISED_VALUES = [
  ["usingAgentFramework", "docs/builder-and-plugins.md"],
  ["createAgent", "docs/agent-loop.md"],
  ["ScriptedChatClient", "docs/agent-loop.md"],
  ["InMemoryDeadLetterQueue", "docs/dead-letters.md"],
  ["FileDeadLetterQueue", "docs/dead-letters.md"],
  ["toServerSentEvents", "docs/streaming.md"],
  ["AgentFrameworkBuilder", "packages/workflows/src/builder/agent-framework.builder.ts"],
  ["createToolResultMiddleware", "packages/workflows/src/tool-result/tool-result.middleware.ts"],
  ["toolResultMiddleware", "packages/workflows/src/tool-result/tool-result.middleware.ts"],
  ["createResiliencePlugin", "docs/resilience.md"],
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
  it.each(PROMISED_VALUES)("exports %s, as %s promises", (name, page) => {
    expect(workflows).toHaveProperty(name);
    expect((workflows as Record<string, unknown>)[name]).toBeTypeOf("function");
    expect(readFileSync(join(repoRoot, page), "utf8")).toMatch(new RegExp(`\\b${name}\\b`));
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
