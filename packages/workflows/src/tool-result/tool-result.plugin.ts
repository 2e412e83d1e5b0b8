import type { AgentFrameworkPlugin } from "../plugin.js";
import { type ToolResultMiddlewareOptions, toolResultMiddleware } from "./tool-result.middleware.js";

const KNOWN = new Set(["style", "formatter", "errorMap"]);

/** The plugin behind `usingToolResultMiddleware()`: carries the chosen output `style` for the agent. */
export interface ToolResultPlugin extends AgentFrameworkPlugin {
  readonly name: "tool-result";
  readonly options: ToolResultMiddlewareOptions;
}

/**
 * The plugin behind `usingToolResultMiddleware(options)`. Register it after `usingResilience()` so
 * retries happen first and the model sees only the final failure.
 *
 * @example
 * ```ts
 * usingAgentFramework(container).addAgentFunctions(OrderTools).usingResilience().usingToolResultMiddleware({ style: "needlr" });
 * ```
 */
export function toolResultPlugin(options: ToolResultMiddlewareOptions = {}): ToolResultPlugin {
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key))
      throw new TypeError(`usingToolResultMiddleware: unknown option '${key}' (known: ${[...KNOWN].join(", ")}).`);
  }
  if (options.style !== undefined && options.style !== "envelope" && options.style !== "needlr") {
    throw new TypeError(
      `usingToolResultMiddleware: style must be "envelope" or "needlr", not ${JSON.stringify(options.style)}.`,
    );
  }
  if (options.formatter !== undefined && typeof options.formatter !== "function")
    throw new TypeError("usingToolResultMiddleware: formatter must be a function.");
  if (options.errorMap !== undefined && !Array.isArray(options.errorMap))
    throw new TypeError("usingToolResultMiddleware: errorMap must be an array of { match, code, message } rules.");
  return {
    name: "tool-result",
    options,
    describe: () =>
      `tool-result(style: ${options.style ?? "envelope"}, ${options.errorMap?.length ?? 0} error rules${options.formatter ? ", custom formatter" : ""})`,
    createMiddleware: () => toolResultMiddleware(options),
  };
}
