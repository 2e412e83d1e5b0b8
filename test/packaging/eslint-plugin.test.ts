// Installs the packed @needlework/eslint-plugin into a fresh app outside the repository with ESLint 9's (and 10's) flat
// config, as docs/eslint/README.md says, and lints files with one defect per rule (each marked with an
// `expect:` comment), a corpus of correct code (TypeScript and plain JavaScript, with field names such as
// tokenLimit and passwordPolicyName), and the README's quick start: each defect reported by its rule,
// nothing else, and no rule failing on a `.js` file. Needs the packages built (`pnpm test` builds first) and
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

/** The fixture files copied into the app; the `defects*` ones carry `expect:` comments, the others must lint clean. */
const FILES = [
  "eslint.config.js",
  "defects.ts",
  "defects-create-agent.ts",
  "defects.js",
  "correct.ts",
  "correct-tools.ts",
  "correct.js",
];

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
          .filter((p) =>
            [
              "@needlework/eslint-plugin",
              "@needlework/core",
              "@needlework/durable",
              "@needlework/shaping",
              "@needlework/otel",
              "@needlework/ai-sdk",
              "@needlework/workflows",
            ].includes(p.name),
          )
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
            // workflows depends on durable, shaping, otel and ai-sdk, which are on no registry yet: their tarballs too.
            "@needlework/durable": ours["@needlework/durable"],
            "@needlework/shaping": ours["@needlework/shaping"],
            "@needlework/otel": ours["@needlework/otel"],
            "@needlework/ai-sdk": ours["@needlework/ai-sdk"],
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
        Object.fromEntries(FILES.map((name) => [name, fixture(name)])),
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

    /** `line → rule ids` a linted file got (a fatal parse error or a rule that threw shows as `fatal`). */
    const got = (name: string): Record<number, string[]> => {
      const report = reports.find((r) => r.filePath.endsWith(`/${name}`) || r.filePath.endsWith(`\\${name}`));
      expect(report, `${name} was not linted: ${JSON.stringify(reports.map((r) => r.filePath))}`).toBeDefined();
      const lines = new Map<number, string[]>();
      for (const m of report!.messages)
        lines.set(m.line, [...(lines.get(m.line) ?? []), m.ruleId ?? `fatal: ${m.message}`]);
      // A rule may report twice on one line (two swapped `inject` tokens): lines and rules are compared.
      return Object.fromEntries([...lines].map(([line, ids]) => [line, [...new Set(ids)].sort()]));
    };

    it.each(FILES)("reports in %s exactly what its expect: comments say", (name) => {
      const expected = expectations(readFileSync(fixture(name), "utf8"));
      expect(got(name)).toEqual(Object.fromEntries(expected));
    });

    it("exercises every rule of the plugin", () => {
      const exercised = new Set(
        FILES.flatMap((name) => [...expectations(readFileSync(fixture(name), "utf8")).values()].flat()),
      );
      expect(exercised.size).toBe(18);
    });

    it("says its package.json's version, from the ESM and the CommonJS build", async () => {
      const manifest = JSON.parse(
        readFileSync(join(app, "node_modules", "@needlework", "eslint-plugin", "package.json"), "utf8"),
      ) as { version: string };
      const esm = await run(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          'const { default: p } = await import("@needlework/eslint-plugin"); console.log(p.meta.version);',
        ],
        app,
      );
      const cjs = await run(
        process.execPath,
        ["-e", 'const p = require("@needlework/eslint-plugin"); console.log((p.default ?? p).meta.version);'],
        app,
      );
      expect([esm.stdout.trim(), cjs.stdout.trim()]).toEqual([manifest.version, manifest.version]);
    });

    it("reports errors for what needlework refuses, warnings for the rest", () => {
      const messages = reports.flatMap((r) => r.messages);
      const errors = new Set(messages.filter((m) => m.severity === 2).map((m) => m.ruleId));
      const warnings = new Set(messages.filter((m) => m.severity === 1).map((m) => m.ruleId));
      expect([...errors].sort()).toEqual([
        "needlework/inject-matches-constructor",
        "needlework/known-function-group",
        "needlework/no-blank-tool-name",
        "needlework/reflect-metadata-entry",
        "needlework/require-inject",
        "needlework/unique-agent-name",
        "needlework/unique-tool-name",
      ]);
      expect([...warnings].filter((id) => errors.has(id))).toEqual([]);
    });

    it("reports nothing on the README's quick start", () => {
      const report = reports.find((r) => r.filePath.endsWith("quick-start.ts"));
      expect(report).toBeDefined();
      expect(report!.messages).toEqual([]);
    });
  },
);
