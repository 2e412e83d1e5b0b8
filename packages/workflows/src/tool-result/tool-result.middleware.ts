import { answerSync, keyedIdempotent, ownAbortAsTimeout, toolValueOutcome } from "@needlework/core/internal";
import { ownOptions } from "@needlework/core/kit";
import {
  createToolOutcome,
  type ErrorMapRule,
  mapThrownError,
  type MappedError,
  type ToolCallContext,
  type ToolMiddleware,
  type ToolOutcome,
  type ToolOutcomeStyle,
  ToolResult,
  toolResultToOutcome,
  type UnhandledFailureFormatter,
  unhandledFailureMessage,
} from "@needlework/core";

/** Options of `usingToolResultMiddleware()`. */
export interface ToolResultMiddlewareOptions {
  /** How outcomes are rendered for the model: `envelope` (default) or Needlr's shape. */
  readonly style?: ToolOutcomeStyle;
  /**
   * Replaces the default "An unexpected error occurred (TypeError). The call was not retried." for
   * exceptions no rule maps. Whatever it returns is shown to the model: never echo the exception's message.
   */
  readonly formatter?: UnhandledFailureFormatter;
  /** Boundary rules mapping thrown errors to stable codes; tried after the tool's own `errors`. */
  readonly errorMap?: readonly ErrorMapRule[];
}

const FALLBACK: MappedError = {
  status: "error",
  code: "UNHANDLED_ERROR",
  retriable: false,
  message: unhandledFailureMessage({}),
};

/** Maps a thrown value without ever throwing itself (hostile getters, proxies). */
function safeMap(error: unknown, rules: readonly ErrorMapRule[]): MappedError {
  try {
    return mapThrownError(error, rules);
  } catch {
    return FALLBACK;
  }
}

/** The keys of {@link ToolResultMiddlewareOptions}, read as own properties only. @internal */
export const TOOL_RESULT_KEYS = [
  "style",
  "formatter",
  "errorMap",
] as const satisfies readonly (keyof ToolResultMiddlewareOptions)[];

/**
 * What a client failure that may have landed (a timeout, a connection reset after sending, a
 * gateway timeout) becomes for a tool neither `idempotent` nor `readOnly`: its effect may have
 * happened, so the model must not repeat it blindly. The original code is named, never the text.
 */
function outcomeUnknown(mapped: MappedError): MappedError {
  return {
    status: "error",
    code: "OUTCOME_UNKNOWN",
    retriable: false,
    message: `The request may have reached the upstream service before it failed (${mapped.code}); it may or may not have taken effect.`,
    suggestion: "Do not call it again blindly: check whether the action took effect first.",
  };
}

/**
 * The outcome for a thrown value: mapped by the rules, or the formatter's words for unhandled ones.
 * With `tool` given, a client failure that may have landed (`effect: "unknown"`: a timeout, a reset
 * after sending) of a tool neither `idempotent` nor `readOnly` is `OUTCOME_UNKNOWN`, not retriable.
 *
 * @example
 * ```ts
 * const outcome = outcomeFromThrown(error, [], undefined, { idempotent: false, readOnly: false });
 * ```
 */
export function outcomeFromThrown(
  error: unknown,
  rules: readonly ErrorMapRule[],
  formatter?: UnhandledFailureFormatter,
  tool?: { readonly idempotent?: boolean | undefined; readonly readOnly?: boolean | undefined },
): ToolOutcome {
  let mapped = safeMap(error, rules);
  if (mapped.effect === "unknown" && tool && tool.idempotent !== true && tool.readOnly !== true)
    mapped = outcomeUnknown(mapped);
  if (mapped.code === "UNHANDLED_ERROR" && formatter) {
    let result: ToolResult;
    try {
      result = ToolResult.unhandledFailure(error, { formatter });
    } catch {
      result = ToolResult.unhandledFailure(error);
    }
    return toolResultToOutcome(result);
  }
  return createToolOutcome({
    status: mapped.status,
    errorCode: mapped.code,
    retriable: mapped.retriable,
    message: mapped.message,
    ...(mapped.suggestion === undefined ? {} : { suggestion: mapped.suggestion }),
    ...(mapped.data === undefined ? {} : { data: mapped.data }),
    ...(mapped.retryAfterMs === undefined ? {} : { metadata: { retryAfterMs: mapped.retryAfterMs } }),
    exception: error,
  });
}

/**
 * The safety net around tool bodies: every thrown value becomes an `error` (or `timeout`) outcome
 * that names only the exception's type or the boundary rule's own words, `ToolResult` values are
 * unwrapped, returned failure values (per the tool's `failures` option) become `error` or
 * `partial` outcomes, a value off the declared `output` is `OUTPUT_INVALID`, and other plain
 * values pass through as `ok`. The exception is kept on `outcome.exception`
 * for diagnostics. Cancellation of the caller's signal is never caught: it propagates.
 *
 * @example
 * ```ts
 * const invoker = createToolInvoker(container, { functions: [OrderTools], middleware: [createToolResultMiddleware()] });
 * ```
 */
export function createToolResultMiddleware(given: ToolResultMiddlewareOptions = {}): ToolMiddleware {
  const options = ownOptions(given, TOOL_RESULT_KEYS);
  const globalRules = options.errorMap ?? [];
  const { formatter } = options;
  /** The outcome of a thrown value (never for the caller's own abort, which propagates). */
  const failed = (call: ToolCallContext, thrown: unknown): ToolOutcome => {
    if (call.callerSignal?.aborted) throw thrown;
    const error = ownAbortAsTimeout(thrown, call.callerSignal);
    const toolRules = call.tool.options.errors;
    const rules = toolRules ? [...toolRules, ...globalRules] : globalRules;
    return outcomeFromThrown(error, rules, formatter, {
      idempotent: keyedIdempotent(call),
      readOnly: call.tool.options.readOnly,
    });
  };
  /** The outcome of a value the layers inside answered with. */
  const succeeded = (call: ToolCallContext, value: unknown): ToolOutcome => {
    try {
      // A returned failure value (`{ ok: false }`, a `Response` with `ok: false`, failed batch
      // items) is a failure, and a value off the declared `output` is `OUTPUT_INVALID`.
      return toolValueOutcome(value, call.tool);
    } catch (error) {
      return failed(call, error);
    }
  };
  // Written with then() rather than await in try/catch: a rejection then reaches `failed` without
  // being rethrown inside this function, so a failing call pays for no second throw (bench
  // `design-choices`). The two reactions are made only for an answer that is still pending.
  return (call, next) => {
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(next());
    } catch (error) {
      pending = Promise.reject(error);
    }
    // Answered synchronously inside (see `ToolCallContext.noteReturnedSync`): so is this layer.
    if (pending === call.returnedSync) {
      let outcome: ToolOutcome;
      try {
        outcome = succeeded(call, call.syncValue);
      } catch (error) {
        return Promise.reject(error); // the caller aborted while the value was read
      }
      return answerSync(call, outcome);
    }
    return pending.then(
      (value) => succeeded(call, value),
      (thrown: unknown) => failed(call, thrown),
    );
  };
}

/**
 * The original name of {@link createToolResultMiddleware}, kept so existing code keeps working.
 *
 * @deprecated Use {@link createToolResultMiddleware}.
 *
 * @example
 * ```ts
 * const invoker = createToolInvoker(container, { functions: [OrderTools], middleware: [toolResultMiddleware()] });
 * ```
 */
export const toolResultMiddleware: typeof createToolResultMiddleware = createToolResultMiddleware;
