import { AST_NODE_TYPES, type TSESTree } from "@typescript-eslint/utils";
import { findDecorator, moduleNames, needleworkName } from "../ast.js";
import { createRule } from "../create-rule.js";

/** `JSON.stringify(...)` */
function isStringify(node: TSESTree.Node): boolean {
  return (
    node.type === AST_NODE_TYPES.CallExpression &&
    node.callee.type === AST_NODE_TYPES.MemberExpression &&
    !node.callee.computed &&
    node.callee.object.type === AST_NODE_TYPES.Identifier &&
    node.callee.object.name === "JSON" &&
    node.callee.property.type === AST_NODE_TYPES.Identifier &&
    node.callee.property.name === "stringify"
  );
}

/** `needlework/no-stringified-result`: a tool returning `JSON.stringify(...)`. */
export const noStringifiedResult = createRule({
  name: "no-stringified-result",
  meta: {
    type: "suggestion",
    hasSuggestions: true,
    docs: {
      description: "Disallow tools returning JSON.stringify(...): the envelope serializes data already",
    },
    schema: [],
    messages: {
      stringified:
        "This tool returns JSON.stringify(...): the envelope serializes data already, so the model reads an escaped string inside JSON, and truncation cannot cut it by items. Return the value itself.",
      returnValue: "Return the value instead of its JSON text.",
    },
  },
  defaultOptions: [],
  create(context) {
    const names = moduleNames(context);
    const sourceCode = context.sourceCode;
    /** Whether a function is the body of an `@AgentFunction` method or property. */
    const isToolBody = (fn: TSESTree.Node): boolean => {
      const owner = fn.parent;
      return (
        (owner?.type === AST_NODE_TYPES.MethodDefinition || owner?.type === AST_NODE_TYPES.PropertyDefinition) &&
        findDecorator(owner.decorators, "AgentFunction", names) !== undefined
      );
    };
    /** The `JSON.stringify(...)` a returned expression is, through `await` and `ToolResult.ok(...)`. */
    const stringifiedIn = (node: TSESTree.Node | null | undefined): TSESTree.CallExpression | undefined => {
      let current: TSESTree.Node | null | undefined = node;
      while (current) {
        if (isStringify(current)) return current as TSESTree.CallExpression;
        if (current.type === AST_NODE_TYPES.AwaitExpression) current = current.argument;
        else if (
          current.type === AST_NODE_TYPES.CallExpression &&
          current.callee.type === AST_NODE_TYPES.MemberExpression &&
          current.callee.object.type !== AST_NODE_TYPES.Super &&
          needleworkName(current.callee.object, names) === "ToolResult" &&
          current.callee.property.type === AST_NODE_TYPES.Identifier &&
          current.callee.property.name === "ok"
        )
          current = current.arguments[0];
        else return undefined;
      }
      return undefined;
    };
    const report = (call: TSESTree.CallExpression): void => {
      const value = call.arguments[0];
      context.report({
        node: call,
        messageId: "stringified",
        suggest:
          call.arguments.length === 1 && value && value.type !== AST_NODE_TYPES.SpreadElement
            ? [
                {
                  messageId: "returnValue",
                  fix: (fixer) => {
                    const text = sourceCode.getText(value);
                    // `() => JSON.stringify({...})` becomes `() => ({...})`, not a block.
                    const isArrowBody =
                      call.parent?.type === AST_NODE_TYPES.ArrowFunctionExpression && call.parent.body === call;
                    return fixer.replaceText(
                      call,
                      isArrowBody && value.type === AST_NODE_TYPES.ObjectExpression ? `(${text})` : text,
                    );
                  },
                },
              ]
            : [],
      });
    };
    const functions: TSESTree.Node[] = [];
    const enter = (fn: TSESTree.FunctionLike): void => {
      functions.push(fn);
      if (fn.type === AST_NODE_TYPES.ArrowFunctionExpression && fn.expression && isToolBody(fn)) {
        const call = stringifiedIn(fn.body);
        if (call) report(call);
      }
    };
    const exit = (): void => {
      functions.pop();
    };
    return {
      FunctionExpression: enter,
      "FunctionExpression:exit": exit,
      ArrowFunctionExpression: enter,
      "ArrowFunctionExpression:exit": exit,
      FunctionDeclaration: enter,
      "FunctionDeclaration:exit": exit,
      ReturnStatement(node) {
        const fn = functions.at(-1);
        if (!fn || !isToolBody(fn)) return;
        const call = stringifiedIn(node.argument);
        if (call) report(call);
      },
    };
  },
});
