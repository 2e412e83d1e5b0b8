import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { collectDocBlocks, type DocBlock, extractTsBlocks, withPageContext } from "./doc-check/extract.js";
import { importOrderProblems, runDocPrograms } from "./doc-check/run-programs.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const checkDir = join(root, "docs", "doc-check");
// Inside examples/node_modules: module resolution finds every package the docs import (the
// workspace packages, zod, tsyringe, openai, ai, the MCP SDK), and the folder is git-ignored. One
// folder per process, so two test runs in one working tree do not clobber each other.
const workDir = join(root, "examples", "node_modules", ".cache", `doc-blocks-${process.pid}`);

/**
 * Compiles every ```ts block of README.md and docs/ (except `no-check` ones) as its own module, all
 * in one program with the repository's compiler options; returns one "page:line: message" per error.
 */
function typeCheckDocBlocks(): { checked: number; skipped: number; errors: string[] } {
  const blocks = collectDocBlocks(root);
  const units = withPageContext(blocks).filter((u) => !u.block.flags.includes("no-check"));
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  try {
    const files = new Map<string, { block: DocBlock; prefixLines: number }>();
    units.forEach(({ block, code, prefixLines }, i) => {
      const name = join(workDir, `${block.file.replace(/[^a-z0-9]+/gi, "_")}_${block.line}_${i}.ts`);
      // `export {}` makes every block a module: its names stay its own, and top-level await works.
      writeFileSync(name, `${code}\nexport {};\n`);
      files.set(name, { block, prefixLines });
    });
    // Modules the docs import relatively (./order-tools.js, ...) and the prelude of assumed names.
    const support = readdirSync(join(checkDir, "modules")).map((f) => join(workDir, f));
    for (const f of support) writeFileSync(f, readFileSync(join(checkDir, "modules", relative(workDir, f)), "utf8"));
    const prelude = join(workDir, "prelude.d.ts");
    writeFileSync(prelude, readFileSync(join(checkDir, "prelude.d.ts"), "utf8"));

    const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const program = ts.createProgram([...files.keys(), ...support, prelude], { ...options, noEmit: true });
    const errors: string[] = [];
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n  ");
      // The packages' own sources are checked by `tsc -p tsconfig.check.json`; here only the docs count.
      if (diagnostic.file && !diagnostic.file.fileName.startsWith(workDir)) continue;
      const unit = diagnostic.file ? files.get(diagnostic.file.fileName) : undefined;
      if (!unit || diagnostic.start === undefined) {
        errors.push(
          `${diagnostic.file ? relative(root, diagnostic.file.fileName) : "(program)"}: TS${diagnostic.code} ${message}`,
        );
        continue;
      }
      const line = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start).line - unit.prefixLines;
      // Declarations taken over from earlier blocks are checked where they are written.
      if (line < 0) continue;
      errors.push(`${unit.block.file}:${unit.block.line + line}: TS${diagnostic.code} ${message}`);
    }
    return { checked: units.length, skipped: blocks.length - units.length, errors };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

describe("docs code blocks", () => {
  it("extracts ts blocks with their page line and flags, and removes list indentation", () => {
    const md = [
      "# t",
      "```ts",
      "const a = 1;",
      "```",
      "- item:",
      "  ```ts no-check",
      "  foo(",
      "  ```",
      "```json",
      "{}",
      "```",
    ].join("\n");
    expect(extractTsBlocks("x.md", md)).toEqual([
      { file: "x.md", line: 3, flags: [], code: "const a = 1;" },
      { file: "x.md", line: 7, flags: ["no-check"], code: "foo(" },
    ]);
  });

  it("a block sees the declarations of the page's earlier blocks, the latest of each name", () => {
    const units = withPageContext([
      {
        file: "p.md",
        line: 1,
        flags: [],
        code: 'import "reflect-metadata";\nimport { z } from "zod";\nimport { a, b } from "m";\nconst factory = make(a);\nconsole.log(1);',
      },
      { file: "p.md", line: 9, flags: [], code: "class Tools {}\nconst agent = factory.createAgent();" },
      { file: "p.md", line: 20, flags: [], code: 'import "reflect-metadata";\nconst a = 1;\nz.string(agent, Tools);' },
      { file: "q.md", line: 1, flags: [], code: "b;" },
    ]);
    expect(units.map((u) => u.prefixLines)).toEqual([0, 5, 3, 0]);
    expect(units[1]!.code).toBe(
      'import "reflect-metadata";\nimport { z } from "zod";\nimport { a } from "m";\nimport { b } from "m";\nconst factory = make(a);\nclass Tools {}\nconst agent = factory.createAgent();',
    );
    // `a` is declared again, so the earlier `factory` (which used the old `a`) and `agent` (which used `factory`) are left out.
    expect(units[2]!.code).toBe(
      'import { z } from "zod";\nimport { b } from "m";\nclass Tools {}\nimport "reflect-metadata";\nconst a = 1;\nz.string(agent, Tools);',
    );
    expect(units[3]!.code).toBe("b;");
  });

  it("every ```ts block in README.md and docs/ type-checks", () => {
    const { checked, skipped, errors } = typeCheckDocBlocks();
    expect(checked).toBeGreaterThan(30);
    expect(skipped).toBeLessThanOrEqual(6);
    expect(errors, errors.join("\n")).toEqual([]);
  }, 300_000);

  it("every block that imports tsyringe imports reflect-metadata before it", () => {
    expect(importOrderProblems(collectDocBlocks(root))).toEqual([]);
  });

  // swc with decorator metadata is a tsc/swc build; tsx is esbuild's default (standard decorators, no
  // metadata), what getting-started names first. Every page must run as written under both.
  it.each(["swc", "tsx"] as const)(
    "every ```ts run block runs as written under %s, on Node without the test setup (which imports reflect-metadata)",
    async (toolchain) => {
      // DOCS_PAGE=agent-loop runs only the pages whose path contains it (while editing a page).
      const only = process.env["DOCS_PAGE"];
      const programs = collectDocBlocks(root).filter(
        (block) => block.flags.includes("run") && (!only || block.file.includes(only)),
      );
      expect(programs.length).toBeGreaterThanOrEqual(only ? 1 : 10);
      const runDir = join(root, "examples", "node_modules", ".cache", `doc-programs-${toolchain}-${process.pid}`);
      const failures = await runDocPrograms(programs, runDir, checkDir, toolchain);
      expect(failures, failures.map((f) => `${f.where}\n${f.output}`).join("\n\n")).toEqual([]);
    },
    300_000,
  );
});
