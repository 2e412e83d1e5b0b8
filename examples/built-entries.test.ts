// The built example entries, run as a user runs them (`node examples/dist/<name>.js`): from any path, and printing
// the CRM audit table that docs/examples.md shows, so the docs cannot drift from the program.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const exec = promisify(execFile);
const examples = fileURLToPath(new URL(".", import.meta.url));
const node = (args: string[], cwd = examples) => exec(process.execPath, args, { cwd, encoding: "utf8" });

/** The lines of the fenced block in docs/examples.md whose first line starts with `firstLine`. */
function docsBlock(firstLine: string): string[] {
  const lines = readFileSync(join(examples, "..", "docs", "examples.md"), "utf8").split("\n");
  const start = lines.findIndex((line, i) => line.startsWith(firstLine) && lines[i - 1]?.startsWith("```"));
  if (start < 0) throw new Error(`docs/examples.md has no block starting with "${firstLine}"`);
  const end = lines.findIndex((line, i) => i > start && line.startsWith("```"));
  return lines.slice(start, end);
}

describe("the built examples", { timeout: 240_000 }, () => {
  let linkRoot = "";

  beforeAll(async () => {
    await exec(join(examples, "node_modules", ".bin", "tsup"), ["--silent"], { cwd: examples });
    // A folder whose name has spaces, holding a symlink (also with a space) to the built entries.
    linkRoot = mkdtempSync(join(tmpdir(), "needlework entry "));
    symlinkSync(join(examples, "dist"), join(linkRoot, "built examples"), "dir");
  }, 240_000);

  afterAll(() => {
    if (linkRoot) rmSync(linkRoot, { recursive: true, force: true });
  }, 60_000);

  it.concurrent("start through a symlinked path containing spaces", async () => {
    const [lookup, aiSdk] = await Promise.all([
      node([join(linkRoot, "built examples", "order-lookup.js")], linkRoot),
      node([join(linkRoot, "built examples", "ai-sdk.js")], linkRoot),
    ]);
    expect(lookup.stdout).toContain('order-lookup: "Where are my orders');
    expect(lookup.stdout).toContain("run status: completed_with_failures");
    expect(aiSdk.stdout).toMatch(/^answer: /m);
  });

  it.concurrent("print the CRM audit table exactly as docs/examples.md shows it", async () => {
    const { stdout } = await node([join("dist", "crm-sync-audit.js")]);
    // The last line is the wall-clock time of the run, which the docs leave out.
    const printed = stdout
      .trimEnd()
      .split("\n")
      .filter((line) => !/agent runs in [\d.]+ s\)$/.test(line));
    const documented = docsBlock("CRM sync audit:");
    // Every figure is compared exactly: the characters the model read count each latency as one digit
    // (measure.ts), so a loaded machine's slower calls no longer move that figure.
    expect(printed).toEqual(documented);
  });
});
