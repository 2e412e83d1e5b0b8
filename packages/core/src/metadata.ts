import type { AgentFunctionOptions } from "./agent-function.options.js";

/**
 * Where `@AgentFunction` records its options until `@AgentFunctionGroup` turns them into
 * descriptors. Metadata lives in WeakMaps, not on the classes or in globals.
 *
 * - experimentalDecorators: method decorators see the prototype, so options are keyed by class.
 * - standard decorators: a method decorator runs before its class exists, so options are keyed by
 *   the method function (found again on the prototype) and by `context.metadata` when the compiler
 *   provides it (esbuild/tsx always do; tsc only where `Symbol.metadata` exists), which also covers
 *   a method another decorator replaced after ours.
 * @internal
 */
const byClass = new WeakMap<object, Map<string, AgentFunctionOptions>>();
const byMethod = new WeakMap<object, { readonly name: string; readonly options: AgentFunctionOptions }>();
const byMetadata = new WeakMap<object, Map<string, AgentFunctionOptions>>();

function entry<K extends object>(
  map: WeakMap<K, Map<string, AgentFunctionOptions>>,
  key: K,
): Map<string, AgentFunctionOptions> {
  let found = map.get(key);
  if (!found) map.set(key, (found = new Map()));
  return found;
}

/** Records a tool method seen by an experimentalDecorators method decorator. @internal */
export function recordFunction(ctor: object, name: string, options: AgentFunctionOptions): void {
  entry(byClass, ctor).set(name, options);
}

/** Records a tool method seen by a standard method decorator. @internal */
export function recordStandardFunction(
  method: object,
  metadata: unknown,
  name: string,
  options: AgentFunctionOptions,
): void {
  byMethod.set(method, { name, options });
  if (typeof metadata === "object" && metadata !== null) entry(byMetadata, metadata).set(name, options);
}

const METADATA = (Symbol as { metadata?: symbol }).metadata ?? Symbol.for("Symbol.metadata");

/** The tool methods a class itself declares (not its ancestors), in declaration order. @internal */
export function ownFunctions(ctor: object): Map<string, AgentFunctionOptions> {
  const own = new Map(byClass.get(ctor));
  const metadata = Object.getOwnPropertyDescriptor(ctor, METADATA)?.value as unknown;
  if (typeof metadata === "object" && metadata !== null)
    for (const [name, options] of byMetadata.get(metadata) ?? []) own.set(name, options);
  const prototype = (ctor as { prototype?: unknown }).prototype;
  if (typeof prototype === "object" && prototype !== null) {
    for (const key of Object.getOwnPropertyNames(prototype)) {
      const value = Object.getOwnPropertyDescriptor(prototype, key)?.value as unknown;
      const found = typeof value === "function" ? byMethod.get(value) : undefined;
      if (found?.name === key && !own.has(key)) own.set(key, found.options);
    }
  }
  return own;
}
