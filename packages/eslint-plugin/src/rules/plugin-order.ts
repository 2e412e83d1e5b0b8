import { moduleNames } from "../ast.js";
import { builderChain, swapCalls } from "../builder-chain.js";
import { createRule } from "../create-rule.js";

/** `needlework/plugin-order`: plugins in an order that defeats them (NW001, NW006, NW013). */
export const pluginOrder = createRule({
  name: "plugin-order",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description:
        "Require usingResilience() before usingToolResultMiddleware(), shaping plugins after it, and usingArtifacts() after redaction, in one builder chain",
      buildDiagnostic: "NW001",
    },
    schema: [],
    messages: {
      resultBeforeResilience:
        "usingToolResultMiddleware() comes before usingResilience(): the result middleware turns failures into outcomes before resilience can retry them, so retries are defeated. Call usingResilience() first (NW001).",
      shapingInsideResult:
        "{{method}}() comes before usingToolResultMiddleware(): it shapes raw tool values, so the failure messages and suggestions the result middleware adds are not {{shaped}}. Call it after usingToolResultMiddleware() (NW006).",
      artifactsInside:
        "usingArtifacts() comes before {{method}}(): {{why}} Call usingArtifacts() after usingToolResultMiddleware() and usingRedaction() (NW013).",
      swap: "Swap {{first}}() and {{second}}().",
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    const sourceCode = context.sourceCode;
    return {
      CallExpression(node) {
        const calls = builderChain(node, names);
        if (!calls) return;
        const artifacts = calls.find((c) => c.name === "usingArtifacts");
        for (const later of artifacts ? calls.slice(calls.indexOf(artifacts) + 1) : []) {
          if (later.name !== "usingRedaction" && later.name !== "usingToolResultMiddleware") continue;
          const why =
            later.name === "usingRedaction"
              ? "redaction belongs inside it, so what it stores is the redacted outcome."
              : "it would store raw tool values, and failures the result middleware makes would never be offloaded.";
          context.report({
            node: artifacts!.member.property,
            messageId: "artifactsInside",
            data: { method: later.name, why },
            suggest: [
              {
                messageId: "swap",
                data: { first: artifacts!.name, second: later.name },
                fix: (fixer) => swapCalls(sourceCode, fixer, artifacts!, later),
              },
            ],
          });
        }
        const result = calls.find((c) => c.name === "usingToolResultMiddleware");
        if (!result) return;
        const resultAt = calls.indexOf(result);
        const resilience = calls.find((c) => c.name === "usingResilience");
        if (resilience && calls.indexOf(resilience) > resultAt) {
          context.report({
            node: result.member.property,
            messageId: "resultBeforeResilience",
            suggest: [
              {
                messageId: "swap",
                data: { first: result.name, second: resilience.name },
                fix: (fixer) => swapCalls(sourceCode, fixer, result, resilience),
              },
            ],
          });
        }
        for (const shaping of calls.slice(0, resultAt)) {
          if (shaping.name !== "usingTruncation" && shaping.name !== "usingRedaction") continue;
          context.report({
            node: shaping.member.property,
            messageId: "shapingInsideResult",
            data: { method: shaping.name, shaped: shaping.name === "usingTruncation" ? "truncated" : "redacted" },
            suggest: [
              {
                messageId: "swap",
                data: { first: shaping.name, second: result.name },
                fix: (fixer) => swapCalls(sourceCode, fixer, shaping, result),
              },
            ],
          });
        }
      },
    };
  },
});
