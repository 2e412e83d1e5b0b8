import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { moduleNames, needleworkName } from "../ast.js";
import { builderChain, type ChainCall, PLUGIN_METHODS } from "../builder-chain.js";
import { createRule } from "../create-rule.js";

/** `usingDiagnostics({ tracer })`: an object argument with a `tracer` property. */
function tracesWithDiagnostics(call: ChainCall): boolean {
  const options = call.call.arguments[0];
  return (
    call.name === "usingDiagnostics" &&
    options?.type === AST_NODE_TYPES.ObjectExpression &&
    options.properties.some(
      (p) =>
        p.type === AST_NODE_TYPES.Property &&
        !p.computed &&
        ((p.key.type === AST_NODE_TYPES.Identifier && p.key.name === "tracer") ||
          (p.key.type === AST_NODE_TYPES.Literal && p.key.value === "tracer")),
    )
  );
}

/**
 * `needlework/no-duplicate-plugin`: one plugin registered twice in one builder chain (NW005), and
 * two plugins that both trace runs and calls, `usingDiagnostics({ tracer })` beside
 * `usingPlugin(openTelemetry(...))` (NW011).
 */
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
      twoTracers:
        "usingDiagnostics({ tracer }) and openTelemetry() both make OpenTelemetry spans for runs and calls: every span would be made twice. Keep one (NW011).",
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
    /** `usingPlugin(openTelemetry(...))`, openTelemetry imported from a needlework package. */
    const tracesWithOpenTelemetry = (c: ChainCall): boolean => {
      const argument = c.call.arguments[0];
      return (
        c.name === "usingPlugin" &&
        argument?.type === AST_NODE_TYPES.CallExpression &&
        needleworkName(argument.callee as TSESTree.Expression, names) === "openTelemetry"
      );
    };
    return {
      CallExpression(node) {
        const calls = builderChain(node, names);
        if (!calls) return;
        const tracing = calls.filter((c) => tracesWithDiagnostics(c) || tracesWithOpenTelemetry(c));
        if (tracing.some(tracesWithDiagnostics) && tracing.some(tracesWithOpenTelemetry))
          context.report({ node: tracing.at(-1)!.member.property, messageId: "twoTracers" });
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
