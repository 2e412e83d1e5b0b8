/*
 * What a tool class and an agent declare, read where they are written: in this file (ESTree), or,
 * with type information, in another file of the program (TypeScript's AST, through the symbol the
 * name refers to). The rules that judge a builder chain as a whole (tool names that collide, an
 * agent combining untrusted reads, sensitive reads and external effects) need the classes the chain
 * registers, wherever they are declared. A value that cannot be read statically is `undefined`
 * ("not known"), never guessed.
 */
import { AST_NODE_TYPES, ASTUtils, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import ts from "typescript";
import {
  findDecorator,
  type ModuleNames,
  optionsObject,
  propertyOf,
  resolveConst,
  staticString,
  toolMethod,
} from "./ast.js";
import { decoratorCall, propertyValue, stringOf } from "./program-scan.js";
import { toolNameOf } from "./rules/tool-name.js";
import { typeInfo } from "./type-info.js";

type Context = Readonly<TSESLint.RuleContext<string, readonly unknown[]>>;

/** What one `@AgentFunction` declares about itself. */
export interface ToolFacts {
  /** The name the tool is published under (`name`, else the method's name); `undefined` when computed. */
  readonly name: string | undefined;
  readonly methodName: string;
  /** `reads`, when written out as a literal; `undefined` when absent (trusted) or not readable. */
  readonly reads: string | undefined;
  /** `effects` as needlework counts it: undeclared is `"external"`, `readOnly: true` is `"none"`; `undefined` when not readable. */
  readonly effects: "none" | "internal" | "external" | undefined;
  /** Whether `effects` is written out (undeclared effects count as external). */
  readonly effectsDeclared: boolean;
  readonly sensitive: boolean;
}

/** A tool class: its name, its groups and its tools. */
export interface ClassFacts {
  readonly className: string;
  /** `@AgentFunctionGroup` group names; `undefined` when they cannot be read. */
  readonly groups: readonly string[] | undefined;
  readonly tools: readonly ToolFacts[];
  /** False when some tool's options are not written out: its name and flags are not known. */
  readonly complete: boolean;
}

/** An `@Agent` declaration's tool selection. */
export interface AgentFacts {
  readonly name: string;
  /** `undefined` when the agent names no groups; `null` when they cannot be read. */
  readonly functionGroups: readonly string[] | undefined | null;
  /** Class names of `functions`; `undefined` when absent, `null` when not readable. */
  readonly functions: readonly string[] | undefined | null;
}

/** Counts `effects` as the framework does: undeclared is external, `readOnly: true` is none. */
export function countedEffects(
  effects: { readonly declared: boolean; readonly value: string | undefined },
  readOnly: boolean | undefined,
): ToolFacts["effects"] {
  if (effects.declared) {
    const v = effects.value;
    return v === "none" || v === "internal" || v === "external" ? v : undefined;
  }
  return readOnly === true ? "none" : "external";
}

function booleanLiteral(node: TSESTree.Node | undefined): boolean | undefined {
  return node?.type === AST_NODE_TYPES.Literal && typeof node.value === "boolean" ? node.value : undefined;
}

/** The facts of a class declared in the linted file, or `undefined` when it is not a tool class. */
export function classFactsOfNode(
  context: Context,
  node: TSESTree.ClassDeclaration | TSESTree.ClassExpression,
  names: ModuleNames,
): ClassFacts | undefined {
  const group = findDecorator(node.decorators, "AgentFunctionGroup", names);
  const tools: ToolFacts[] = [];
  let complete = true;
  for (const member of node.body.body) {
    if (member.type !== AST_NODE_TYPES.MethodDefinition && member.type !== AST_NODE_TYPES.PropertyDefinition) continue;
    const tool = toolMethod(context, member, names);
    if (!tool) continue;
    const options = tool.options;
    if (!options || options.properties.some((p) => p.type === AST_NODE_TYPES.SpreadElement)) complete = false;
    const name = toolNameOf(tool);
    const optionValue = (key: string) => {
      const property = options && propertyOf(options, key);
      return property ? resolveConst(context, property.value) : undefined;
    };
    const effectsNode = optionValue("effects");
    tools.push({
      name: name === "(computed)" ? undefined : name,
      methodName: member.key.type === AST_NODE_TYPES.Identifier ? member.key.name : name,
      reads: staticString(optionValue("reads")),
      effects: options
        ? countedEffects(
            { declared: effectsNode !== undefined, value: staticString(effectsNode) },
            booleanLiteral(optionValue("readOnly")),
          )
        : undefined,
      effectsDeclared: effectsNode !== undefined,
      sensitive: booleanLiteral(optionValue("sensitive")) === true,
    });
  }
  if (!group && tools.length === 0) return undefined;
  return { className: node.id?.name ?? "(anonymous class)", groups: groupsOf(context, group), tools, complete };
}

function groupsOf(context: Context, group: TSESTree.CallExpression | undefined): readonly string[] | undefined {
  if (!group) return [];
  const first = group.arguments[0];
  if (!first) return [];
  if (first.type === AST_NODE_TYPES.SpreadElement) return undefined;
  const value = resolveConst(context, first);
  const single = staticString(value);
  if (single !== undefined) return [single];
  const list =
    value.type === AST_NODE_TYPES.ObjectExpression ? propertyOf(value, "groups")?.value : (value as TSESTree.Node);
  if (value.type === AST_NODE_TYPES.ObjectExpression && !list) return [];
  const resolved = list && resolveConst(context, list);
  if (resolved?.type !== AST_NODE_TYPES.ArrayExpression) return undefined;
  const out = resolved.elements.map((e) => staticString(e ?? undefined));
  return out.every((g) => g !== undefined) ? (out as string[]) : undefined;
}

// --- Other files, through the program -------------------------------------------------------------

function tsDecoratorCall(node: ts.Node, name: string): ts.CallExpression | undefined {
  if (!ts.canHaveDecorators(node)) return undefined;
  for (const decorator of ts.getDecorators(node) ?? []) {
    const call = decoratorCall(decorator, name);
    if (call) return call;
  }
  return undefined;
}

function tsBoolean(node: ts.Node | undefined): boolean | undefined {
  if (!node) return undefined;
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  return undefined;
}

function tsStringList(node: ts.Node | undefined): readonly string[] | null {
  if (!node || !ts.isArrayLiteralExpression(node)) return null;
  const out = node.elements.map(stringOf);
  return out.every((g) => g !== undefined) ? (out as string[]) : null;
}

/** The facts of a tool class declared in another file of the program. */
export function classFactsOfTs(node: ts.ClassLikeDeclaration): ClassFacts | undefined {
  const group = tsDecoratorCall(node, "AgentFunctionGroup");
  const tools: ToolFacts[] = [];
  let complete = true;
  for (const member of node.members) {
    const call = tsDecoratorCall(member, "AgentFunction");
    if (!call) continue;
    const argument = call.arguments[0];
    const options = argument && ts.isObjectLiteralExpression(argument) ? argument : undefined;
    if (!options || options.properties.some(ts.isSpreadAssignment)) complete = false;
    const memberName =
      member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name)) ? member.name.text : undefined;
    const nameNode = options && propertyValue(options, "name");
    const effectsNode = options && propertyValue(options, "effects");
    tools.push({
      name: nameNode ? stringOf(nameNode) : memberName,
      methodName: memberName ?? "(computed)",
      reads: stringOf(options && propertyValue(options, "reads")),
      effects: options
        ? countedEffects(
            { declared: effectsNode !== undefined, value: stringOf(effectsNode) },
            tsBoolean(propertyValue(options, "readOnly")),
          )
        : undefined,
      effectsDeclared: effectsNode !== undefined,
      sensitive: tsBoolean(options && propertyValue(options, "sensitive")) === true,
    });
  }
  if (!group && tools.length === 0) return undefined;
  let groups: readonly string[] | undefined = [];
  const first = group?.arguments[0];
  if (first) {
    const single = stringOf(first);
    if (single !== undefined) groups = [single];
    else if (ts.isObjectLiteralExpression(first)) {
      const list = propertyValue(first, "groups");
      groups = list ? (tsStringList(list) ?? undefined) : [];
    } else groups = tsStringList(first) ?? undefined;
  }
  return { className: node.name?.text ?? "(anonymous class)", groups, tools, complete };
}

function agentFactsOfTs(node: ts.ClassLikeDeclaration): AgentFacts | undefined {
  const call = tsDecoratorCall(node, "Agent");
  const options = call?.arguments[0];
  if (!options || !ts.isObjectLiteralExpression(options)) return undefined;
  const name = stringOf(propertyValue(options, "name"));
  if (name === undefined) return undefined;
  const groups = propertyValue(options, "functionGroups");
  const functions = propertyValue(options, "functions");
  return {
    name,
    functionGroups: groups === undefined ? undefined : tsStringList(groups),
    functions:
      functions === undefined
        ? undefined
        : ts.isArrayLiteralExpression(functions) && functions.elements.every(ts.isIdentifier)
          ? functions.elements.map((e) => (e as ts.Identifier).text)
          : null,
  };
}

// --- From a name used in the linted file to its class -----------------------------------------------

type Found =
  | { readonly kind: "estree"; readonly node: TSESTree.ClassDeclaration | TSESTree.ClassExpression }
  | { readonly kind: "ts"; readonly node: ts.ClassLikeDeclaration };

/** The class declaration an identifier refers to: in this file, or through the program in another. */
function classOf(context: Context, identifier: TSESTree.Node): Found | undefined {
  if (identifier.type !== AST_NODE_TYPES.Identifier) return undefined;
  const variable = ASTUtils.findVariable(context.sourceCode.getScope(identifier), identifier.name);
  const definition = variable?.defs.length === 1 ? variable.defs[0] : undefined;
  if (definition?.node.type === AST_NODE_TYPES.ClassDeclaration) return { kind: "estree", node: definition.node };
  if (definition?.node.type === AST_NODE_TYPES.VariableDeclarator && definition.node.init) {
    const init = resolveConst(context, definition.node.init);
    if (init.type === AST_NODE_TYPES.ClassExpression) return { kind: "estree", node: init };
  }
  const types = typeInfo(context);
  if (!types) return undefined;
  const checker = types.program.getTypeChecker();
  let symbol = checker.getSymbolAtLocation(types.services.esTreeNodeToTSNodeMap.get(identifier));
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
  if (!declaration || !ts.isClassLike(declaration)) return undefined;
  const file = declaration.getSourceFile();
  // A compiled package's .d.ts keeps no decorators: nothing to read there.
  if (file.isDeclarationFile) return undefined;
  return { kind: "ts", node: declaration };
}

/** The tool facts of the class a name refers to, or `undefined` when it cannot be read. */
export function classFactsOf(context: Context, identifier: TSESTree.Node, names: ModuleNames): ClassFacts | undefined {
  const found = classOf(context, identifier);
  if (!found) return undefined;
  return found.kind === "estree" ? classFactsOfNode(context, found.node, names) : classFactsOfTs(found.node);
}

/** The `@Agent` of the class a name refers to, or `undefined` when it cannot be read. */
export function agentFactsOf(context: Context, identifier: TSESTree.Node, names: ModuleNames): AgentFacts | undefined {
  const found = classOf(context, identifier);
  if (!found) return undefined;
  if (found.kind === "ts") return agentFactsOfTs(found.node);
  const decorator = findDecorator(found.node.decorators, "Agent", names);
  const options = decorator && optionsObject(context, decorator);
  return options ? agentFactsOfOptions(context, options) : undefined;
}

/** The selection an agent's options object (`@Agent({...})`, `createAgent({...})`) makes. */
export function agentFactsOfOptions(context: Context, options: TSESTree.ObjectExpression): AgentFacts | undefined {
  const name = staticString(propertyOf(options, "name")?.value) ?? "(unnamed)";
  const list = (key: string): TSESTree.ArrayExpression | undefined | null => {
    const property = propertyOf(options, key);
    if (!property) return undefined;
    const value = resolveConst(context, property.value);
    return value.type === AST_NODE_TYPES.ArrayExpression ? value : null;
  };
  const groups = list("functionGroups");
  const functions = list("functions");
  const groupNames = groups ? groups.elements.map((e) => staticString(e ?? undefined)) : groups;
  return {
    name,
    functionGroups: groupNames
      ? groupNames.every((g) => g !== undefined)
        ? (groupNames as string[])
        : null
      : groupNames,
    functions: functions
      ? functions.elements.every((e) => e?.type === AST_NODE_TYPES.Identifier)
        ? functions.elements.map((e) => (e as TSESTree.Identifier).name)
        : null
      : functions,
  };
}

/**
 * The tools of `classes` an agent offers: all of them when it names no groups and no classes,
 * else those of its groups and classes. `undefined` when the selection cannot be read.
 */
export function selectedTools(
  classes: readonly ClassFacts[],
  agent: AgentFacts | undefined,
): readonly ToolFacts[] | undefined {
  if (!agent || (agent.functionGroups === undefined && agent.functions === undefined))
    return classes.flatMap((c) => c.tools);
  if (agent.functionGroups === null || agent.functions === null) return undefined;
  const groups = new Set(agent.functionGroups ?? []);
  const named = new Set(agent.functions ?? []);
  const out: ToolFacts[] = [];
  for (const c of classes) {
    if (c.groups === undefined && groups.size > 0) return undefined;
    if (named.has(c.className) || (c.groups ?? []).some((g) => groups.has(g))) out.push(...c.tools);
  }
  return out;
}
