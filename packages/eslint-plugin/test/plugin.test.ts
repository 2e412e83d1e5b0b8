import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import needlework, { rules } from "../src/index.js";

const packageRoot = join(import.meta.dirname, "..");
const docs = join(packageRoot, "..", "..", "docs", "eslint");
const ids = (config: { rules?: object }) => Object.keys(config.rules ?? {}).sort();
const typeAware = Object.entries(rules)
  .filter(([, rule]) => rule.meta.docs?.requiresTypeChecking === true)
  .map(([name]) => `needlework/${name}`)
  .sort();

describe("@needlework/eslint-plugin", () => {
  it("turns every rule on in both configs; only `recommended-type-checked` asks for a program", () => {
    const checked = needlework.configs["recommended-type-checked"];
    const plain = needlework.configs.recommended;
    expect(ids(checked)).toEqual(
      Object.keys(rules)
        .map((r) => `needlework/${r}`)
        .sort(),
    );
    expect(typeAware).toEqual([
      "needlework/known-function-group",
      "needlework/reflect-metadata-entry",
      "needlework/require-inject",
    ]);
    // Every rule is in `recommended` (DESIGN: a defect buildAgentFactory() refuses is an error there); the
    // type-aware ones report nothing without a program, which only the type-checked config asks for.
    expect(ids(plain)).toEqual(ids(checked));
    expect(checked.languageOptions?.parserOptions).toMatchObject({ projectService: true });
    expect(plain.languageOptions?.parserOptions).toBeUndefined();
    expect(plain.plugins?.needlework).toBe(needlework);
    expect(checked.plugins?.needlework).toBe(needlework);
  });

  it("reports as errors what needlework refuses at start-up, as warnings the rest", () => {
    const errors = Object.entries(needlework.configs["recommended-type-checked"].rules ?? {})
      .filter(([, level]) => level === "error")
      .map(([id]) => id)
      .sort();
    expect(errors).toEqual([
      "needlework/inject-matches-constructor",
      "needlework/known-function-group",
      "needlework/no-blank-tool-name",
      "needlework/reflect-metadata-entry",
      "needlework/require-inject",
      "needlework/unique-agent-name",
      "needlework/unique-defined-tool-name",
      "needlework/unique-tool-name",
    ]);
    for (const [id, level] of Object.entries(needlework.configs.recommended.rules ?? {}))
      expect(level, id).toBe(needlework.configs["recommended-type-checked"].rules?.[id]);
  });

  it("says the version of its package.json", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
      name: string;
      version: string;
    };
    expect(needlework.meta).toEqual({ name: manifest.name, version: manifest.version });
  });

  it.each(Object.entries(rules))(
    "documents %s on its own page, with the fix and the build diagnostic it mirrors",
    (name, rule) => {
      const page = join(docs, `${name}.md`);
      expect(existsSync(page), page).toBe(true);
      const text = readFileSync(page, "utf8");
      // The page the package ships (its build copies docs/ into the package), as a file URL.
      expect(rule.meta.docs?.url).toBe(new URL(`../docs/eslint/${name}.md`, pathToFileURL(`${packageRoot}/src/`)).href);
      expect(text).toContain(`# needlework/${name}`);
      expect(text).toMatch(/## How to fix/);
      const code = rule.meta.docs?.buildDiagnostic;
      if (code) expect(text).toContain(code);
    },
  );

  it.each(Object.keys(rules))("tests %s in a file of its own", (name) => {
    expect(existsSync(join(import.meta.dirname, "rules", `${name}.test.ts`))).toBe(true);
  });
});
