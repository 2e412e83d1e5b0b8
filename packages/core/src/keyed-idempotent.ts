import type { ToolCallContext } from "./agent-function.options.js";

/**
 * Whether a call may be repeated under its key: the tool declares `idempotent: true`, or it left
 * `idempotent` undeclared and its body read `ctx.idempotencyKey` during this call (it passes the key
 * downstream, so the service applies a repeat at most once). Reading the key is the signal a tool
 * gives without configuration; `idempotent: false` overrides it. @internal
 *
 * @example
 * ```ts
 * if (keyedIdempotent(call)) retry(); // same call, same key
 * ```
 */
export function keyedIdempotent(call: ToolCallContext): boolean {
  const declared = call.tool.options.idempotent;
  return declared === true || (declared === undefined && call.idempotencyKeyRead === true);
}
