// No `/internal` across packages for what is a contract (DESIGN.md, "The house, second pass"): a package
// reads a sibling's contract from its documented entries (`@needlework/core/kit` holds the ids, the key,
// the model-turn helpers and the option parsers). A name a package still takes from a sibling's
// `/internal` entry is listed below, with why; any other fails this test, and so does a listed name no
// longer imported (the list only shrinks). The published `@needlework/durable/testing` entry imports no
// `/internal` entry at all.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const packages = join(root, "packages");

/**
 * What a package may still take from a sibling's `/internal`, as `"importer -> target"`: names that
 * are a package's implementation shared with one sibling, not a contract a third party builds on.
 */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  // The call probes are how the injection policy asks an adapter's call what it read: a protocol
  // between core's invoker and the adapters that is still settling (issue 49 leaves it internal).
  "ai-sdk -> core": ["ProbeVerdict", "hasCallProbe", "probeCall"],
  // The inspector's CLI suggests the closest option name; it renders binary results by their base type.
  "inspector -> core": ["binaryBaseType", "closest"],
  // Remote tools store binary content through the sink `usingArtifacts()` sets on the call (workflows
  // sets it, mcp reads it: the one tool source with binary content so far; a second would make it a
  // documented contract with an accessor), and map SQL states as the invoker does (one table, in core).
  "mcp -> core": ["BINARY_ARTIFACTS_ITEM", "BinaryArtifactSink", "mapSqlState"],
  // The secret detectors' tables: shaping's redaction and core's scrubbing share one list.
  "shaping -> core": ["BUILT_IN_DETECTORS", "IBAN_LENGTHS", "Mark", "SHORTEST_SECRET", "TextDetector", "itemFails"],
  // The builder composes core's pipeline (middleware, probes, outcomes of returned values, decorator
  // checks, the artifacts middleware's binary sink): workflows is the one package that assembles it.
  "workflows -> core": [
    "BINARY_ARTIFACTS_ITEM",
    "BinaryArtifactSink",
    "CALL_PROBE",
    "CallProbe",
    "answerSync",
    "binaryBaseType",
    "binaryMediaType",
    "checkClassDecoratorContext",
    "composeMiddleware",
    "describeOrigin",
    "enclosedRunReadUntrusted",
    "isTransientReturnedFailure",
    "keyedIdempotent",
    "markEnclosingCall",
    "ownAbortAsTimeout",
    "parseToolArguments",
    "raceAbort",
    "registerCallProbes",
    "retriableReturnedFailure",
    "toolValueOutcome",
  ],
  // The built-in journal's implementation the loop is bound to (the writer, the record, the holds, the
  // signed records, the replayed turn's parts). `DurableExecution` is the contract; these are what its
  // built-in implementation shares with the one caller that runs it.
  "workflows -> durable": [
    "DecisionEntry",
    "JournalWriter",
    "RunRecord",
    "checkJsonSignature",
    "finishPart",
    "holdPausedRun",
    "holdRecordedRun",
    "journalExecution",
    "recordedParts",
    "runExists",
    "signDecision",
    "signJson",
    "verifyDecision",
    "withCallIds",
  ],
  // Shaping's resolved options and its truncator, as the builder's plugins run them.
  "workflows -> shaping": [
    "ResolvedRedactionOptions",
    "ResolvedTruncationOptions",
    "assertTokenizerInstalled",
    "createTruncator",
    "resolveRedactionOptions",
    "resolveTruncationOptions",
    "surelyFits",
    "truncatePlainText",
  ],
};

/** One name a source file takes from a `/internal` entry. */
interface InternalName {
  readonly file: string;
  readonly importer: string;
  readonly target: string;
  readonly name: string;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !file.endsWith("test-database.ts"));
}

/** The names each import, re-export or dynamic import of a `@needlework/<x>/internal` entry takes. */
function internalNames(file: string, importer: string): InternalName[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: InternalName[] = [];
  const at = relative(root, file);
  const add = (specifier: string, names: readonly string[]) => {
    const target = /^@needlework\/([a-z-]+)\/internal$/.exec(specifier)?.[1];
    if (target === undefined || target === importer) return;
    for (const name of names) found.push({ file: at, importer, target, name });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const bindings = node.importClause?.namedBindings;
      const names =
        bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => (e.propertyName ?? e.name).text) : ["*"];
      add((node.moduleSpecifier as ts.StringLiteral).text, names);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const clause = node.exportClause;
      const names =
        clause && ts.isNamedExports(clause) ? clause.elements.map((e) => (e.propertyName ?? e.name).text) : ["*"];
      add((node.moduleSpecifier as ts.StringLiteral).text, names);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    )
      add(node.arguments[0].text, ["*"]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const names = readdirSync(packages, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => sourceFiles(join(packages, d.name, "src")).flatMap((file) => internalNames(file, d.name)));

describe("no /internal across packages for what is a contract", () => {
  it("sees the imports it checks (a moved folder would make the rules pass vacuously)", () => {
    expect(names.length).toBeGreaterThan(20);
    expect(names.some((n) => n.importer === "workflows" && n.target === "durable")).toBe(true);
  });

  it("takes from a sibling's /internal only the names listed, with why", () => {
    const unlisted = names
      .filter((n) => !(ALLOWED[`${n.importer} -> ${n.target}`] ?? []).includes(n.name))
      .map((n) => `${n.file}: ${n.name} from @needlework/${n.target}/internal`);
    const fix =
      "import it from the sibling's public entry (core's contract: @needlework/core/kit), or list it with why";
    expect(unlisted, fix).toEqual([]);
  });

  it("lists no name that is no longer imported (the list only shrinks)", () => {
    const stale = Object.entries(ALLOWED).flatMap(([pair, listed]) =>
      listed
        .filter((name) => !names.some((n) => `${n.importer} -> ${n.target}` === pair && n.name === name))
        .map((name) => `${pair}: ${name}`),
    );
    expect(stale).toEqual([]);
  });

  it("the published @needlework/durable/testing entry imports no /internal entry", () => {
    const testing = [
      join(packages, "durable", "src", "testing.ts"),
      ...sourceFiles(join(packages, "durable", "src", "testing")),
    ];
    const internal = testing.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/["'](@needlework\/[a-z-]+\/internal)["']/g)].map(
        (m) => `${relative(root, file)}: ${m[1]}`,
      ),
    );
    expect(internal).toEqual([]);
  });

  it("@needlework/ai-sdk imports nothing of @needlework/workflows (its encoder reads its own event shape)", () => {
    const reaching = sourceFiles(join(packages, "ai-sdk", "src")).filter((file) =>
      /["']@needlework\/workflows(\/[a-z-]+)?["']/.test(readFileSync(file, "utf8")),
    );
    expect(reaching.map((file) => relative(root, file))).toEqual([]);
  });
});
