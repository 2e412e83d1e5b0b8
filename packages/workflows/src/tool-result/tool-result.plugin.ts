import type { ErrorMapRule, UnhandledFailureFormatter } from "@needlework/core";
import { z } from "zod";
import { functionOption } from "@needlework/core/kit";
import { ownOptions } from "@needlework/core/kit";
import { parseOptions, type SchemaMatches } from "../options/parse-options.js";
import type { AgentFrameworkPlugin } from "../plugin.js";
import { TOOL_RESULT_KEYS, type ToolResultMiddlewareOptions, toolResultMiddleware } from "./tool-result.middleware.js";

const toolResultOptionsSchema = z.strictObject(
  {
    style: z.enum(["envelope", "needlr"], 'must be "envelope" or "needlr"').optional(),
    formatter: functionOption<UnhandledFailureFormatter>().optional(),
    errorMap: z
      .array(
        z.custom<ErrorMapRule>((rule) => {
          const r = rule as Partial<ErrorMapRule> | null;
          return typeof r?.code === "string" && typeof r.message === "string" && r.match !== undefined;
        }, "must be a rule { match, code, message }"),
        "must be an array of { match, code, message } rules",
      )
      .readonly()
      .optional(),
  },
  "must be an object",
);

true satisfies SchemaMatches<typeof toolResultOptionsSchema, ToolResultMiddlewareOptions>;

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
export function toolResultPlugin(given: ToolResultMiddlewareOptions = {}): ToolResultPlugin {
  // Checked, then read from the caller's own properties only (a polluted Object.prototype adds nothing).
  parseOptions("usingToolResultMiddleware", toolResultOptionsSchema, given);
  const options = ownOptions(given, TOOL_RESULT_KEYS);
  return {
    name: "tool-result",
    options: given,
    outcomeStyle: options.style ?? "envelope",
    describe: () =>
      `tool-result(style: ${options.style ?? "envelope"}, ${options.errorMap?.length ?? 0} error rules${options.formatter ? ", custom formatter" : ""})`,
    createMiddleware: () => toolResultMiddleware(options),
  };
}
