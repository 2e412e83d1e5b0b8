import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { auditEntry, publicEntries } from "../scripts/public-surface.ts";

const dir = mkdtempSync(join(tmpdir(), "needlework-surface-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the files of a built package (as tsup lays them out) and returns the directory. */
function builtPackage(name: string, files: Record<string, string>): string {
  const root = join(dir, name);
  mkdirSync(join(root, "dist"), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(root, file), text);
  return root;
}

// What tsup's declaration bundler writes: declarations in a shared chunk, the entry re-exporting them.
const chunk = `
/** Options after defaults. @internal */
interface ResolvedFooOptions { readonly a: number }
/**
 * A cheap id.
 * @internal
 */
declare function nextId(kind: string): string;
/** Public; its docs mention the \`@internal\` tag in prose. */
declare const version: string;
/** The options a user passes. */
interface FooOptions { readonly a?: number }
export { type FooOptions as F, type ResolvedFooOptions as R, nextId as n, version as v };
`;

describe("auditEntry (the public-surface check of check-packages.ts)", () => {
  it("finds @internal declarations and Resolved*Options types behind re-exports from a chunk", () => {
    const root = builtPackage("leaky", {
      "dist/chunk-1.d.ts": chunk,
      "dist/index.d.ts": [
        'export { F as FooOptions, R as ResolvedFooOptions, n as nextId, v as version } from "./chunk-1.js";',
        "/** @internal */",
        "export type Direct = string;",
        "export type ResolvedBarOptions = { readonly b: number };",
      ].join("\n"),
    });
    const audit = auditEntry(join(root, "dist/index.d.ts"));
    expect(audit.names).toEqual([
      "Direct",
      "FooOptions",
      "ResolvedBarOptions",
      "ResolvedFooOptions",
      "nextId",
      "version",
    ]);
    expect(audit.values).toBe(2);
    expect(audit.problems).toEqual([
      "ResolvedFooOptions is marked @internal",
      "nextId is marked @internal",
      "Direct is marked @internal",
      "ResolvedBarOptions is a Resolved*Options type",
    ]);
  });

  it("passes an entry that exports only public declarations", () => {
    const root = builtPackage("clean", {
      "dist/chunk-1.d.ts": chunk,
      "dist/index.d.ts": 'export { F as FooOptions, v as version } from "./chunk-1.js";',
    });
    expect(auditEntry(join(root, "dist/index.d.ts"))).toEqual({
      names: ["FooOptions", "version"],
      values: 1,
      problems: [],
    });
  });

  it("audits every subpath of the exports map but ./internal", () => {
    const types = (file: string) => ({
      import: { types: `./dist/${file}.d.ts` },
      require: { types: `./dist/${file}.d.cts` },
    });
    const root = builtPackage("entries", {
      "package.json": JSON.stringify({
        exports: {
          ".": types("index"),
          "./testing": types("testing"),
          "./internal": types("internal"),
          "./package.json": "./package.json",
        },
      }),
    });
    expect(publicEntries(root)).toEqual([
      { subpath: ".", dts: join(root, "dist/index.d.ts") },
      { subpath: "./testing", dts: join(root, "dist/testing.d.ts") },
    ]);
  });
});
