import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import needlework, { rules } from "../src/index.js";

const docs = join(import.meta.dirname, "..", "..", "..", "docs", "eslint");

describe("@needlework/eslint-plugin", () => {
  it("turns every rule on in `recommended`: errors where buildAgentFactory() would refuse the program", () => {
    const configured = needlework.configs.recommended.rules ?? {};
    expect(Object.keys(configured).sort()).toEqual(
      Object.keys(rules)
        .map((r) => `needlework/${r}`)
        .sort(),
    );
    const errors = Object.entries(configured)
      .filter(([, level]) => level === "error")
      .map(([id]) => id)
      .sort();
    expect(errors).toEqual([
      "needlework/known-function-group",
      "needlework/require-inject",
      "needlework/unique-agent-name",
    ]);
    expect(needlework.configs.recommended.plugins?.needlework).toBe(needlework);
  });

  it.each(Object.entries(rules))(
    "documents %s on its own page, with the fix and the build diagnostic it mirrors",
    (name, rule) => {
      const page = join(docs, `${name}.md`);
      expect(existsSync(page), page).toBe(true);
      const text = readFileSync(page, "utf8");
      expect(rule.meta.docs?.url).toBe(`https://github.com/needlework/needlework/blob/main/docs/eslint/${name}.md`);
      expect(text).toContain(`# needlework/${name}`);
      expect(text).toMatch(/## How to fix/);
      const code = rule.meta.docs?.buildDiagnostic;
      if (code) expect(text).toContain(code);
    },
  );
});
