// The public surface of a built entry point (its .d.ts), as the TypeScript compiler sees it: every
// exported name, and the ones that must not be there. Used by check-packages.ts after `pnpm build`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/** Subpaths for sibling needlework packages only: their names may change in any release. */
const INTERNAL_SUBPATH = "./internal";

/** What one entry point exports, and why some of it should not be exported. */
export interface SurfaceAudit {
  /** Every exported name, sorted. */
  readonly names: readonly string[];
  /** How many of them are values (functions, classes, constants); the rest are types only. */
  readonly values: number;
  /** One line per export that is marked `@internal` or is a `Resolved*Options` type. */
  readonly problems: readonly string[];
}

/**
 * `@internal` anywhere in a doc comment, as `stripInternal` and API Extractor read it. The compiler's
 * own tag list is not enough: it only sees a tag at the start of a line, and the sources often end a
 * one-line comment with it (`/** Options after defaults. @internal *\/`). Quoted in prose it does not count.
 */
const INTERNAL = /(?<![\w`])@internal\b/;

/** Options resolved by a plugin are its own business: the user-facing type is the unresolved one. */
const RESOLVED_OPTIONS = /^Resolved\w*Options$/;

/**
 * Audits the exports of a built declaration file. The compiler follows re-exports into the chunks
 * tsup splits declarations into, and into sibling packages, so an `@internal` declaration is found
 * wherever it lives; its TSDoc is kept in the .d.ts by the declaration bundler.
 *
 * @example
 * ```ts
 * const { names, problems } = auditEntry("packages/core/dist/index.d.ts");
 * ```
 */
export function auditEntry(dtsFile: string): SurfaceAudit {
  const program = ts.createProgram([dtsFile], {
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    types: [],
    // Only exports and their doc comments are read, never types: the default library is not needed.
    noLib: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(dtsFile);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${dtsFile}: not a module the compiler can read`);
  const names: string[] = [];
  const problems: string[] = [];
  let values = 0;
  for (const exported of checker.getExportsOfModule(module)) {
    const name = exported.getName();
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    names.push(name);
    if (target.flags & ts.SymbolFlags.Value) values++;
    const declarations = target.getDeclarations() ?? [];
    const internal = declarations.some((d) =>
      ts.getJSDocCommentsAndTags(d).some((doc) => INTERNAL.test(doc.getText())),
    );
    if (internal) problems.push(`${name} is marked @internal`);
    else if (RESOLVED_OPTIONS.test(name)) problems.push(`${name} is a Resolved*Options type`);
  }
  return { names: names.sort(), values, problems };
}

/** One public entry point of a package: its subpath (`.`, `./testing`) and its built ESM declaration file. */
export interface PublicEntry {
  readonly subpath: string;
  readonly dts: string;
}

/**
 * The public entry points a package's `exports` map declares, `./internal` and `./package.json` left out.
 *
 * @example
 * ```ts
 * publicEntries("packages/workflows"); // [{ subpath: ".", dts: ".../dist/index.d.ts" }, { subpath: "./testing", ... }]
 * ```
 */
export function publicEntries(packageDirectory: string): PublicEntry[] {
  const manifest = JSON.parse(readFileSync(join(packageDirectory, "package.json"), "utf8")) as {
    exports?: Record<string, string | { import?: { types?: string } }>;
  };
  return Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
    const types = typeof target === "string" ? undefined : target.import?.types;
    return subpath === INTERNAL_SUBPATH || types === undefined ? [] : [{ subpath, dts: join(packageDirectory, types) }];
  });
}
