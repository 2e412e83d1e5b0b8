// Dogfood: the examples and every code block of the docs are linted with @needlework/eslint-plugin's
// `recommended`, the way a user's project would be. What the docs show as a mistake (```ts lint-invalid)
// must be reported, by the page's own rule on docs/eslint/<rule>.md; everything else must lint clean.
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import needlework from "../packages/eslint-plugin/src/index.js";
import { ESLint, type Linter } from "eslint";
import { afterAll, describe, expect, it } from "vitest";
import { collectDocBlocks, type DocBlock, withPageContext } from "../docs/doc-check/extract.js";
import { repoRoot } from "../scripts/pack-packages.js";

const recommended = needlework.configs["recommended-type-checked"] as Linter.Config;
// The examples and docs declare their tools as they were written before `effects` existed (the
// option comes with the injection policy): declare-effects would flag every tool of them. It is
// proven by its own tests and the packed-plugin test; here it is off until they say what they change.
const beforeEffects: Linter.Config = { rules: { "needlework/declare-effects": "off" } };
const cache = join(repoRoot, "examples", "node_modules", ".cache");
const dirs: string[] = [];

/** A folder of block files with a tsconfig of standard decorators (what tsx runs the docs under). */
function blockFolder(name: string): string {
  // Beside the docs check's own folder, at the same depth, so the support modules' relative imports resolve.
  const dir = join(cache, `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  dirs.push(dir);
  for (const file of readdirSync(join(repoRoot, "docs", "doc-check", "modules")))
    cpSync(join(repoRoot, "docs", "doc-check", "modules", file), join(dir, file));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        module: "esnext",
        moduleResolution: "bundler",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
      include: ["*.ts"],
    }),
  );
  return dir;
}

async function lint(cwd: string, patterns: string[], extra: Linter.Config[] = []): Promise<ESLint.LintResult[]> {
  const eslint = new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [{ ignores: ["**/node_modules/**", "**/dist/**"] }, recommended, ...extra],
  });
  return eslint.lintFiles(patterns);
}

const describeMessage = (m: Linter.LintMessage) => `${m.ruleId ?? "(fatal)"}: ${m.message}`;

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the ESLint plugin's recommended config over this repository", () => {
  it("reports nothing in examples/ (their tsconfig emits decorator metadata)", async () => {
    const results = await lint(join(repoRoot, "examples"), ["**/*.ts"], [beforeEffects]);
    expect(results.length).toBeGreaterThan(20);
    const problems = results.flatMap((r) =>
      r.messages.map((m) => `${relative(repoRoot, r.filePath)}:${m.line} ${describeMessage(m)}`),
    );
    expect(problems, problems.join("\n")).toEqual([]);
  }, 120_000);

  it("reports nothing in the docs' code blocks, compiled as standard decorators", async () => {
    const blocks = collectDocBlocks(repoRoot).filter(
      (b) => !b.flags.includes("no-check") && !b.flags.includes("lint-invalid"),
    );
    const dir = blockFolder("doc-lint");
    const files = new Map<string, { block: DocBlock; prefixLines: number }>();
    withPageContext(blocks).forEach(({ block, code, prefixLines }, i) => {
      const name = `${block.file.replace(/[^a-z0-9]+/gi, "_")}_${block.line}_${i}.ts`;
      writeFileSync(join(dir, name), `${code}\nexport {};\n`);
      files.set(join(dir, name), { block, prefixLines });
    });
    // A page's later blocks repeat its earlier declarations and imports in front of their own
    // (withPageContext): one @Agent appears in several files, and a block's own `import "reflect-metadata"`
    // follows the page's earlier imports. So agent names and import order are not compared here; the
    // docs check's importOrderProblems checks each block's imports as written, RuleTester the rules.
    const results = await lint(
      dir,
      ["*_md_*.ts"],
      [
        beforeEffects,
        {
          rules: {
            "needlework/unique-agent-name": "off",
            "needlework/reflect-metadata-first": "off",
            "needlework/reflect-metadata-entry": "off",
          },
        },
      ],
    );
    expect(results.length).toBe(files.size);
    const problems = results.flatMap((r) => {
      const unit = files.get(r.filePath)!;
      return r.messages
        .filter((m) => m.line > unit.prefixLines)
        .map((m) => `${unit.block.file}:${unit.block.line + m.line - unit.prefixLines - 1} ${describeMessage(m)}`);
    });
    expect(problems, problems.join("\n")).toEqual([]);
  }, 120_000);

  it("reports every mistake the docs show, by the rule its page is about", async () => {
    const blocks = collectDocBlocks(repoRoot).filter((b) => b.flags.includes("lint-invalid"));
    // One or more per rule.
    expect(blocks.length).toBeGreaterThanOrEqual(Object.keys(needlework.rules).length);
    const dir = blockFolder("doc-lint-invalid");
    const byFile = new Map<string, DocBlock>();
    blocks.forEach((block, i) => {
      const name = join(dir, `invalid_${i}.ts`);
      writeFileSync(name, `${block.code}\nexport {};\n`);
      byFile.set(name, block);
    });
    const results = await lint(dir, ["invalid_*.ts"]);
    const missing: string[] = [];
    for (const result of results) {
      const block = byFile.get(result.filePath)!;
      const rule = /^docs\/eslint\/([a-z-]+)\.md$/.exec(block.file)?.[1];
      const fatal = result.messages.filter((m) => m.fatal);
      const ruleIds = new Set(result.messages.map((m) => m.ruleId));
      if (fatal.length > 0 || (rule ? !ruleIds.has(`needlework/${rule}`) : ruleIds.size === 0))
        missing.push(`${block.file}:${block.line} got ${result.messages.map(describeMessage).join("; ") || "nothing"}`);
    }
    expect(missing, missing.join("\n")).toEqual([]);
  }, 120_000);
});
