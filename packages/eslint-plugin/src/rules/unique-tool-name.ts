import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { moduleNames, needleworkName, toolMethod } from "../ast.js";
import { builderChain } from "../builder-chain.js";
import { createRule } from "../create-rule.js";
import { type ClassFacts, classFactsOf } from "../tool-facts.js";
import { toolNameOf } from "./tool-name.js";

/**
 * `needlework/unique-tool-name`: two tools published under one name. Within one class (a method
 * named like another tool's `name` counts), `@AgentFunctionGroup` refuses them as the class loads
 * (`ToolDefinitionError`); across the classes one builder registers (`addAgentFunctions(A, B)`,
 * `registerAgentFunctions(container, A, B)`), `buildAgentFactory()` does (`ToolRegistrationError`).
 */
export const uniqueToolName = createRule({
  name: "unique-tool-name",
  meta: {
    type: "problem",
    docs: {
      description: "Disallow two tools published under one name, in one class or in one builder",
    },
    schema: [],
    messages: {
      inClass:
        "Tool name '{{name}}' is already published by {{other}} in this class: @AgentFunctionGroup refuses two tools with one name when the class loads (ToolDefinitionError). Give one a different `name` in @AgentFunction.",
      inBuilder:
        "{{className}} publishes tool '{{name}}', which {{otherClass}}.{{otherMethod}} already publishes: buildAgentFactory() refuses two tools with one name (ToolRegistrationError). Give one a different `name` in @AgentFunction.",
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    const checkClass = (node: TSESTree.ClassDeclaration | TSESTree.ClassExpression): void => {
      const seen = new Map<string, string>();
      for (const member of node.body.body) {
        if (member.type !== AST_NODE_TYPES.MethodDefinition && member.type !== AST_NODE_TYPES.PropertyDefinition)
          continue;
        const tool = toolMethod(context, member, names);
        if (!tool || (!tool.options && tool.decorator.arguments.length > 0)) continue;
        const name = toolNameOf(tool);
        if (name === "(computed)" || name.trim() === "") continue; // a blank name is no-blank-tool-name's
        const method = member.key.type === AST_NODE_TYPES.Identifier ? member.key.name : name;
        const other = seen.get(name);
        if (other === undefined) {
          seen.set(name, method);
          continue;
        }
        context.report({
          node: member.key,
          messageId: "inClass",
          data: { name, other: other === name ? `method ${other}` : `${other} (its \`name\`)` },
        });
      }
    };
    /** Reports the classes among `classes` whose tools collide with an earlier class's. */
    const checkRegistered = (classes: readonly TSESTree.Node[]): void => {
      const published = new Map<string, { readonly facts: ClassFacts; readonly method: string }>();
      const done = new Set<string>();
      for (const argument of classes) {
        const facts = classFactsOf(context, argument, names);
        if (!facts || done.has(facts.className)) continue; // the same class twice is registered once
        done.add(facts.className);
        const own = new Set<string>(); // collisions inside one class are the class's own report
        for (const tool of facts.tools) {
          if (tool.name === undefined || tool.name.trim() === "" || own.has(tool.name)) continue;
          own.add(tool.name);
          const other = published.get(tool.name);
          if (!other) {
            published.set(tool.name, { facts, method: tool.methodName });
            continue;
          }
          context.report({
            node: argument,
            messageId: "inBuilder",
            data: {
              className: facts.className,
              name: tool.name,
              otherClass: other.facts.className,
              otherMethod: other.method,
            },
          });
        }
      }
    };
    return {
      ClassDeclaration: checkClass,
      ClassExpression: checkClass,
      CallExpression(node) {
        if (needleworkName(node.callee, names) === "registerAgentFunctions") {
          checkRegistered(node.arguments.slice(1));
          return;
        }
        const calls = builderChain(node, names);
        if (calls)
          checkRegistered(calls.filter((c) => c.name === "addAgentFunctions").flatMap((c) => c.call.arguments));
      },
    };
  },
});
