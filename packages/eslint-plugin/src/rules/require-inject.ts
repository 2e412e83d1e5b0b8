import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import ts from "typescript";
import { moduleNames, resolveConst } from "../ast.js";
import { createRule } from "../create-rule.js";
import { injectProperty, parameterBinding, requiredCount, type ToolClass, toolClass } from "../tool-class.js";
import { typeInfo } from "../type-info.js";

type Options = [{ metadata?: "tsconfig" | "none" }];

/** Whether tsyringe's own `@inject(token)` names the parameter (with `experimentalDecorators`). */
function hasInjectDecorator(parameter: TSESTree.Parameter): boolean {
  return (parameter.decorators ?? []).some(
    (d) =>
      d.expression.type === AST_NODE_TYPES.CallExpression &&
      d.expression.callee.type === AST_NODE_TYPES.Identifier &&
      /^inject(All|WithTransform|AllWithTransform)?$/.test(d.expression.callee.name),
  );
}

/** `private readonly orders: OrderRepository` → `OrderRepository`, when the type is a plain class name. */
function className(parameter: TSESTree.Parameter): string | undefined {
  const binding = parameterBinding(parameter);
  const annotation = binding.type === AST_NODE_TYPES.Identifier ? binding.typeAnnotation?.typeAnnotation : undefined;
  return annotation?.type === AST_NODE_TYPES.TSTypeReference &&
    annotation.typeName.type === AST_NODE_TYPES.Identifier &&
    !annotation.typeArguments
    ? annotation.typeName.name
    : undefined;
}

/** `@AgentFunctionGroup(...)` with `inject: [A, B]` added, keeping what it already says. */
function addInject(
  context: Readonly<TSESLint.RuleContext<string, Options>>,
  fixer: TSESLint.RuleFixer,
  group: TSESTree.CallExpression,
  list: string,
): TSESLint.RuleFix | undefined {
  const source = context.sourceCode;
  const first = group.arguments[0];
  if (!first) return fixer.replaceText(group, `${source.getText(group.callee)}({ inject: ${list} })`);
  const value = resolveConst(context, first);
  if (value !== first) return undefined; // options held in a constant: edit it there
  if (first.type === AST_NODE_TYPES.Literal)
    return fixer.replaceText(first, `{ groups: [${source.getText(first)}], inject: ${list} }`);
  if (first.type === AST_NODE_TYPES.ArrayExpression)
    return fixer.replaceText(first, `{ groups: ${source.getText(first)}, inject: ${list} }`);
  if (first.type === AST_NODE_TYPES.ObjectExpression) {
    const last = first.properties.at(-1);
    return last ? fixer.insertTextAfter(last, `, inject: ${list}`) : fixer.replaceText(first, `{ inject: ${list} }`);
  }
  return undefined;
}

/**
 * `needlework/require-inject`: a tool class whose constructor takes parameters, with nothing that
 * says what to inject in a project that emits no decorator metadata. `buildAgentFactory()` refuses
 * such a class (`ToolRegistrationError`); this says so while typing.
 */
export const requireInject = createRule<Options, "missing" | "addInject">({
  name: "require-inject",
  meta: {
    type: "problem",
    hasSuggestions: true,
    docs: {
      description:
        "Require `inject` on tool classes with constructor parameters when the project emits no decorator metadata",
      requiresTypeChecking: true,
    },
    schema: [
      {
        type: "object",
        properties: {
          metadata: {
            type: "string",
            enum: ["tsconfig", "none"],
            description:
              "`tsconfig` (default) reads experimentalDecorators and emitDecoratorMetadata from the program; `none` for a project built by esbuild, tsx, Vite or Bun whatever its tsconfig says",
          },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      missing:
        "{{name}} takes {{count}} constructor parameter(s), but nothing says what to inject: this project emits no decorator metadata ({{why}}), so buildAgentFactory() refuses the class. Name the dependencies in order with @AgentFunctionGroup({ inject: [...] }).",
      addInject: "Add `inject: {{list}}`.",
    },
  },
  defaultOptions: [{ metadata: "tsconfig" }],
  create(context, [{ metadata }]) {
    const types = typeInfo(context);
    const program = types?.program;
    let why: string;
    if (metadata === "none") why = 'the rule\'s `metadata: "none"` option';
    else if (!program)
      return {}; // no type information: the tsconfig cannot be read (see the rule's page)
    else {
      const options = program.getCompilerOptions();
      if (options.experimentalDecorators && options.emitDecoratorMetadata) return {};
      why = options.experimentalDecorators
        ? "tsconfig has emitDecoratorMetadata off"
        : "tsconfig compiles standard decorators: experimentalDecorators is off";
    }
    const names = moduleNames(context);
    const checker = program?.getTypeChecker();
    /** Whether a name in scope at `node` is a value (a class), not only a type. */
    const isValue = (node: TSESTree.Node, name: string): boolean => {
      if (!checker || !types) return false;
      const symbol = checker
        .getSymbolsInScope(types.services.esTreeNodeToTSNodeMap.get(node), ts.SymbolFlags.Value)
        .find((s) => s.name === name);
      return symbol !== undefined;
    };
    const check = (node: TSESTree.ClassDeclaration | TSESTree.ClassExpression): void => {
      const tool: ToolClass | undefined = toolClass(node, names);
      if (!tool?.parameters) return;
      const count = requiredCount(tool.parameters);
      if (count === 0) return;
      if (injectProperty(context, tool) !== null) return; // has inject, or options this rule cannot read
      const counted = tool.parameters.slice(0, count);
      if (counted.every(hasInjectDecorator)) return;
      const classNames = counted.map(className);
      const group = tool.group;
      const list = `[${classNames.join(", ")}]`;
      const canSuggest = group !== undefined && classNames.every((n) => n !== undefined && isValue(node, n));
      context.report({
        node: node.id ?? node,
        messageId: "missing",
        data: { name: node.id?.name ?? "This class", count, why },
        suggest: canSuggest
          ? [{ messageId: "addInject", data: { list }, fix: (fixer) => addInject(context, fixer, group, list) ?? [] }]
          : [],
      });
    };
    return { ClassDeclaration: check, ClassExpression: check };
  },
});
