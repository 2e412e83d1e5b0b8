import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { moduleNames, propertyOf, resolveConst, toolMethod } from "../ast.js";
import { createRule } from "../create-rule.js";
import { toolNameOf } from "./tool-name.js";

const EFFECTS = ["none", "internal", "external"] as const;

/**
 * `needlework/declare-effects`: an `@AgentFunction` that does not say what it changes. Undeclared
 * effects count as external, so `usingInjectionPolicy()` gates a read-only tool after untrusted
 * content as if it sent money, and the build's Rule-of-Two check counts it as an external effect.
 */
export const declareEffects = createRule({
  name: "declare-effects",
  meta: {
    type: "suggestion",
    hasSuggestions: true,
    docs: {
      description: 'Require every @AgentFunction to declare `effects` (or `readOnly: true`, which counts as "none")',
    },
    schema: [],
    messages: {
      undeclared:
        '@AgentFunction \'{{tool}}\' does not declare `effects`, so it counts as external: after untrusted content the injection policy gates it like a payment, and it counts toward the Rule of Two. Say what it changes: `effects: "none"` (it only reads), `"internal"` (your own system\'s state) or `"external"` (money, messages, anything seen outside).',
      declare: 'Declare `effects: "{{effects}}"`.',
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    const check = (member: TSESTree.MethodDefinition | TSESTree.PropertyDefinition): void => {
      const tool = toolMethod(context, member, names);
      const options = tool?.options;
      // Options held elsewhere (spread, a function's result) are not guessed at.
      if (!tool || !options || options.properties.some((p) => p.type === AST_NODE_TYPES.SpreadElement)) return;
      if (propertyOf(options, "effects")) return;
      const readOnly = propertyOf(options, "readOnly");
      const value = readOnly && resolveConst(context, readOnly.value);
      if (value?.type === AST_NODE_TYPES.Literal && value.value === true) return; // readOnly: true is effects "none"
      if (readOnly && value?.type !== AST_NODE_TYPES.Literal) return; // readOnly computed: not known
      const last = options.properties.at(-1);
      context.report({
        node: tool.decorator,
        messageId: "undeclared",
        data: { tool: toolNameOf(tool) },
        suggest: EFFECTS.map((effects) => ({
          messageId: "declare" as const,
          data: { effects },
          fix: (fixer) =>
            last
              ? fixer.insertTextAfter(last, `, effects: "${effects}"`)
              : fixer.replaceText(options, `{ effects: "${effects}" }`),
        })),
      });
    };
    return { MethodDefinition: check, PropertyDefinition: check };
  },
});
