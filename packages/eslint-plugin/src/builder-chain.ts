import { AST_NODE_TYPES, type TSESLint, type TSESTree } from "@typescript-eslint/utils";
import { type ModuleNames, needleworkName } from "./ast.js";

/** One method call of a builder chain: `.usingResilience({...})`. */
export interface ChainCall {
  readonly name: string;
  readonly call: TSESTree.CallExpression;
  readonly member: TSESTree.MemberExpression;
}

/** The builder methods that register a plugin (each at most once per builder). */
export const PLUGIN_METHODS = new Set([
  "usingResilience",
  "usingToolResultMiddleware",
  "usingTruncation",
  "usingRedaction",
  "usingDiagnostics",
]);

/**
 * The method calls of one `usingAgentFramework(container)...` chain, first to last, when `outer` is
 * the last call of such a chain; otherwise `undefined`. A chain split across variables is not read.
 */
export function builderChain(outer: TSESTree.CallExpression, names: ModuleNames): ChainCall[] | undefined {
  const parent = outer.parent;
  // Only the outermost call of a chain: `a.b().c()` is visited at `.c()`, not again at `.b()`.
  if (parent?.type === AST_NODE_TYPES.MemberExpression && parent.object === outer) return undefined;
  const calls: ChainCall[] = [];
  let current: TSESTree.Expression = outer;
  while (
    current.type === AST_NODE_TYPES.CallExpression &&
    current.callee.type === AST_NODE_TYPES.MemberExpression &&
    !current.callee.computed &&
    current.callee.property.type === AST_NODE_TYPES.Identifier &&
    // `nw.usingAgentFramework(container)` is the root, not a call of the chain.
    needleworkName(current.callee, names) !== "usingAgentFramework"
  ) {
    calls.unshift({ name: current.callee.property.name, call: current, member: current.callee });
    current = current.callee.object;
  }
  const isRoot =
    current.type === AST_NODE_TYPES.CallExpression && needleworkName(current.callee, names) === "usingAgentFramework";
  return isRoot && calls.length > 0 ? calls : undefined;
}

/** The source range of `.name(args)`, from its dot to its closing parenthesis. */
export function callSegment(sourceCode: Readonly<TSESLint.SourceCode>, call: ChainCall): TSESTree.Range {
  const dot = sourceCode.getTokenBefore(call.member.property);
  return [dot ? dot.range[0] : call.member.property.range[0], call.call.range[1]];
}

/** Fixes that swap two calls of a chain, leaving the whitespace and comments between them in place. */
export function swapCalls(
  sourceCode: Readonly<TSESLint.SourceCode>,
  fixer: TSESLint.RuleFixer,
  a: ChainCall,
  b: ChainCall,
): TSESLint.RuleFix[] {
  const first = callSegment(sourceCode, a);
  const second = callSegment(sourceCode, b);
  return [
    fixer.replaceTextRange(first, sourceCode.text.slice(second[0], second[1])),
    fixer.replaceTextRange(second, sourceCode.text.slice(first[0], first[1])),
  ];
}
