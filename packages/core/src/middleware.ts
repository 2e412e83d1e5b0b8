import type { ToolCallContext, ToolMiddleware } from "./agent-function.options.js";

/**
 * Composes middleware, first entry outermost, around `terminal`.
 * @internal
 */
export function composeMiddleware(
  middleware: readonly ToolMiddleware[],
  terminal: (call: ToolCallContext) => Promise<unknown>,
): (call: ToolCallContext) => Promise<unknown> {
  let next = terminal;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const layer = middleware[i]!;
    const inner = next;
    next = (call) => layer(call, (replacement) => inner(replacement ?? call));
  }
  return next;
}
