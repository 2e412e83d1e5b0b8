import { isSafeClassName } from "./class-name.js";
import { ToolError } from "./errors.js";

const MARKER = Symbol.for("needlework.tool-result");

/** Options of {@link ToolResult.fail}. */
export interface FailOptions {
  /** A hint for the model on how to recover. */
  readonly suggestion?: string;
  /** Stable error code; `TOOL_ERROR` when omitted. */
  readonly code?: string;
  /** Whether another attempt may succeed (resilience retries transient failures). Default `false`. */
  readonly transient?: boolean;
  /** Extra payload shown with the failure. */
  readonly data?: unknown;
}

/** One failed item of a partial batch. */
export interface PartialFailure {
  /** Stable error code of this item; `TOOL_ERROR` when omitted. */
  readonly code?: string;
  /** A one-line, model-facing summary of this item's failure. */
  readonly message?: string;
  /** Whether retrying this item may succeed. */
  readonly transient?: boolean;
  /** Anything else that identifies the item (ids, names). */
  readonly [key: string]: unknown;
}

/** The items of a partial batch. */
export interface PartialItems<T = unknown> {
  readonly succeeded: readonly T[];
  readonly failed: readonly PartialFailure[];
}

/** A structured failure as the model sees it. */
export interface ToolFailure {
  readonly message: string;
  readonly code: string;
  readonly suggestion?: string;
  readonly transient: boolean;
  readonly data?: unknown;
}

/** A formatter for unhandled failures: returns what the model should read instead of the default. */
export type UnhandledFailureFormatter = (
  error: unknown,
) => ToolError | { readonly message: string; readonly suggestion?: string; readonly code?: string };

/** Options of {@link ToolResult.unhandledFailure}. */
export interface UnhandledFailureOptions {
  readonly formatter?: UnhandledFailureFormatter;
}

/** A successful result. */
export interface OkToolResult<T> {
  readonly kind: "ok";
  readonly value: T;
}

/** A failed result; `exception` keeps the original error for diagnostics, never for the model. */
export interface FailToolResult {
  readonly kind: "fail";
  readonly error: ToolFailure;
  readonly exception?: unknown;
}

/** A batch where some items succeeded and some failed. */
export interface PartialToolResult<T> {
  readonly kind: "partial";
  readonly items: PartialItems<T>;
}

/**
 * What a tool may return to report success, failure or a partial batch explicitly. The tool-result
 * middleware unwraps it into a {@link ToolOutcome}; plain return values pass through.
 */
export type ToolResult<T = unknown> = OkToolResult<T> | FailToolResult | PartialToolResult<T>;

/** Says "try again" only when the outcome is retriable, so the words never contradict the flag. */
const UNHANDLED_MESSAGE = (typeName: string, retriable: boolean): string =>
  `An unexpected error occurred (${typeName}). ${retriable ? "Please try again." : "The call was not retried."}`;

/**
 * The name of a thrown value's type, safe to show to a model: the constructor name of an Error
 * (or `Error` when reading it fails), or the `typeof` of anything else.
 */
export function errorTypeName(error: unknown): string {
  if (error === null) return "null";
  if (typeof error !== "object") return typeof error;
  try {
    const name = (error as { name?: unknown }).name;
    const ctor = (error as { constructor?: { name?: unknown } }).constructor?.name;
    // A subclass that never set `name` inherits "Error": its class name says more to the model.
    if (name === "Error" && ctor !== "Error" && isSafeClassName(ctor)) return ctor;
    if (isSafeClassName(name)) return name;
    if (name === undefined && isSafeClassName(ctor)) return ctor;
  } catch {
    // A throwing getter: fall through to a neutral name.
  }
  return "Error";
}

/**
 * The default model-facing message for an unhandled exception; names only the type. It asks the
 * model to try again only when the failure is `retriable`.
 *
 * @example
 * ```ts
 * unhandledFailureMessage(new TypeError("x")); // "An unexpected error occurred (TypeError). The call was not retried."
 * unhandledFailureMessage(new TransientError("x"), true); // "... (TransientError). Please try again."
 * ```
 */
export function unhandledFailureMessage(error: unknown, retriable = false): string {
  return UNHANDLED_MESSAGE(errorTypeName(error), retriable);
}

function brand<T extends object>(value: T): T {
  Object.defineProperty(value, MARKER, { value: true });
  return value;
}

/**
 * Factories for {@link ToolResult} values.
 *
 * @example
 * ```ts
 * if (!order) return ToolResult.fail(`Order '${id}' not found`, {
 *   code: "ORDER_NOT_FOUND", suggestion: "Verify the ID with the customer." });
 * return ToolResult.ok(order.status);
 * ```
 */
export const ToolResult = {
  /** A success carrying `value`. */
  ok<T>(value: T): ToolResult<T> {
    return brand<OkToolResult<T>>({ kind: "ok", value });
  },

  /** A deliberate failure; its message and suggestion are shown to the model. */
  fail<T = never>(message: string, options: FailOptions = {}): ToolResult<T> {
    const error: ToolFailure = {
      message,
      code: options.code ?? "TOOL_ERROR",
      transient: options.transient ?? false,
      ...(options.suggestion === undefined ? {} : { suggestion: options.suggestion }),
      ...(options.data === undefined ? {} : { data: options.data }),
    };
    return brand<FailToolResult>({ kind: "fail", error });
  },

  /** A batch with per-item status: the model sees which items succeeded and which failed. */
  partial<T>(items: PartialItems<T>): ToolResult<T> {
    return brand<PartialToolResult<T>>({
      kind: "partial",
      items: { succeeded: [...items.succeeded], failed: [...items.failed] },
    });
  },

  /**
   * A failure from an unexpected exception. The model reads "An unexpected error occurred
   * (TypeError). Please try again." (or what `formatter` returns); the exception is kept on the
   * result for diagnostics.
   */
  unhandledFailure<T = never>(error: unknown, options: UnhandledFailureOptions = {}): ToolResult<T> {
    let failure: ToolFailure = { message: unhandledFailureMessage(error), code: "UNHANDLED_ERROR", transient: false };
    if (options.formatter) {
      const formatted = options.formatter(error);
      const transient = formatted instanceof ToolError ? formatted.transient : false;
      failure = {
        message: formatted.message,
        code: formatted.code ?? "UNHANDLED_ERROR",
        transient,
        ...(formatted.suggestion === undefined ? {} : { suggestion: formatted.suggestion }),
      };
    }
    return brand<FailToolResult>({ kind: "fail", error: failure, exception: error });
  },
} as const;

/** True when `value` was made by a {@link ToolResult} factory (from any installed copy). */
export function isToolResult(value: unknown): value is ToolResult {
  if (typeof value !== "object" || value === null) return false;
  try {
    return (value as Record<symbol, unknown>)[MARKER] === true;
  } catch {
    return false; // a hostile value (a proxy, a throwing getter) is no ToolResult
  }
}
