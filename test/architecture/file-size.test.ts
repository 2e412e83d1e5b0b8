// Rooms of a readable size (DESIGN "The house, second pass"): no source file of a package over 350
// lines, and the run loop's `AgentRun` class within 300. Tests, type tests and test-only support files
// (a test database, fixtures) are not rooms a reader walks through.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const MAX_LINES = 350;

// The returned-failure corpus (returned-failure.corpus*.ts) is test data the detector is held to, exported by
// no package entry: a table of labelled payloads, not a room.
const DATA = /\.corpus(-[a-z]+)?\.ts$/;

function sources(): string[] {
  const packages = join(root, "packages");
  return readdirSync(packages).flatMap((name) => {
    const src = join(packages, name, "src");
    if (!existsSync(src)) return [];
    return readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name))
      .map((entry) => relative(root, join(entry.parentPath, entry.name)));
  });
}

const lines = (file: string): number => readFileSync(join(root, file), "utf8").split("\n").length - 1;

describe("rooms of a readable size", () => {
  it(`no package source file is over ${MAX_LINES} lines`, () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .filter((file) => !DATA.test(file))
      .map((file) => `${file}: ${lines(file)}`)
      .filter((entry) => Number(entry.split(": ")[1]) > MAX_LINES);
    expect(over).toEqual([]);
  });

  it("the run loop's AgentRun class is within 300 lines", () => {
    const text = readFileSync(join(root, "packages/workflows/src/agent/loop/agent-loop.ts"), "utf8").split("\n");
    const start = text.findIndex((line) => line.startsWith("export class AgentRun"));
    const end = text.findIndex((line, i) => i > start && line === "}");
    expect(start).toBeGreaterThan(-1);
    expect(end - start + 1).toBeLessThanOrEqual(300);
  });
});
