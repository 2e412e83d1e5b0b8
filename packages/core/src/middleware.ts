import type { ToolCallContext, ToolMiddleware } from "./agent-function.options.js";

/**
 * Answers `call` with `value` synchronously: a settled promise for it, noted on the call
 * (`ToolCallContext.noteReturnedSync`) so the layer outside, getting this very promise back from its
 * `next`, can take `value` at once and answer synchronously in turn.
 * @internal
 */
export function answerSync<T>(call: ToolCallContext, value: T): Promise<T> {
  const answered = Promise.resolve(value);
  call.noteReturnedSync?.(answered, value);
  return answered;
}

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
