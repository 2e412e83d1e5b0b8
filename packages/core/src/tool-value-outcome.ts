import type { AgentFunctionDescriptor } from "./agent-function.options.js";
import type { z } from "zod";
import { type Detection, detectReturnedFailure, type ReturnedFailure } from "./returned-failure.js";
import { createToolOutcome, isToolOutcome, type ToolOutcome, toolResultToOutcome } from "./tool-outcome.js";
import { errorTypeName, type FailToolResult, isToolResult, ToolResult } from "./tool-result.js";

/** The message of a failure a custom detector gave without one, per code. */
const DEFAULT_MESSAGE = (code: string): string =>
  code === "TOOL_ERROR" ? "The tool returned a failure." : `The tool returned a failure (${code}).`;

function asFailure(raw: unknown): ReturnedFailure | undefined {
  return typeof raw === "object" && raw !== null ? (raw as ReturnedFailure) : undefined;
}

/** The tool's `failures` option applied to `value`: the detection, or `undefined` for data. */
function detect(value: unknown, tool: AgentFunctionDescriptor, lists = true): Detection | undefined {
  const option = tool.options.failures ?? "detect";
  if (option === "detect" || option === "jsend" || option === "graphql")
    return detectReturnedFailure(value, lists, option);
  if (option === "off" || typeof option !== "function") return undefined;
  let failure: ReturnedFailure | undefined;
  try {
    failure = asFailure(option(value));
  } catch (error) {
    // A detector that throws cannot say the value is fine: the call is reported failed, by type only.
    return {
      failure: {
        code: "FAILURE_DETECTOR_FAILED",
        message: `The tool's failure detector threw (${errorTypeName(error)}); the result cannot be trusted.`,
      },
      explicit: true,
    };
  }
  return failure === undefined ? undefined : { failure, explicit: true };
}

/** The outcome of a detected failure: `partial` for a list some of whose items failed, else `error`. */
function failureOutcome(value: unknown, failure: ReturnedFailure): ToolOutcome {
  const items = Array.isArray(failure.items) ? failure.items : undefined;
  const partial = items !== undefined && items.length > 0 && (failure.total ?? Infinity) > items.length;
  const code = failure.code ?? (partial ? "PARTIAL_FAILURE" : "TOOL_ERROR");
  // A returned Error or Response is no data: its text is internals, its body was never read.
  const keepData = !(value instanceof Error) && !isResponse(value);
  return createToolOutcome({
    status: partial ? "partial" : "error",
    errorCode: code,
    retriable: failure.retriable ?? failure.transient ?? false,
    message: typeof failure.message === "string" && failure.message !== "" ? failure.message : DEFAULT_MESSAGE(code),
    ...(typeof failure.suggestion === "string" ? { suggestion: failure.suggestion } : {}),
    ...(items !== undefined && items.length > 0 ? { failures: items } : {}),
    ...(keepData && value !== undefined ? { data: value } : {}),
    ...(typeof failure.retryAfterMs === "number" ? { metadata: { retryAfterMs: failure.retryAfterMs } } : {}),
  });
}

function isResponse(value: unknown): boolean {
  const R = (globalThis as { Response?: abstract new (...args: never[]) => object }).Response;
  return typeof value === "object" && value !== null && R !== undefined && value instanceof R;
}

const MAX_LISTED_PATHS = 3;

/** A path segment safe to show: a schema key or an index; anything else (a record's data key) is `*`. */
function segment(key: PropertyKey): string {
  if (typeof key === "number") return `[${key}]`;
  return typeof key === "string" && /^[A-Za-z_$][\w$-]{0,40}$/.test(key) ? `.${key}` : ".*";
}

/** The outcome of a value that does not match the tool's declared `output`: paths and issue kinds, never values. */
function outputInvalid(error: z.ZodError): ToolOutcome {
  const listed = error.issues.slice(0, MAX_LISTED_PATHS).map((issue) => {
    const path = issue.path.map(segment).join("").replace(/^\./, "") || "(root)";
    const expected =
      issue.code === "invalid_type" ? `expected ${String(issue.expected)}` : issue.code.replaceAll("_", " ");
    return `${path}: ${expected}`;
  });
  const more = error.issues.length - listed.length;
  return createToolOutcome({
    status: "error",
    errorCode: "OUTPUT_INVALID",
    retriable: false,
    message: `The tool's result does not match its declared output (${listed.join("; ")}${more > 0 ? `; ${more} more` : ""}).`,
    suggestion: "Do not rely on this result; report that the tool returned something unexpected.",
    exception: error,
  });
}

/** `undefined` when `value` matches the tool's `output` (or it declares none). */
function checkOutput(value: unknown, tool: AgentFunctionDescriptor): ToolOutcome | undefined {
  const schema = tool.options.output;
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(value);
  return parsed.success ? undefined : outputInvalid(parsed.error);
}

/**
 * The outcome of what a tool's pipeline returned, read with the tool's options: an outcome stays as
 * it is; a `ToolResult` is unwrapped; a returned failure value (per `failures`) becomes an `error`
 * or `partial` outcome; a value that does not match a declared `output` is `OUTPUT_INVALID`; any
 * other value is `ok` data. @internal
 *
 * @example
 * ```ts
 * const outcome = toolValueOutcome(await next(), call.tool);
 * ```
 */
export function toolValueOutcome(value: unknown, tool: AgentFunctionDescriptor): ToolOutcome {
  if (isToolOutcome(value)) return value;
  if (isToolResult(value)) {
    if (value.kind === "ok") return checkOutput(value.value, tool) ?? toolResultToOutcome(value);
    return toolResultToOutcome(value);
  }
  const detection = detect(value, tool);
  if (detection !== undefined) {
    const outcome = failureOutcome(value, detection.failure);
    if (outcome.status === "error") return outcome;
    return checkOutput(value, tool) ?? outcome;
  }
  return checkOutput(value, tool) ?? createToolOutcome({ status: "ok", data: value });
}

/**
 * The returned failure that resilience may retry, as a transient failed `ToolResult` (never shown
 * to the model: when attempts run out, the tool's own value is what goes on). Retried like
 * `ToolResult.fail(..., { transient: true })` when the value (or the tool's own detector) said
 * `retriable: true`; when `retriable` was only inferred (an HTTP status, a returned `Error`), like a
 * thrown error: for idempotent tools, or any tool when the status proves the request was not applied
 * (429, 503, 408). A batch with failed items is never retried whole. @internal
 *
 * @example
 * ```ts
 * const failed = retriableReturnedFailure(value, call.tool, true);
 * ```
 */
export function retriableReturnedFailure(
  value: unknown,
  tool: AgentFunctionDescriptor,
  idempotent: boolean,
): FailToolResult | undefined {
  if (typeof value !== "object" || value === null || isToolResult(value) || isToolOutcome(value)) return undefined;
  // The top level only: a batch with failed items is never retried whole, so its list is not scanned here.
  const detection = detect(value, tool, false);
  if (detection === undefined) return undefined;
  const { failure, explicit } = detection;
  if ((failure.retriable ?? failure.transient) !== true || (failure.items !== undefined && failure.items.length > 0))
    return undefined;
  // Inferred from a status or an Error: like a thrown error, repeated only by an idempotent tool or
  // when the status proves nothing was applied (429, 503, 408: core's `effect: "none"`).
  if (!explicit && !idempotent && detection.notApplied !== true) return undefined;
  const code = failure.code ?? "TOOL_ERROR";
  return ToolResult.fail(failure.message ?? DEFAULT_MESSAGE(code), {
    code,
    transient: true,
    ...(failure.retryAfterMs === undefined ? {} : { data: { retryAfterMs: failure.retryAfterMs } }),
  }) as FailToolResult;
}

/**
 * True when `value` is a returned failure that says another attempt may succeed (a 503 `Response`,
 * `{ ok: false, retriable: true }`): the circuit breaker counts it as a failed attempt, whatever the
 * tool's idempotency. @internal
 *
 * @example
 * ```ts
 * const verdict = isTransientReturnedFailure(value, call.tool) ? "failure" : "success";
 * ```
 */
export function isTransientReturnedFailure(value: unknown, tool: AgentFunctionDescriptor): boolean {
  if (typeof value !== "object" || value === null || isToolResult(value) || isToolOutcome(value)) return false;
  const failure = detect(value, tool, false)?.failure;
  return failure !== undefined && (failure.retriable ?? failure.transient) === true;
}
