import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { findDecorator, type ModuleNames, optionsObject, propertyOf, resolveConst } from "./ast.js";

type Context = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/** A class registered as tools: decorated `@AgentFunctionGroup(...)`, or with an `@AgentFunction` method. */
export interface ToolClass {
  readonly node: TSESTree.ClassDeclaration | TSESTree.ClassExpression;
  /** The `@AgentFunctionGroup(...)` call, when there is one. */
  readonly group: TSESTree.CallExpression | undefined;
  /** The constructor's parameters (own constructor only; `undefined` when the class has none of its own). */
  readonly parameters: readonly TSESTree.Parameter[] | undefined;
}

/** Reads a class as a tool class, or `undefined` when needlework does not register it. */
export function toolClass(node: TSESTree.ClassDeclaration | TSESTree.ClassExpression, names: ModuleNames) {
  const group = findDecorator(node.decorators, "AgentFunctionGroup", names);
  const hasTool = node.body.body.some(
    (m) =>
      (m.type === AST_NODE_TYPES.MethodDefinition || m.type === AST_NODE_TYPES.PropertyDefinition) &&
      findDecorator(m.decorators, "AgentFunction", names) !== undefined,
  );
  if (!group && !hasTool) return undefined;
  const ownConstructor = node.body.body.find(
    (m): m is TSESTree.MethodDefinition => m.type === AST_NODE_TYPES.MethodDefinition && m.kind === "constructor",
  );
  return { node, group, parameters: ownConstructor?.value.params } satisfies ToolClass;
}

/** The declared parameter's binding, through `private readonly x: T` and `x: T = default`. */
export function parameterBinding(parameter: TSESTree.Parameter): TSESTree.Node {
  const inner = parameter.type === AST_NODE_TYPES.TSParameterProperty ? parameter.parameter : parameter;
  return inner.type === AST_NODE_TYPES.AssignmentPattern ? inner.left : inner;
}

/** How many parameters count, as `Function.length` does: those before the first default or rest parameter. */
export function requiredCount(parameters: readonly TSESTree.Parameter[]): number {
  let count = 0;
  for (const parameter of parameters) {
    const inner = parameter.type === AST_NODE_TYPES.TSParameterProperty ? parameter.parameter : parameter;
    if (inner.type === AST_NODE_TYPES.AssignmentPattern || inner.type === AST_NODE_TYPES.RestElement) break;
    count++;
  }
  return count;
}

/** The `inject` property of the group's options, `null` when the options are written out without one, `undefined` when they cannot be read. */
export function injectProperty(
  context: Context,
  tool: ToolClass,
): { readonly property: TSESTree.Property; readonly list: TSESTree.ArrayExpression | undefined } | null | undefined {
  if (!tool.group) return null;
  const first = tool.group.arguments[0];
  if (!first) return null;
  const options = optionsObject(context, tool.group);
  if (!options) {
    const resolved = resolveConst(context, first);
    // A group name or a list of names: no options, so no `inject`.
    return resolved.type === AST_NODE_TYPES.Literal || resolved.type === AST_NODE_TYPES.ArrayExpression
      ? null
      : undefined;
  }
  const property = propertyOf(options, "inject");
  if (!property) return options.properties.some((p) => p.type === AST_NODE_TYPES.SpreadElement) ? undefined : null;
  const value = resolveConst(context, property.value);
  return { property, list: value.type === AST_NODE_TYPES.ArrayExpression ? value : undefined };
}
