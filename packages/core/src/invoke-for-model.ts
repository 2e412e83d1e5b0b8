import type { InvokeOptions, ToolCall, ToolInvoker } from "./tool-invoker.js";
import { type ToolOutcome, toolResultToOutcome } from "./tool-outcome.js";
import { ToolResult } from "./tool-result.js";

/** Called with an exception that escaped the pipeline (no result middleware), before it becomes an `UNHANDLED_ERROR` outcome. */
export type UnhandledToolErrorHandler = (
  error: unknown,
  call: { readonly name: string; readonly callId: string },
) => void;

/**
 * Invokes a tool for a caller that must only ever hand the model an outcome (adapters, your own
 * orchestration). A thrown tool error (possible without the tool-result middleware) would
 * otherwise reach the model through the caller's own error text, message included, so it becomes
 * an `UNHANDLED_ERROR` outcome naming the type only; `onError` sees the exception. Cancellation is
 * never caught.
 *
 * @example
 * ```ts
 * const outcome = await invokeForModel(invoker, { name, arguments: input, callId }, { signal });
 * ```
 */
export async function invokeForModel(
  invoker: ToolInvoker,
  call: ToolCall & { readonly callId: string },
  options: InvokeOptions,
  onError?: UnhandledToolErrorHandler,
): Promise<ToolOutcome> {
  try {
    return await invoker.invoke(call, options);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    try {
      onError?.(error, { name: call.name, callId: call.callId });
    } catch {
      // A failing error hook must not turn a handled failure into an unhandled one.
    }
    return toolResultToOutcome(ToolResult.unhandledFailure(error), {
      tool: call.name,
      callId: call.callId,
      attempts: 1,
      latencyMs: 0,
    });
  }
}
