import type { NextFunction, ToolCallContext, ToolMiddleware } from "./agent-function.options.js";
import { ToolError } from "./errors.js";
import { DEFAULT_ARGUMENT_LIMITS, parseToolArguments } from "./tool-arguments.js";

/** The three hooks of the toolbox middleware proposal; each may be async. */
export interface ToolHooks {
  /**
   * Runs before the call, in list order. Return new arguments to replace them (they are validated
   * again against the tool's schema), or nothing to keep them.
   */
  readonly beforeCall?: (
    call: ToolCallContext,
  ) => void | Record<string, unknown> | Promise<void | Record<string, unknown>>;
  /** Runs after a result, in reverse list order. Return a value to replace the result. */
  readonly afterCall?: (call: ToolCallContext, result: unknown) => unknown;
  /**
   * Runs on a thrown error, in reverse list order. Return a recovery value to use instead, or
   * rethrow (the default when it returns `undefined`).
   */
  readonly onError?: (call: ToolCallContext, error: unknown) => unknown;
}

/**
 * Builds middleware from `{ beforeCall, afterCall, onError }`. In a list of such middleware,
 * `beforeCall` runs in list order and `afterCall`/`onError` in reverse, like a stack.
 *
 * @example
 * ```ts
 * const requestId = hooks({ beforeCall: (call) => { call.items.set("requestId", randomUUID()); } });
 * const recover = hooks({ onError: (call, err) => ToolResult.fail("Search is down", { transient: true }) });
 * ```
 */
export function hooks(h: ToolHooks): ToolMiddleware {
  return async (call: ToolCallContext, next: NextFunction): Promise<unknown> => {
    if (h.beforeCall) {
      const replaced = await h.beforeCall(call);
      if (replaced !== undefined) {
        const parsed = parseToolArguments(replaced, call.tool.input, DEFAULT_ARGUMENT_LIMITS);
        if (!parsed.ok) {
          throw new ToolError(
            `Arguments rewritten by middleware are invalid for tool '${call.name}': ${parsed.problems.join("; ")}.`,
            { code: "INVALID_ARGUMENTS", toolName: call.name, callId: call.callId },
          );
        }
        call.arguments = parsed.value;
      }
    }
    let result: unknown;
    try {
      result = await next(call);
    } catch (error) {
      if (!h.onError || call.callerSignal?.aborted) throw error; // cancellation is never recovered
      const recovered = await h.onError(call, error);
      if (recovered === undefined) throw error;
      result = recovered;
    }
    if (h.afterCall) {
      const replaced = await h.afterCall(call, result);
      if (replaced !== undefined) result = replaced;
    }
    return result;
  };
}

/**
 * The same as {@link hooks}, under the `createX()` name every needlework factory follows.
 *
 * @example
 * ```ts
 * const requestId = createHooks({ beforeCall: (call) => { call.items.set("requestId", randomUUID()); } });
 * ```
 */
export const createHooks: (h: ToolHooks) => ToolMiddleware = hooks;
