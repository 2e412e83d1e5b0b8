/*
 * Reading needlework declarations in ESTree: which decorators and builder calls are needlework's
 * (by their import, so aliases work and other libraries' `Agent` does not), the options object of a
 * decorator, and the fields of a zod object schema, following `const` bindings in the file.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESLint, type TSESTree } from "@typescript-eslint/utils";

type Context = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/** The needlework and zod names a module binds. */
export interface ModuleNames {
  /** Local name → exported name, for named imports from `@needlework/*`. */
  readonly needlework: ReadonlyMap<string, string>;
  /** Local names of `import * as nw from "@needlework/..."`. */
  readonly needleworkNamespaces: ReadonlySet<string>;
  /** Local names bound to zod's namespace (`import { z } from "zod"`, `import * as z from "zod"`). */
  readonly zod: ReadonlySet<string>;
}

const namesOfProgram = new WeakMap<TSESTree.Program, ModuleNames>();

/** The needlework and zod names the file being linted imports. */
export function moduleNames(context: Context): ModuleNames {
  const program = context.sourceCode.ast;
  const known = namesOfProgram.get(program);
  if (known) return known;
  const needlework = new Map<string, string>();
  const needleworkNamespaces = new Set<string>();
  const zod = new Set<string>();
  for (const statement of program.body) {
    if (statement.type !== AST_NODE_TYPES.ImportDeclaration) continue;
    const source = statement.source.value;
    const isNeedlework = source.startsWith("@needlework/");
    const isZod = source === "zod" || source.startsWith("zod/");
    for (const specifier of statement.specifiers) {
      if (specifier.type === AST_NODE_TYPES.ImportSpecifier) {
        const imported =
          specifier.imported.type === AST_NODE_TYPES.Identifier ? specifier.imported.name : specifier.imported.value;
        if (isNeedlework) needlework.set(specifier.local.name, imported);
        if (isZod && imported === "z") zod.add(specifier.local.name);
      } else if (isNeedlework && specifier.type === AST_NODE_TYPES.ImportNamespaceSpecifier) {
        needleworkNamespaces.add(specifier.local.name);
      } else if (isZod) zod.add(specifier.local.name);
    }
  }
  const names = { needlework, needleworkNamespaces, zod };
  namesOfProgram.set(program, names);
  return names;
}

/** The needlework export an expression names (`AgentFunction`, `nw.AgentFunction`), or `undefined`. */
export function needleworkName(expression: TSESTree.Expression, names: ModuleNames): string | undefined {
  if (expression.type === AST_NODE_TYPES.Identifier) return names.needlework.get(expression.name);
  if (
    expression.type === AST_NODE_TYPES.MemberExpression &&
    !expression.computed &&
    expression.object.type === AST_NODE_TYPES.Identifier &&
    names.needleworkNamespaces.has(expression.object.name) &&
    expression.property.type === AST_NODE_TYPES.Identifier
  )
    return expression.property.name;
  return undefined;
}

/** A needlework decorator call on a node: `@AgentFunction({...})` gives its call expression. */
export function findDecorator(
  decorators: readonly TSESTree.Decorator[] | undefined,
  exported: "AgentFunction" | "AgentFunctionGroup" | "Agent",
  names: ModuleNames,
): TSESTree.CallExpression | undefined {
  for (const decorator of decorators ?? []) {
    const expression = decorator.expression;
    if (expression.type === AST_NODE_TYPES.CallExpression && needleworkName(expression.callee, names) === exported)
      return expression;
  }
  return undefined;
}

/**
 * Follows a `const` binding of this file to its initializer (a few steps deep), so
 * `input: OrderInput` is read as the schema `const OrderInput = z.object(...)` declares.
 */
export function resolveConst(context: Context, expression: TSESTree.Node): TSESTree.Node {
  let current = expression;
  for (let step = 0; step < 5 && current.type === AST_NODE_TYPES.Identifier; step++) {
    const variable = ASTUtils.findVariable(context.sourceCode.getScope(current), current.name);
    const definition = variable?.defs.length === 1 ? variable.defs[0] : undefined;
    if (
      definition?.node.type !== AST_NODE_TYPES.VariableDeclarator ||
      definition.parent?.type !== AST_NODE_TYPES.VariableDeclaration ||
      definition.parent.kind !== "const" ||
      !definition.node.init
    )
      break;
    current = definition.node.init;
  }
  // `x as const` and `x satisfies T` are the value x.
  while (current.type === AST_NODE_TYPES.TSAsExpression || current.type === AST_NODE_TYPES.TSSatisfiesExpression)
    current = current.expression;
  return current;
}

/** A property of an object literal by its static key (`name:` or `"name":`). */
export function propertyOf(object: TSESTree.ObjectExpression, key: string): TSESTree.Property | undefined {
  for (const property of object.properties) {
    if (property.type === AST_NODE_TYPES.Property && staticKey(property) === key) return property;
  }
  return undefined;
}

/** The static key of a property, or `undefined` when it is computed from a value. */
export function staticKey(property: TSESTree.Property): string | undefined {
  if (property.computed) return property.key.type === AST_NODE_TYPES.Literal ? String(property.key.value) : undefined;
  if (property.key.type === AST_NODE_TYPES.Identifier) return property.key.name;
  if (property.key.type === AST_NODE_TYPES.Literal) return String(property.key.value);
  return undefined;
}

/** The text of a string literal or a template without substitutions, else `undefined`. */
export function staticString(node: TSESTree.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === AST_NODE_TYPES.Literal && typeof node.value === "string") return node.value;
  if (node.type === AST_NODE_TYPES.TemplateLiteral && node.expressions.length === 0)
    return node.quasis.map((q) => q.value.cooked ?? q.value.raw).join("");
  return undefined;
}

/** The first argument of a decorator call as an object literal (following `const`), or `undefined`. */
export function optionsObject(context: Context, call: TSESTree.CallExpression): TSESTree.ObjectExpression | undefined {
  const first = call.arguments[0];
  if (!first || first.type === AST_NODE_TYPES.SpreadElement) return undefined;
  const resolved = resolveConst(context, first);
  return resolved.type === AST_NODE_TYPES.ObjectExpression ? resolved : undefined;
}

/** One call of a zod chain after its base: `.describe("...")`, `.optional()`. */
export interface ZodMethod {
  readonly name: string;
  readonly call: TSESTree.CallExpression;
}

/** A zod schema expression read as its base (`string`, `object`, `iso.datetime`) and the methods chained on it. */
export interface ZodChain {
  readonly base: string;
  readonly baseCall: TSESTree.CallExpression;
  readonly methods: readonly ZodMethod[];
}

/** Reads `z.string().min(1).describe("...")` as a chain, or `undefined` when it is not a zod expression. */
export function zodChain(context: Context, expression: TSESTree.Node, names: ModuleNames): ZodChain | undefined {
  const methods: ZodMethod[] = [];
  let current = resolveConst(context, expression);
  while (current.type === AST_NODE_TYPES.CallExpression && current.callee.type === AST_NODE_TYPES.MemberExpression) {
    const callee = current.callee;
    if (callee.computed || callee.property.type !== AST_NODE_TYPES.Identifier) return undefined;
    const name = callee.property.name;
    const object = callee.object;
    if (object.type === AST_NODE_TYPES.Identifier && names.zod.has(object.name))
      return { base: name, baseCall: current, methods };
    if (
      object.type === AST_NODE_TYPES.MemberExpression &&
      !object.computed &&
      object.object.type === AST_NODE_TYPES.Identifier &&
      names.zod.has(object.object.name) &&
      object.property.type === AST_NODE_TYPES.Identifier
    )
      return { base: `${object.property.name}.${name}`, baseCall: current, methods };
    methods.unshift({ name, call: current });
    current = resolveConst(context, object);
  }
  return undefined;
}

/** Wrappers that keep the field's own schema (and its description) in the JSON Schema. */
const TRANSPARENT = new Set(["optional", "nullable", "nullish", "default", "prefault", "readonly", "catch"]);

/**
 * The schema a chain stands for once transparent wrappers are looked through:
 * `z.optional(z.string().describe("x"))` is read as its inner chain, with `optional` among its methods.
 */
export function unwrapChain(context: Context, chain: ZodChain, names: ModuleNames): ZodChain {
  const inner = chain.baseCall.arguments[0];
  if (!TRANSPARENT.has(chain.base) || !inner || inner.type === AST_NODE_TYPES.SpreadElement) return chain;
  const innerChain = zodChain(context, inner, names);
  if (!innerChain) return chain;
  const unwrapped = unwrapChain(context, innerChain, names);
  return {
    ...unwrapped,
    methods: [...unwrapped.methods, { name: chain.base, call: chain.baseCall }, ...chain.methods],
  };
}

/** One field of a zod object schema. */
export interface ZodField {
  /** The dotted path from the input's root (`address.city`). */
  readonly path: string;
  readonly name: string;
  /** The property node, to report on. */
  readonly property: TSESTree.Property;
  /** The field's schema, or `undefined` when it is not a zod expression this file spells out. */
  readonly chain: ZodChain | undefined;
}

const OBJECT_BASES = new Set(["object", "strictObject", "looseObject"]);

/** The fields of `z.object({...})` (also strict and loose objects), or `undefined` when `schema` is not one. */
export function objectFields(
  context: Context,
  schema: TSESTree.Node,
  names: ModuleNames,
  path = "",
): ZodField[] | undefined {
  const chain = zodChain(context, schema, names);
  if (!chain || !OBJECT_BASES.has(chain.base)) return undefined;
  const shapeArgument = chain.baseCall.arguments[0];
  if (!shapeArgument || shapeArgument.type === AST_NODE_TYPES.SpreadElement) return undefined;
  const shape = resolveConst(context, shapeArgument);
  if (shape.type !== AST_NODE_TYPES.ObjectExpression) return undefined;
  const fields: ZodField[] = [];
  for (const property of shape.properties) {
    if (property.type !== AST_NODE_TYPES.Property) continue;
    const name = staticKey(property);
    if (name === undefined) continue;
    const raw = zodChain(context, property.value, names);
    fields.push({
      path: path ? `${path}.${name}` : name,
      name,
      property,
      chain: raw && unwrapChain(context, raw, names),
    });
  }
  return fields;
}

/** The element schema of an array chain (`z.array(X)` or `X.array()`), or `undefined` when the chain is not an array. */
function arrayElement(chain: ZodChain): TSESTree.Node | undefined {
  const method = chain.methods.findLast((m) => m.name === "array");
  if (method)
    return method.call.callee.type === AST_NODE_TYPES.MemberExpression ? method.call.callee.object : undefined;
  const element = chain.base === "array" ? chain.baseCall.arguments[0] : undefined;
  return element?.type === AST_NODE_TYPES.SpreadElement ? undefined : element;
}

/**
 * The fields of an input schema and of the objects nested in it, depth first, the way the build
 * diagnostics walk `properties`. The fields of objects inside arrays (`lines[].sku`) are walked only
 * with `arrayItems`: NW003 and NW004 do not look there, but the model fills them in all the same, so
 * strict mode (NW009) and credentials do.
 */
export function allFields(
  context: Context,
  schema: TSESTree.Node,
  names: ModuleNames,
  options: { readonly arrayItems?: boolean } = {},
): ZodField[] {
  const out: ZodField[] = [];
  const walk = (node: TSESTree.Node, path: string, depth: number): void => {
    if (depth > 8) return;
    for (const field of objectFields(context, node, names, path) ?? []) {
      out.push(field);
      if (!field.chain) continue;
      const element = arrayElement(field.chain);
      if (element) {
        if (options.arrayItems) walk(element, `${field.path}[]`, depth + 1);
      } else if (OBJECT_BASES.has(field.chain.base)) walk(field.chain.baseCall, field.path, depth + 1);
    }
  };
  walk(schema, "", 0);
  return out;
}

/** The description a chain gives its schema: `.describe("...")` or `.meta({ description: "..." })`. */
export function chainDescription(chain: ZodChain): { readonly text: string | undefined } | undefined {
  for (let i = chain.methods.length - 1; i >= 0; i--) {
    const method = chain.methods[i]!;
    const argument = method.call.arguments[0];
    if (method.name === "describe") return { text: staticString(argument) };
    if (method.name === "meta" && argument?.type === AST_NODE_TYPES.ObjectExpression) {
      const description = propertyOf(argument, "description");
      if (description) return { text: staticString(description.value) };
    }
  }
  return undefined;
}

/** A tool method: a class method decorated `@AgentFunction(...)`, with its options object when written out. */
export interface ToolMethod {
  readonly method: TSESTree.MethodDefinition | TSESTree.PropertyDefinition;
  readonly decorator: TSESTree.CallExpression;
  readonly options: TSESTree.ObjectExpression | undefined;
}

/** Reads a class member as a tool method, or `undefined` when it has no `@AgentFunction`. */
export function toolMethod(
  context: Context,
  member: TSESTree.MethodDefinition | TSESTree.PropertyDefinition,
  names: ModuleNames,
): ToolMethod | undefined {
  const decorator = findDecorator(member.decorators, "AgentFunction", names);
  if (!decorator) return undefined;
  return { method: member, decorator, options: optionsObject(context, decorator) };
}

/** The input schema expression of a tool's options, or `undefined`. */
export function inputSchema(tool: ToolMethod): TSESTree.Node | undefined {
  const input = tool.options && propertyOf(tool.options, "input");
  return input?.value;
}
