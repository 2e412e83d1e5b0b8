// The layering between packages, read from their sources and their builds: a run store
// (`@needlework/durable`, `@needlework/postgres`) and the inspector never load the builder
// (`@needlework/workflows`' main entry), value shaping (`@needlework/shaping`) stands on core alone, and nothing imports `@needlework/workflows/internal`'s
// run-store internals (they are documented exports of `@needlework/durable`, or on its `/internal` entry). The one exception is
// the run queue, which names the agent's type to run agents: types only, through the durable subpath (which reaches no file of the builder), so no JavaScript of
// workflows is loaded. `@needlework/otel` (the span code) depends on core only: workflows depends on
// it, so it reads a run's events as core's `AgentEvent` and the rest with its own types. Workflows depends on
// `@needlework/ai-sdk` for its deprecated encoder only, through an entry that imports nothing from `ai`, and the
// adapter depends on core alone (its tests too). Needs the packages built for the dist checks (`pnpm test` builds first).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const packages = join(root, "packages");

/** One import or re-export of a module: what it names and whether only types cross. */
interface ModuleImport {
  readonly file: string;
  readonly specifier: string;
  readonly typeOnly: boolean;
}

function sourceFiles(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !/\.test(-d)?\.ts$/.test(file) && !file.endsWith("test-database.ts"));
}

/** The imports of a source file, as the compiler reads them (dynamic `import()` included). */
function importsOf(file: string): ModuleImport[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: ModuleImport[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      const specifier = (node.moduleSpecifier as ts.StringLiteral).text;
      let typeOnly = false;
      if (ts.isImportDeclaration(node)) {
        const clause = node.importClause;
        const named = clause?.namedBindings;
        typeOnly =
          clause !== undefined &&
          (clause.isTypeOnly ||
            (clause.name === undefined &&
              named !== undefined &&
              ts.isNamedImports(named) &&
              named.elements.length > 0 &&
              named.elements.every((element) => element.isTypeOnly)));
      } else typeOnly = node.isTypeOnly;
      found.push({ file: relative(root, file), specifier, typeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push({ file: relative(root, file), specifier: node.arguments[0].text, typeOnly: false });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const importsIn = (name: string): ModuleImport[] => sourceFiles(join(packages, name, "src")).flatMap(importsOf);
const isWorkflows = (specifier: string): boolean =>
  specifier === "@needlework/workflows" || specifier.startsWith("@needlework/workflows/");
const described = (imports: readonly ModuleImport[]): string[] => imports.map((i) => `${i.file}: ${i.specifier}`);

describe("package layering (sources)", () => {
  it("sees the sources it checks (a moved folder would make every rule below pass vacuously)", () => {
    for (const name of ["durable", "shaping", "postgres", "inspector", "otel"])
      expect(importsIn(name).length).toBeGreaterThan(10);
    expect(importsIn("postgres").some((i) => i.file.endsWith("run-queue.ts") && isWorkflows(i.specifier))).toBe(true);
  });

  it("@needlework/durable imports nothing of workflows, postgres or the inspector", () => {
    const upward = importsIn("durable").filter((i) =>
      /^@needlework\/(workflows|shaping|postgres|inspector|openai|ai-sdk|mcp)(\/|$)/.test(i.specifier),
    );
    expect(described(upward)).toEqual([]);
  });

  it("@needlework/shaping imports no other needlework package than core", () => {
    const imports = importsIn("shaping");
    const needlework = imports.filter((i) => i.specifier.startsWith("@needlework/"));
    expect(needlework.length).toBeGreaterThan(0);
    expect(described(needlework.filter((i) => !/^@needlework\/core(\/kit|\/internal)?$/.test(i.specifier)))).toEqual(
      [],
    );
  });

  it("@needlework/workflows reaches shaping only through its entries, never its files", () => {
    const reaching = importsIn("workflows").filter((i) => i.specifier.includes("shaping/src"));
    expect(described(reaching)).toEqual([]);
    expect(importsIn("workflows").some((i) => i.specifier === "@needlework/shaping")).toBe(true);
  });

  it("@needlework/otel imports nothing of workflows (workflows depends on it: no cycle)", () => {
    const upward = importsIn("otel").filter((i) =>
      /^@needlework\/(workflows|durable|postgres|inspector|openai|ai-sdk|mcp)(\/|$)/.test(i.specifier),
    );
    expect(described(upward)).toEqual([]);
    // Its only dynamic import is the optional OpenTelemetry API.
    expect(
      importsIn("otel")
        .filter((i) => !i.specifier.startsWith(".") && !i.specifier.startsWith("node:"))
        .map((i) => i.specifier)
        .filter((s, n, all) => all.indexOf(s) === n)
        .sort(),
    ).toEqual(["@needlework/core", "@needlework/core/events", "@needlework/core/kit", "@opentelemetry/api"]);
  });

  it("the inspector (its CLI included) imports nothing of @needlework/workflows", () => {
    expect(described(importsIn("inspector").filter((i) => isWorkflows(i.specifier)))).toEqual([]);
  });

  it("postgres reaches workflows only from the run queue, for types only, through the durable subpath", () => {
    const reaching = importsIn("postgres").filter((i) => isWorkflows(i.specifier));
    const outsideQueue = reaching.filter(
      (i) => !i.file.endsWith(join("src", "run-queue.ts")) && !i.file.endsWith(join("src", "run-queue.options.ts")),
    );
    expect(described(outsideQueue)).toEqual([]);
    expect(described(reaching.filter((i) => !i.typeOnly))).toEqual([]);
    expect(new Set(reaching.map((i) => i.specifier))).toEqual(new Set(["@needlework/workflows/durable"]));
  });

  it("workflows' durable subpath reaches no file of the builder, even by its types", () => {
    const seen = new Set<string>();
    const pending = [join(packages, "workflows", "src", "durable.ts")];
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const { specifier } of importsOf(file))
        if (specifier.startsWith(".")) pending.push(join(file, "..", specifier.replace(/\.js$/, ".ts")));
    }
    const files = [...seen].map((file) => relative(packages, file));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((file) => file.includes(join("src", "builder")))).toEqual([]);
  });

  it("no package imports @needlework/workflows/internal, and it exports none of durable's names", () => {
    const all = readdirSync(packages).flatMap((name) => importsIn(name));
    expect(described(all.filter((i) => i.specifier === "@needlework/workflows/internal"))).toEqual([]);
    const internal = importsOf(join(packages, "workflows", "src", "internal.ts"));
    expect(internal.filter((i) => i.specifier.includes("durable"))).toEqual([]);
  });

  it("the journal's mechanics live in @needlework/durable: workflows imports them from /internal and keeps no copy", () => {
    expect(importsIn("workflows").some((i) => i.specifier === "@needlework/durable/internal")).toBe(true);
    const copies = sourceFiles(join(packages, "workflows", "src")).filter((file) =>
      /\bclass (JournalWriter|RunRecord)\b|\bfunction (signDecision|verifyDecision)\b/.test(readFileSync(file, "utf8")),
    );
    expect(copies.map((file) => relative(root, file))).toEqual([]);
  });

  it("workflows reaches @needlework/ai-sdk only through its ui-message-stream entry, which imports nothing from `ai`", () => {
    const reaching = importsIn("workflows").filter((i) => /^@needlework\/ai-sdk(\/|$)/.test(i.specifier));
    expect(reaching.length).toBeGreaterThan(0);
    expect(new Set(reaching.map((i) => i.specifier))).toEqual(new Set(["@needlework/ai-sdk/ui-message-stream"]));
    const seen = new Set<string>();
    const pending = [join(packages, "ai-sdk", "src", "ui-message-stream.ts")];
    const outside: string[] = [];
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const { specifier } of importsOf(file)) {
        if (specifier.startsWith(".")) pending.push(join(file, "..", specifier.replace(/\.js$/, ".ts")));
        else outside.push(specifier);
      }
    }
    expect(seen.size).toBeGreaterThan(2);
    expect([...new Set(outside)].sort()).toEqual(["@needlework/core", "@needlework/core/events"]);
  });

  it.each(["durable", "shaping", "otel", "ai-sdk"])(
    "%s's package.json depends on no other needlework package than core",
    (name) => {
      const manifest = JSON.parse(readFileSync(join(packages, name, "package.json"), "utf8")) as {
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      const needlework = Object.keys({
        ...manifest.dependencies,
        ...manifest.peerDependencies,
        ...manifest.devDependencies,
      }).filter((dependency) => dependency.startsWith("@needlework/"));
      expect(needlework).toEqual(["@needlework/core"]);
    },
  );
});

/** The built JavaScript of a package (what Node loads), file by file. */
function builtScripts(name: string): { file: string; text: string }[] {
  const dist = join(packages, name, "dist");
  if (!existsSync(dist))
    throw new Error(`packages/${name} is not built: run \`pnpm build\` first (\`pnpm test\` does).`);
  return readdirSync(dist)
    .filter((file) => file.endsWith(".js") || file.endsWith(".cjs"))
    .map((file) => ({ file: `packages/${name}/dist/${file}`, text: readFileSync(join(dist, file), "utf8") }));
}

const WORKFLOWS_IN_JS = /(?:from\s*|require\(\s*|import\(\s*)["']@needlework\/workflows(?:\/[a-z-]+)?["']/;

describe("package layering (builds)", () => {
  it("the built JavaScript of durable, shaping, otel, postgres and the inspector loads no module of @needlework/workflows", () => {
    const loading = ["durable", "shaping", "otel", "postgres", "inspector"]
      .flatMap(builtScripts)
      .filter(({ text }) => WORKFLOWS_IN_JS.test(text))
      .map(({ file }) => file);
    expect(loading).toEqual([]);
  });

  it("@needlework/ai-sdk/ui-message-stream, which workflows loads, loads nothing of `ai`, by its code or its types", () => {
    const dist = join(packages, "ai-sdk", "dist");
    const AI = /(?:from\s*|require\(\s*|import\(\s*)["']ai(?:\/[a-z-]+)?["']/;
    const seen = new Set<string>();
    const pending = [
      "ui-message-stream.js",
      "ui-message-stream.cjs",
      "ui-message-stream.d.ts",
      "ui-message-stream.d.cts",
    ];
    const loadingAi: string[] = [];
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      // TSDoc examples may show `import ... from "ai"`: only code and declarations count.
      const text = readFileSync(join(dist, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
      if (AI.test(text)) loadingAi.push(file);
      // The shared chunks it loads, followed the same way.
      for (const [, chunk] of text.matchAll(/["']\.\/([^"']+)["']/g)) if (chunk) pending.push(chunk);
    }
    expect(seen.size).toBeGreaterThanOrEqual(4);
    expect(loadingAi).toEqual([]);
    // The main entry does reference `ai` (its tool types): the check above is not vacuous.
    expect(AI.test(readFileSync(join(dist, "index.d.ts"), "utf8").replace(/\/\*[\s\S]*?\*\//g, ""))).toBe(true);
  });
});
