// Installs the packed @needlework/eslint-plugin into a fresh app outside the repository with ESLint 9's (and 10's) flat
// config, as docs/eslint/README.md says, and lints a file with one defect per rule (each marked with an
// `expect:` comment) and the README's quick start. Needs the packages built (`pnpm test` builds first) and
// the npm registry for ESLint, TypeScript and typescript-eslint.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractTsBlocks } from "../../docs/doc-check/extract.js";
import { packPackages, repoRoot } from "../../scripts/pack-packages.js";
import { run, writeApp } from "./temp-app.js";

const fixture = (path: string) => join(repoRoot, "test", "packaging", "fixtures", "eslint", path);

interface Report {
  readonly filePath: string;
  readonly messages: readonly { ruleId: string | null; line: number; severity: number; message: string }[];
}

/** `line → rule ids` from the fixture's `// expect: needlework/a` (and `// expect-next-line: ...`) comments. */
function expectations(source: string): Map<number, string[]> {
  const expected = new Map<number, string[]>();
  source.split("\n").forEach((text, i) => {
    const match = /\/\/ expect(-next-line)?: (.+)$/.exec(text);
    if (match) expected.set(match[1] ? i + 2 : i + 1, match[2]!.trim().split(/\s+/).sort());
  });
  return expected;
}

// ESLint 9 is what the issue names; 10 is the current major. Both read the same flat config.
describe.each(["9", "10"])(
  "@needlework/eslint-plugin installed into a fresh ESLint %s app",
  { timeout: 600_000 },
  (major) => {
    let root = "";
    let app = "";
    let reports: Report[] = [];

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), "needlework-eslint-"));
      const packed = packPackages(join(root, "tarballs"));
      const ours = Object.fromEntries(
        packed
          .filter((p) => ["@needlework/eslint-plugin", "@needlework/core", "@needlework/workflows"].includes(p.name))
          .map((p) => [p.name, `file:${p.tarball}`]),
      );
      app = join(root, "app");
      writeApp(
        app,
        {
          name: "needlework-eslint-consumer",
          type: "module",
          dependencies: {
            "@needlework/core": ours["@needlework/core"],
            "@needlework/workflows": ours["@needlework/workflows"],
            "reflect-metadata": "^0.2.2",
            tsyringe: "^4.10.0",
            zod: "^4.6.7",
          },
          devDependencies: {
            "@needlework/eslint-plugin": ours["@needlework/eslint-plugin"],
            eslint: `^${major}.0.0`,
            // What docs/eslint/README.md says to install (typescript-eslint does not read TypeScript 7).
            typescript: "~6.0.3",
          },
          overrides: Object.fromEntries(packed.map((p) => [p.name, `$${p.name}`]).filter(([name]) => name! in ours)),
        },
        { "eslint.config.js": fixture("eslint.config.js"), "defects.ts": fixture("defects.ts") },
        // `tsc --init`'s decorators: standard (no experimentalDecorators), so require-inject applies.
        {
          compilerOptions: { target: "es2022", module: "nodenext", strict: true, skipLibCheck: true, noEmit: true },
          include: ["*.ts"],
        },
      );
      const quickStart = extractTsBlocks("README.md", readFileSync(join(repoRoot, "README.md"), "utf8")).find((b) =>
        b.flags.includes("run"),
      );
      writeFileSync(join(app, "quick-start.ts"), `${quickStart!.code}\n`);
      await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], app);
      // ESLint exits 1 when it reports errors; the JSON report is written either way.
      const eslint = join(app, "node_modules", "eslint", "bin", "eslint.js");
      await run(process.execPath, [eslint, "--format", "json", "--output-file", "report.json", "."], app).catch(
        () => undefined,
      );
      reports = JSON.parse(readFileSync(join(app, "report.json"), "utf8")) as Report[];
    }, 600_000);

    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    }, 120_000);

    it("reports each rule's defect on its line, and nothing else", () => {
      const report = reports.find((r) => r.filePath.endsWith("defects.ts"));
      expect(report, JSON.stringify(reports)).toBeDefined();
      const got = new Map<number, string[]>();
      for (const m of report!.messages)
        got.set(m.line, [...(got.get(m.line) ?? []), m.ruleId ?? `fatal: ${m.message}`]);
      // A rule may report twice on one line (two swapped `inject` tokens): lines and rules are compared.
      for (const [line, ids] of got) got.set(line, [...new Set(ids)].sort());
      const expected = expectations(readFileSync(fixture("defects.ts"), "utf8"));
      expect(Object.fromEntries(got)).toEqual(Object.fromEntries(expected));
      // Every rule of the plugin is exercised by the fixture.
      expect(new Set([...expected.values()].flat()).size).toBe(13);
    });

    it("reports errors for what buildAgentFactory() refuses, warnings for the rest", () => {
      const report = reports.find((r) => r.filePath.endsWith("defects.ts"))!;
      const errors = new Set(report.messages.filter((m) => m.severity === 2).map((m) => m.ruleId));
      expect([...errors].sort()).toEqual([
        "needlework/known-function-group",
        "needlework/require-inject",
        "needlework/unique-agent-name",
      ]);
    });

    it("reports nothing on the README's quick start", () => {
      const report = reports.find((r) => r.filePath.endsWith("quick-start.ts"));
      expect(report).toBeDefined();
      expect(report!.messages).toEqual([]);
    });
  },
);
