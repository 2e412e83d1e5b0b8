// The public entry points of every package, as their sources: what the API reference documents and
// the TSDoc check reads. Public means what a package's `exports` map declares, `./internal` (for
// sibling needlework packages only) and `./package.json` left out, as scripts/public-surface.ts does
// for the built declarations.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** One public entry point: its import specifier (`@needlework/workflows/testing`) and source file. */
export interface ApiEntry {
  readonly specifier: string;
  readonly packageName: string;
  /** Absolute path of the entry's TypeScript source (the `@needlework/source` condition). */
  readonly source: string;
}

/**
 * Every public entry point of every package under packages/, in package order, the main entry first.
 *
 * @example
 * apiEntries().map((e) => e.specifier); // ["@needlework/ai-sdk", "@needlework/ai-sdk/chat-client", ...]
 */
export function apiEntries(root = repoRoot): ApiEntry[] {
  const entries: ApiEntry[] = [];
  for (const dir of readdirSync(join(root, "packages"), { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    const packageDir = join(root, "packages", dir.name);
    let manifest: { name: string; private?: boolean; exports?: Record<string, unknown> };
    try {
      manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
    } catch {
      continue;
    }
    if (manifest.private) continue;
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (subpath === "./internal" || subpath === "./package.json") continue;
      const source = (target as Record<string, unknown>)["@needlework/source"];
      if (typeof source !== "string") continue;
      entries.push({
        specifier: subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
        packageName: manifest.name,
        source: join(packageDir, source),
      });
    }
  }
  return entries;
}

/** One export of an entry point, as the compiler sees it. */
export interface ApiExport {
  readonly name: string;
  /** Where it is declared: path relative to the repository root, and 1-based line. */
  readonly file: string;
  readonly line: number;
  /** Its TSDoc summary (the comment's text before any tag), empty when it has none. */
  readonly summary: string;
}

/**
 * The exports of each entry point (re-exports followed to their declaration), in one compiler program
 * with the repository's options. Names are sorted.
 *
 * @example
 * apiExports(apiEntries()).get("@needlework/core")?.find((e) => e.name === "ToolResult")?.summary;
 */
export function apiExports(entries: readonly ApiEntry[], root = repoRoot): Map<string, ApiExport[]> {
  const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram(
    entries.map((e) => e.source),
    { ...options, noEmit: true },
  );
  const checker = program.getTypeChecker();
  const result = new Map<string, ApiExport[]>();
  for (const entry of entries) {
    const source = program.getSourceFile(entry.source);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${entry.source}: not a module the compiler can read`);
    const exports = checker.getExportsOfModule(module).map((symbol): ApiExport => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const declaration = target.getDeclarations()?.[0];
      const file = declaration?.getSourceFile();
      const line = file && declaration ? file.getLineAndCharacterOfPosition(declaration.getStart()).line + 1 : 0;
      return {
        name: symbol.getName(),
        file: file ? relative(root, file.fileName) : "(unknown)",
        line,
        summary: ts.displayPartsToString(target.getDocumentationComment(checker)).trim(),
      };
    });
    result.set(
      entry.specifier,
      exports.sort((a, b) => a.name.localeCompare(b.name)),
    );
  }
  return result;
}
