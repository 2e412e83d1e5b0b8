import { AST_NODE_TYPES, ASTUtils, type TSESTree } from "@typescript-eslint/utils";
import { type ModuleNames, moduleNames, resolveConst } from "../ast.js";
import { builderChain, type ChainCall } from "../builder-chain.js";
import { createRule } from "../create-rule.js";
import {
  type AgentFacts,
  agentFactsOf,
  agentFactsOfOptions,
  type ClassFacts,
  classFactsOf,
  selectedTools,
  type ToolFacts,
} from "../tool-facts.js";

type Context = Parameters<typeof agentFactsOf>[0];
type Judged = { readonly agent: AgentFacts | undefined; readonly node: TSESTree.Node };

/** The agents a chain declares: each `@Agent` of its `addAgents(...)`. */
function declaredAgents(context: Context, calls: readonly ChainCall[], names: ModuleNames): Judged[] {
  return calls
    .filter((c) => c.name === "addAgents")
    .flatMap((c) =>
      c.call.arguments.map((argument) => ({ agent: agentFactsOf(context, argument, names), node: argument })),
    );
}

/**
 * The agents this file creates from options on the chain's factory:
 * `const factory = usingAgentFramework(...)....buildAgentFactory(); factory.createAgent({...})`.
 * (`createAgent(SupportAgent, overrides)` and `createAgent("support")` take a declared agent.)
 */
function createdAgents(context: Context, calls: readonly ChainCall[]): Judged[] {
  const out: Judged[] = [];
  const declarator = calls.at(-1)!.call.parent;
  if (declarator?.type !== AST_NODE_TYPES.VariableDeclarator || declarator.id.type !== AST_NODE_TYPES.Identifier)
    return out;
  const variable = ASTUtils.findVariable(context.sourceCode.getScope(declarator), declarator.id);
  for (const reference of variable?.references ?? []) {
    const member = reference.identifier.parent;
    const call = member?.parent;
    if (
      member?.type !== AST_NODE_TYPES.MemberExpression ||
      member.object !== reference.identifier ||
      member.property.type !== AST_NODE_TYPES.Identifier ||
      member.property.name !== "createAgent" ||
      call?.type !== AST_NODE_TYPES.CallExpression ||
      call.callee !== member
    )
      continue;
    const first = call.arguments[0];
    if (!first || first.type === AST_NODE_TYPES.SpreadElement) continue;
    const options = resolveConst(context, first);
    if (options.type === AST_NODE_TYPES.ObjectExpression)
      out.push({ agent: agentFactsOfOptions(context, options), node: call });
  }
  return out;
}

/** The three legs of the Rule of Two, each with a tool that has it; `undefined` unless all three are there. */
function combination(tools: readonly ToolFacts[]) {
  const untrusted = tools.find((t) => t.reads === "untrusted");
  const sensitive = tools.find((t) => t.sensitive);
  const external = tools.find((t) => t.effects === "external");
  return untrusted && sensitive && external ? { untrusted, sensitive, external } : undefined;
}

/**
 * `needlework/injection-policy`: an agent that combines untrusted reads, sensitive access and
 * external effects, built by a chain with no `usingInjectionPolicy(...)` (NW010, Meta's "Agents
 * Rule of Two").
 */
export const injectionPolicy = createRule({
  name: "injection-policy",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description:
        "Require usingInjectionPolicy() on a builder whose agent combines untrusted reads, sensitive reads and external effects",
      buildDiagnostic: "NW010",
    },
    schema: [],
    messages: {
      unguarded:
        '{{agent}} combine untrusted reads (\'{{untrusted}}\'), sensitive reads (\'{{sensitive}}\') and external effects (\'{{external}}\'{{undeclared}}) with no injection policy: text a third party wrote could make the model send private data out. Add .usingInjectionPolicy({ afterUntrusted: "arguments" }) (or "approve"/"deny") to this builder, declare effects ("none", "internal") on tools that change nothing outside, or split the agent (NW010).',
      addPolicy: 'Add `.usingInjectionPolicy({ afterUntrusted: "arguments" })` to the builder.',
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    const sourceCode = context.sourceCode;
    return {
      CallExpression(node) {
        const calls = builderChain(node, names);
        if (!calls || calls.some((c) => c.name === "usingInjectionPolicy")) return;
        const classes: ClassFacts[] = [];
        for (const c of calls) {
          if (c.name !== "addAgentFunctions") continue;
          for (const argument of c.call.arguments) {
            const facts = classFactsOf(context, argument, names);
            if (facts) classes.push(facts);
          }
        }
        if (classes.length === 0) return;
        const root = calls[0]!.member.object;
        // As NW010: each declared agent, or the factory's whole tool set when none is declared (what an
        // agent without a selection, and an adapter serving factory.tools, offer). Agents this file
        // creates from options are judged too when agents are declared: the build does not see them.
        const declared = declaredAgents(context, calls, names);
        const judged: Judged[] =
          declared.length > 0 ? [...declared, ...createdAgents(context, calls)] : [{ agent: undefined, node: root }];
        for (const { agent, node: at } of judged) {
          const tools = selectedTools(classes, agent);
          const found = tools && combination(tools);
          if (!found) continue;
          context.report({
            node: at,
            messageId: "unguarded",
            data: {
              agent: agent ? `Agent '${agent.name}'` : "This factory's tools",
              untrusted: found.untrusted.name ?? found.untrusted.methodName,
              sensitive: found.sensitive.name ?? found.sensitive.methodName,
              external: found.external.name ?? found.external.methodName,
              undeclared: found.external.effectsDeclared ? "" : ", undeclared effects count as external",
            },
            suggest: [
              {
                messageId: "addPolicy",
                fix: (fixer) =>
                  fixer.insertTextAfter(
                    root,
                    `${sourceCode.text.slice(root.range[1], calls[0]!.member.range[1]).includes("\n") ? "\n  " : ""}.usingInjectionPolicy({ afterUntrusted: "arguments" })`,
                  ),
              },
            ],
          });
        }
      },
    };
  },
});
