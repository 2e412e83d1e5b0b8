import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { moduleNames, needleworkName, optionsObject, propertyOf, resolveConst, staticString } from "../ast.js";
import { builderChain } from "../builder-chain.js";
import { createRule } from "../create-rule.js";
import { classFactsOf } from "../tool-facts.js";

/** The `name` of a `defineTool({ name: "..." })` (through `const`), with the node to report at. */
function definedName(
  context: Parameters<ReturnType<typeof createRule>["create"]>[0],
  node: TSESTree.Node,
  names: ReturnType<typeof moduleNames>,
): { readonly name: string; readonly node: TSESTree.Node } | undefined {
  const call = resolveConst(context, node);
  if (
    call.type !== AST_NODE_TYPES.CallExpression ||
    needleworkName(call.callee as TSESTree.Expression, names) !== "defineTool"
  )
    return undefined;
  const options = optionsObject(context, call);
  const name = staticString(options && propertyOf(options, "name")?.value);
  return name === undefined || name.trim() === "" ? undefined : { name, node };
}

/**
 * `needlework/unique-defined-tool-name`: a tool made by `defineTool` and added with `.addTools(...)`
 * published under a name another tool of the same builder already has (a decorated method of an
 * `addAgentFunctions` class, or another defined tool): `buildAgentFactory()` refuses it (NW012).
 */
export const uniqueDefinedToolName = createRule({
  name: "unique-defined-tool-name",
  meta: {
    type: "problem",
    docs: {
      description: "Disallow a tool added with addTools(defineTool(...)) under a name another tool of the builder has",
      buildDiagnostic: "NW012",
    },
    schema: [],
    messages: {
      collision:
        "Tool '{{name}}' (defineTool) is already published by {{other}} in this builder: the model could not tell them apart, and buildAgentFactory() refuses it (NW012). Give one a different `name`.",
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    return {
      CallExpression(node) {
        const calls = builderChain(node, names);
        if (!calls) return;
        const published = new Map<string, string>();
        for (const call of calls.filter((c) => c.name === "addAgentFunctions")) {
          for (const argument of call.call.arguments) {
            const facts = classFactsOf(context, argument, names);
            for (const tool of facts?.tools ?? [])
              if (tool.name !== undefined && !published.has(tool.name))
                published.set(tool.name, `${facts!.className}.${tool.methodName}`);
          }
        }
        for (const call of calls.filter((c) => c.name === "addTools")) {
          const entries = call.call.arguments.flatMap((argument) => {
            const value = resolveConst(context, argument);
            return value.type === AST_NODE_TYPES.ArrayExpression
              ? value.elements.filter(
                  (e): e is TSESTree.Expression => e !== null && e.type !== AST_NODE_TYPES.SpreadElement,
                )
              : [argument];
          });
          const seen = new Set<TSESTree.Node>();
          for (const entry of entries) {
            const defined = definedName(context, entry, names);
            if (defined === undefined) continue;
            const target = resolveConst(context, entry);
            if (seen.has(target)) continue; // one tool added twice is added once
            seen.add(target);
            const other = published.get(defined.name);
            if (other === undefined) {
              published.set(defined.name, "another defineTool");
              continue;
            }
            context.report({ node: defined.node, messageId: "collision", data: { name: defined.name, other } });
          }
        }
      },
    };
  },
});
