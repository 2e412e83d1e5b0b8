import { dirname, relative } from "node:path";
import { createRule } from "../create-rule.js";
import { importGraph, type LoadedModule } from "../program-scan.js";
import { typeInfo } from "../type-info.js";

/** Packages that install `Reflect.getMetadata` (tsyringe accepts any of them), and needlework's, which load reflect-metadata first. */
export function installsReflect(specifier: string): boolean {
  return (
    specifier === "reflect-metadata" ||
    specifier.startsWith("reflect-metadata/") ||
    specifier === "core-js/es7/reflect" ||
    specifier === "core-js/proposals/reflect-metadata" ||
    specifier === "@abraham/reflection" ||
    specifier.startsWith("@needlework/")
  );
}

/** Test files, whose runner may load the polyfill first (Vitest or Jest `setupFiles`). */
const TEST_FILE = /(\.|\/|\\)(test|spec)\.[cm]?[jt]sx?$|[\\/]__tests__[\\/]/;

/**
 * What the program loads first, tsyringe or a Reflect polyfill, when `fileName` is evaluated: its
 * imports in order, depth first through the program's own modules, the way ES modules evaluate.
 * Returns the path of imports that reaches tsyringe first, or `undefined` when a polyfill (or
 * nothing) comes first.
 */
function tsyringeFirst(
  loads: ReadonlyMap<string, readonly LoadedModule[]>,
  fileName: string,
): readonly LoadedModule[] | undefined {
  const visited = new Set<string>();
  let outcome: "polyfill" | readonly LoadedModule[] | undefined;
  const walk = (file: string, path: readonly LoadedModule[]): void => {
    if (visited.has(file)) return;
    visited.add(file);
    for (const loaded of loads.get(file) ?? []) {
      if (outcome !== undefined) return;
      if (loaded.fileName !== undefined) walk(loaded.fileName, [...path, loaded]);
      else if (installsReflect(loaded.specifier)) outcome = "polyfill";
      else if (loaded.specifier === "tsyringe") outcome = [...path, loaded];
    }
  };
  walk(fileName, []);
  return outcome === "polyfill" ? undefined : outcome;
}

/**
 * `needlework/reflect-metadata-entry`: an entry point whose imports load tsyringe before any Reflect
 * polyfill. tsyringe throws "tsyringe requires a reflect polyfill" when it loads, so the program
 * stops at start-up.
 */
export const reflectMetadataEntry = createRule({
  name: "reflect-metadata-entry",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description:
        "Require an entry point to load reflect-metadata before anything that loads tsyringe, across modules",
      requiresTypeChecking: true,
    },
    schema: [],
    messages: {
      missing:
        "This module is an entry point (no module of the program imports it), and its imports load 'tsyringe'{{through}} before 'reflect-metadata': tsyringe throws \"tsyringe requires a reflect polyfill\" at start-up. Make `import \"reflect-metadata\";` the entry's first import.",
      addImport: 'Add `import "reflect-metadata";` as the first import.',
    },
  },
  defaultOptions: [],
  create(context) {
    const types = typeInfo(context);
    // Which modules import which is the program's to say: without it, nothing (see the rule's page).
    if (!types || TEST_FILE.test(types.fileName)) return {};
    const { program, fileName } = types;
    return {
      Program(node) {
        const graph = importGraph(program);
        if (graph.imported.has(fileName) || !graph.loads.has(fileName)) return;
        const path = tsyringeFirst(graph.loads, fileName);
        const first = path?.[0];
        if (!path || !first) return;
        const declaration = node.body.find((s) => s.range[0] === first.position);
        const through =
          path.length > 1
            ? ` (through ${path
                .slice(0, -1)
                .map((m) => relative(dirname(fileName), m.fileName!).replaceAll("\\", "/"))
                .join(" → ")})`
            : "";
        const firstStatement = node.body[0];
        context.report({
          node: declaration ?? node,
          messageId: "missing",
          data: { through },
          suggest: firstStatement
            ? [
                {
                  messageId: "addImport",
                  fix: (fixer) => fixer.insertTextBefore(firstStatement, 'import "reflect-metadata";\n'),
                },
              ]
            : [],
        });
      },
    };
  },
});
