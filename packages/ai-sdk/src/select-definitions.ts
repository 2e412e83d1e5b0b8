import type { ToolDefinition, ToolInvoker } from "@needlework/core";

/**
 * The invoker's definitions named by `names` (all of them when `names` is absent).
 *
 * @internal
 * @example
 * ```ts
 * const definitions = selectDefinitions("toAiSdkTools", factory.tools, ["getOrderStatus"]);
 * ```
 */
export function selectDefinitions(
  caller: string,
  invoker: ToolInvoker,
  names: readonly string[] | undefined,
): readonly ToolDefinition[] {
  if (names === undefined) return invoker.definitions;
  const known = new Set(invoker.definitions.map((d) => d.name));
  const missing = names.filter((n) => !known.has(n));
  if (missing.length > 0) {
    const list = missing.map((n) => `'${n}'`).join(", ");
    throw new TypeError(`${caller}: no tool named ${list}. Pick from: ${[...known].join(", ") || "(none)"}.`);
  }
  const wanted = new Set(names);
  return invoker.definitions.filter((d) => wanted.has(d.name));
}
