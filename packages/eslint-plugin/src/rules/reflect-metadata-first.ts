import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { createRule } from "../create-rule.js";

/** A statement that loads a module when this one is evaluated, with its source. */
function loadedModule(statement: TSESTree.ProgramStatement): string | undefined {
  if (statement.type === AST_NODE_TYPES.ImportDeclaration)
    return statement.importKind === "type" ? undefined : statement.source.value;
  if (
    (statement.type === AST_NODE_TYPES.ExportNamedDeclaration ||
      statement.type === AST_NODE_TYPES.ExportAllDeclaration) &&
    statement.source &&
    statement.exportKind !== "type"
  )
    return statement.source.value;
  return undefined;
}

const NEEDS_REFLECT = (source: string): boolean => source === "tsyringe" || source.startsWith("@needlework/");

/** `needlework/reflect-metadata-first`: `reflect-metadata` imported after tsyringe or needlework. */
export const reflectMetadataFirst = createRule({
  name: "reflect-metadata-first",
  meta: {
    type: "problem",
    fixable: "code",
    docs: {
      description: 'Require `import "reflect-metadata"` before any import of tsyringe or @needlework/*',
    },
    schema: [],
    messages: {
      late: '"reflect-metadata" is imported after \'{{first}}\': imports run in order, and tsyringe needs the Reflect polyfill when it loads ("tsyringe requires a reflect polyfill"). Import reflect-metadata first.',
    },
  },
  defaultOptions: [],
  create(context) {
    const sourceCode = context.sourceCode;
    return {
      Program(program) {
        let first: { statement: TSESTree.ProgramStatement; source: string } | undefined;
        for (const statement of program.body) {
          const source = loadedModule(statement);
          if (source === undefined) continue;
          if (source === "reflect-metadata") {
            if (!first) return;
            const from = first;
            context.report({
              node: statement,
              messageId: "late",
              data: { first: from.source },
              fix: (fixer) => {
                const next = sourceCode.text[statement.range[1]] === "\n" ? 1 : 0;
                return [
                  fixer.removeRange([statement.range[0], statement.range[1] + next]),
                  fixer.insertTextBefore(from.statement, `${sourceCode.getText(statement)}\n`),
                ];
              },
            });
            return;
          }
          if (!first && NEEDS_REFLECT(source)) first = { statement, source };
        }
      },
    };
  },
});
