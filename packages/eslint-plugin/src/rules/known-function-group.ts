import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { findDecorator, moduleNames, optionsObject, propertyOf, resolveConst, staticString } from "../ast.js";
import { createRule } from "../create-rule.js";
import { programDeclarations } from "../program-scan.js";
import { typeInfo } from "../type-info.js";

type Options = [{ knownGroups?: string[] }];

/**
 * The declared group nearest to `group` when it is near enough to be a typo: the rule of core's
 * `closest-name.ts`, which NW007's "did you mean" uses, written again because the plugin loads no
 * needlework package (it lints projects that may not have installed them yet).
 */
function closest(group: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const score = distance(group.toLowerCase(), candidate.toLowerCase());
    if (score < bestScore) [best, bestScore] = [candidate, score];
  }
  return bestScore <= Math.max(2, Math.floor(group.length / 3)) ? best : undefined;
}

/** Levenshtein distance (group names are short). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** `needlework/known-function-group`: an `@Agent` naming a function group nothing declares (NW007). */
export const knownFunctionGroup = createRule<Options, "unknown" | "rename">({
  name: "known-function-group",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description:
        "Require every function group an @Agent or createAgent() names to be declared by an @AgentFunctionGroup",
      buildDiagnostic: "NW007",
      requiresTypeChecking: true,
    },
    schema: [
      {
        type: "object",
        properties: {
          knownGroups: {
            type: "array",
            items: { type: "string" },
            description: "Groups declared outside the program's sources (in a compiled package)",
          },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      unknown:
        "Agent '{{agent}}' names function group '{{group}}', which no @AgentFunctionGroup in this program declares (groups declared: {{declared}}). buildAgentFactory() refuses it (NW007).",
      rename: "Use '{{group}}'.",
    },
  },
  defaultOptions: [{ knownGroups: [] }],
  create(context, [{ knownGroups = [] }]) {
    // Without a program the other files' groups are out of sight: nothing can be said (see the rule's page).
    const program = typeInfo(context)?.program;
    if (!program) return {};
    const names = moduleNames(context);
    /** Reports the names of `functionGroups` in `options` that no group declares. */
    const checkOptions = (options: TSESTree.ObjectExpression, fallbackName: string): void => {
      const property = propertyOf(options, "functionGroups");
      if (!property) return;
      const list = resolveConst(context, property.value);
      if (list.type !== AST_NODE_TYPES.ArrayExpression) return;
      const declarations = programDeclarations(program);
      if (!declarations.groupsComplete) return;
      const groups = new Set([...declarations.groups, ...knownGroups]);
      const agentName = staticString(propertyOf(options, "name")?.value) ?? fallbackName;
      for (const element of list.elements) {
        const group = staticString(element ?? undefined);
        if (element === null || group === undefined || groups.has(group)) continue;
        const near = closest(group, groups);
        context.report({
          node: element,
          messageId: "unknown",
          data: {
            agent: agentName,
            group,
            declared: groups.size === 0 ? "none" : [...groups].sort().join(", "),
          },
          suggest: near
            ? [
                {
                  messageId: "rename",
                  data: { group: near },
                  fix: (fixer) => fixer.replaceText(element, JSON.stringify(near)),
                },
              ]
            : [],
        });
      }
    };
    const checkClass = (node: TSESTree.ClassDeclaration | TSESTree.ClassExpression): void => {
      const agent = findDecorator(node.decorators, "Agent", names);
      const options = agent && optionsObject(context, agent);
      if (options) checkOptions(options, node.id?.name ?? "(unnamed)");
    };
    return {
      ClassDeclaration: checkClass,
      ClassExpression: checkClass,
      // `factory.createAgent({ name, functionGroups })` and `factory.createAgent(SupportAgent, { functionGroups })`:
      // the factory refuses unknown groups when it creates the agent.
      CallExpression(node) {
        const callee = node.callee;
        if (
          callee.type !== AST_NODE_TYPES.MemberExpression ||
          callee.computed ||
          callee.property.type !== AST_NODE_TYPES.Identifier ||
          callee.property.name !== "createAgent"
        )
          return;
        const [first, second] = node.arguments;
        // createAgent(SupportAgent, overrides) changes a declared agent: it keeps the class's name.
        const declared =
          first?.type === AST_NODE_TYPES.Identifier &&
          resolveConst(context, first).type !== AST_NODE_TYPES.ObjectExpression
            ? first.name
            : "(created)";
        for (const argument of [first, second]) {
          if (!argument || argument.type === AST_NODE_TYPES.SpreadElement) continue;
          const options = resolveConst(context, argument);
          if (options.type === AST_NODE_TYPES.ObjectExpression) checkOptions(options, declared);
        }
      },
    };
  },
});
