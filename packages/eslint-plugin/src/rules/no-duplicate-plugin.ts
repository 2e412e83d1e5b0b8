import { moduleNames } from "../ast.js";
import { builderChain, type ChainCall, PLUGIN_METHODS } from "../builder-chain.js";
import { createRule } from "../create-rule.js";

/** `needlework/no-duplicate-plugin`: one plugin registered twice in one builder chain (NW005). */
export const noDuplicatePlugin = createRule({
  name: "no-duplicate-plugin",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description: "Disallow registering one plugin twice in a builder chain",
      buildDiagnostic: "NW005",
    },
    schema: [],
    messages: {
      duplicate:
        "{{plugin}} is registered twice in this chain: its behaviour would apply twice (retries multiply, results are wrapped twice). Register it once (NW005).",
      remove: "Remove this second {{plugin}}.",
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    const sourceCode = context.sourceCode;
    /** What makes two calls the same plugin: the method, or for usingPlugin(x) the text of x. */
    const identity = (c: ChainCall): string | undefined => {
      if (PLUGIN_METHODS.has(c.name)) return `${c.name}()`;
      const argument = c.call.arguments[0];
      if (c.name === "usingPlugin" && argument) return `usingPlugin(${sourceCode.getText(argument)})`;
      return undefined;
    };
    return {
      CallExpression(node) {
        const calls = builderChain(node, names);
        if (!calls) return;
        const seen = new Set<string>();
        for (const c of calls) {
          const plugin = identity(c);
          if (plugin === undefined) continue;
          if (!seen.has(plugin)) {
            seen.add(plugin);
            continue;
          }
          // From the end of what precedes the dot (a call, or a comment that stays) to the end of this call.
          const dot = sourceCode.getTokenBefore(c.member.property);
          const before = dot && sourceCode.getTokenBefore(dot, { includeComments: true });
          context.report({
            node: c.member.property,
            messageId: "duplicate",
            data: { plugin },
            suggest: before
              ? [
                  {
                    messageId: "remove",
                    data: { plugin },
                    fix: (fixer) => fixer.removeRange([before.range[1], c.call.range[1]]),
                  },
                ]
              : [],
          });
        }
      },
    };
  },
});
