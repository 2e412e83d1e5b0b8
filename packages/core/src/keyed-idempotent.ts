import type { ToolCallContext } from "./agent-function.options.js";

/**
 * Whether a call may be repeated under its key after a failure whose effect may have landed: only
 * when the tool declares `idempotent: true`. Reading `ctx.idempotencyKey` is no such declaration (a
 * tool that only logs the key would repeat a landed effect); the build reports a tool that reads the
 * key without declaring either way (NW014). @internal
 *
 * @example
 * ```ts
 * if (keyedIdempotent(call)) retry(); // same call, same key
 * ```
 */
export function keyedIdempotent(call: ToolCallContext): boolean {
  return call.tool.options.idempotent === true;
}
