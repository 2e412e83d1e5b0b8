import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { moduleNames } from "../ast.js";
import { createRule } from "../create-rule.js";
import { typeInfo } from "../type-info.js";
import { injectProperty, parameterBinding, requiredCount, toolClass } from "../tool-class.js";

/** `delay(() => OrderRepository)` names OrderRepository. */
function tokenExpression(element: TSESTree.Node): TSESTree.Node {
  if (
    element.type === AST_NODE_TYPES.CallExpression &&
    element.callee.type === AST_NODE_TYPES.Identifier &&
    element.callee.name === "delay" &&
    element.arguments[0]?.type === AST_NODE_TYPES.ArrowFunctionExpression &&
    element.arguments[0].body.type !== AST_NODE_TYPES.BlockStatement
  )
    return element.arguments[0].body;
  return element;
}

/** `needlework/inject-matches-constructor`: an `inject` list that does not match the constructor. */
export const injectMatchesConstructor = createRule({
  name: "inject-matches-constructor",
  meta: {
    type: "problem",
    docs: {
      description: "Require `inject` to name one token per constructor parameter, of a matching type",
    },
    schema: [],
    messages: {
      tooFew:
        "`inject` names {{tokens}} token(s) but the constructor of {{name}} takes {{count}} parameter(s): buildAgentFactory() refuses the class. Name one token per parameter, in order.",
      tooMany:
        "`inject` names {{tokens}} token(s) but the constructor of {{name}} takes {{count}}: the extra token(s) are resolved and thrown away, which usually means the list is out of date.",
      wrongType:
        "inject[{{index}}] gives {{given}}, but parameter '{{parameter}}' of {{name}} expects {{expected}}: tsyringe injects by position, so the tool would get the wrong object.",
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    // The lengths are read from the source; the types need the program (without it, only lengths).
    const services = typeInfo(context)?.services;
    const checker = services?.program.getTypeChecker();
    const check = (node: TSESTree.ClassDeclaration | TSESTree.ClassExpression): void => {
      const tool = toolClass(node, names);
      if (!tool) return;
      const inject = injectProperty(context, tool);
      if (!inject?.list) return;
      const elements = inject.list.elements;
      if (elements.some((e) => e === null || e.type === AST_NODE_TYPES.SpreadElement)) return;
      if (!tool.parameters && node.superClass) return; // the inherited constructor is not in view
      const parameters = tool.parameters ?? [];
      const declared = parameters.filter((p) => parameterBinding(p).type !== AST_NODE_TYPES.RestElement).length;
      const required = requiredCount(parameters);
      const name = node.id?.name ?? "this class";
      if (elements.length < required) {
        context.report({
          node: inject.list,
          messageId: "tooFew",
          data: { tokens: elements.length, name, count: required },
        });
        return;
      }
      if (elements.length > declared) {
        context.report({
          node: inject.list,
          messageId: "tooMany",
          data: { tokens: elements.length, name, count: declared },
        });
        return;
      }
      if (!checker || !services) return; // the types need type information
      elements.forEach((element, index) => {
        if (!element || element.type === AST_NODE_TYPES.SpreadElement) return;
        const token = tokenExpression(element);
        const signatures = services.getTypeAtLocation(token).getConstructSignatures();
        // Strings, symbols and InjectionToken objects say nothing about the type: skip them.
        if (signatures.length === 0) return;
        const given = checker.getReturnTypeOfSignature(signatures[0]!);
        const binding = parameterBinding(parameters[index]!);
        if (binding.type !== AST_NODE_TYPES.Identifier || !binding.typeAnnotation) return;
        const expected = services.getTypeAtLocation(binding);
        if (checker.isTypeAssignableTo(given, expected)) return;
        context.report({
          node: element,
          messageId: "wrongType",
          data: {
            index,
            given: checker.typeToString(given),
            parameter: binding.name,
            name,
            expected: checker.typeToString(expected),
          },
        });
      });
    };
    return { ClassDeclaration: check, ClassExpression: check };
  },
});
