import type { AgentFunctionOptions } from "./agent-function.options.js";

/**
 * Options recorded by `@AgentFunction`, per class and method, until `@AgentFunctionGroup` (which
 * runs after the method decorators) turns them into descriptors. Metadata lives in WeakMaps, not
 * on the classes or in globals.
 * @internal
 */
export const pendingFunctions = new WeakMap<object, Map<string, AgentFunctionOptions>>();
