import { type InvokeOptions, type ToolCall, type ToolInvoker, type ToolOutcome, ToolResult, toolResultToOutcome } from "@needlework/core";

/** Called with an exception that escaped the pipeline (no result middleware), before it becomes an `UNHANDLED_ERROR` outcome. */
export type UnhandledToolErrorHandler = (error: unknown, call: { readonly name: string; readonly callId: string }) => void;

/**
 * Invokes a tool for a client that must only ever read an outcome. A thrown tool error (possible
 * without the tool-result middleware) would otherwise become a JSON-RPC error carrying the
 * exception's message, so it becomes an `UNHANDLED_ERROR` outcome naming the type only.
 * Cancellation is never caught: the SDK drops the response of a cancelled request.
 *
 * @internal
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
    return toolResultToOutcome(ToolResult.unhandledFailure(error), { tool: call.name, callId: call.callId, attempts: 1, latencyMs: 0 });
  }
}
