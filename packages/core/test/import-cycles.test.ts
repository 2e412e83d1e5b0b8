import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../..", import.meta.url));

/** Every non-test .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** The file-level import graph (type-only imports and re-exports included) of relative imports. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, false);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => resolve(dirname(file), name.replace(/\.js$/, ".ts")))
      .filter((target) => known.has(target));
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself): the cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.includes(node))
        found.push(component.map((f) => relative(repo, f)).sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}

describe("import cycles", () => {
  it("finds a cycle when there is one (the checker itself works)", () => {
    const graph = new Map([
      [`${repo}a.ts`, [`${repo}b.ts`]],
      [`${repo}b.ts`, [`${repo}a.ts`]],
      [`${repo}c.ts`, [`${repo}a.ts`]],
    ]);
    expect(cycles(graph)).toEqual([["a.ts", "b.ts"]]);
  });

  const packages = readdirSync(join(repo, "packages"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

  it.each(packages)("packages/%s has no file-level import cycle, type-only imports included", (name) => {
    expect(cycles(importGraph(sourceFiles(join(repo, "packages", name, "src"))))).toEqual([]);
  });
});
