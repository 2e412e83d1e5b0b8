import type { ToolCallContext } from "./tool-context.js";

/** Calls the next layer: the next middleware, or the tool body. */
export type NextFunction = (call?: ToolCallContext) => Promise<unknown>;

/**
 * A wrap-style middleware: runs around the layers inside it and returns what the model (or the
 * next layer out) should get. Returning without calling `next` short-circuits the tool.
 *
 * @example
 * ```ts
 * const timing: ToolMiddleware = async (call, next) => {
 *   const started = Date.now();
 *   try { return await next(); } finally { log(call.name, Date.now() - started); }
 * };
 * ```
 */
export type ToolMiddleware = (call: ToolCallContext, next: NextFunction) => Promise<unknown>;

/**
 * Composes middleware, first entry outermost, around `terminal`.
 * @internal
 */
export function composeMiddleware(middleware: readonly ToolMiddleware[], terminal: (call: ToolCallContext) => Promise<unknown>): (call: ToolCallContext) => Promise<unknown> {
  let next = terminal;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const layer = middleware[i]!;
    const inner = next;
    next = (call) => layer(call, (replacement) => inner(replacement ?? call));
  }
  return next;
}
