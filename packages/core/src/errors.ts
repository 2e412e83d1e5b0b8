const MARKER = Symbol.for("needlework.error");

/** Options shared by every needlework error. */
export interface NeedleworkErrorOptions {
  /** The tool the error concerns, when there is one. */
  readonly toolName?: string;
  /** The call id the error concerns, when there is one. */
  readonly callId?: string;
  /** The underlying error. Kept for diagnostics, never shown to the model. */
  readonly cause?: unknown;
}

/**
 * Base class of every error needlework throws. Carries a stable `code`, the tool name and call id
 * where known, and the `cause`. `NeedleworkError.isInstance()` works across two installed copies
 * of the package because it checks a `Symbol.for` marker, not the prototype chain.
 *
 * @example
 * ```ts
 * try { await registerAgentFunctions(container, Plain); }
 * catch (e) { if (NeedleworkError.isInstance(e)) console.error(e.code, e.message); }
 * ```
 */
export class NeedleworkError extends Error {
  // Named here, not by the bundler (which may emit `_NeedleworkError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(NeedleworkError, "name", { value: "NeedleworkError" });
  }
  /** Stable, machine-readable code. */
  readonly code: string;
  // `declare`: set only when known, so a logged error does not print `toolName: undefined`.
  /** The tool concerned, when known. */
  declare readonly toolName?: string;
  /** The call concerned, when known. */
  declare readonly callId?: string;

  constructor(code: string, message: string, options: NeedleworkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    // Not enumerable, as on Error.prototype: the stack's first line already names the class.
    Object.defineProperty(this, "name", { value: new.target.name, writable: true, configurable: true });
    this.code = code;
    if (options.toolName !== undefined) (this as { toolName?: string }).toolName = options.toolName;
    if (options.callId !== undefined) (this as { callId?: string }).callId = options.callId;
  }

  /** True for any needlework error, from any installed copy of the package. */
  static isInstance(value: unknown): value is NeedleworkError {
    if (typeof value !== "object" || value === null) return false;
    try {
      return (value as Record<symbol, unknown>)[MARKER] === true;
    } catch {
      return false; // a hostile thrown value (a proxy, a throwing getter) is no needlework error
    }
  }
}

// The marker lives on the prototype, not on each error: it stays out of logs and `{ ...error }`.
Object.defineProperty(NeedleworkError.prototype, MARKER, { value: true });

/**
 * Thrown when an `@AgentFunction` or `@AgentFunctionGroup` is applied with options that cannot work.
 * The message names the class and the method.
 */
export class ToolDefinitionError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_ToolDefinitionError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(ToolDefinitionError, "name", { value: "ToolDefinitionError" });
  }
  constructor(message: string, options: NeedleworkErrorOptions = {}) {
    super("TOOL_DEFINITION_ERROR", message, options);
  }
}

/** Thrown when tools cannot be registered: duplicate names, undecorated classes, bad lifetimes. */
export class ToolRegistrationError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_ToolRegistrationError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(ToolRegistrationError, "name", { value: "ToolRegistrationError" });
  }
  constructor(message: string, options: NeedleworkErrorOptions = {}) {
    super("TOOL_REGISTRATION_ERROR", message, options);
  }
}

/** Options of a {@link ToolError}. */
export interface ToolErrorOptions extends NeedleworkErrorOptions {
  /** Stable error code; `TOOL_ERROR` when omitted. */
  readonly code?: string;
  /** A hint for the model on how to recover. */
  readonly suggestion?: string;
  /** Whether another attempt may succeed. Defaults to `false`. */
  readonly transient?: boolean;
  /** Extra payload shown with the failure. */
  readonly data?: unknown;
}

/**
 * A deliberate, model-facing tool failure. Its `message` and `suggestion` are written for the model
 * and are shown to it as they are, unlike the message of any other thrown error. Return
 * `ToolResult.fail(...)` or throw a `ToolError`: both end as the same `error` outcome.
 *
 * @example
 * ```ts
 * throw new ToolError("Contact is locked", { code: "CONTACT_LOCKED", transient: true,
 *   suggestion: "Wait a minute and try again." });
 * ```
 */
export class ToolError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_ToolError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(ToolError, "name", { value: "ToolError" });
  }
  /** A hint for the model on how to recover. */
  readonly suggestion: string | undefined;
  /** Whether another attempt may succeed. */
  readonly transient: boolean;
  /** Extra payload shown with the failure. */
  readonly data: unknown;

  constructor(message: string, options: ToolErrorOptions = {}) {
    super(options.code ?? "TOOL_ERROR", message, options);
    this.suggestion = options.suggestion;
    this.transient = options.transient ?? false;
    this.data = options.data;
  }
}

/**
 * Marks a thrown error as transient: a retry may succeed. Resilience retries it for tools marked
 * `idempotent`. The message is kept for diagnostics and never shown to the model.
 */
export class TransientError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_TransientError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(TransientError, "name", { value: "TransientError" });
  }
  constructor(message = "Transient failure", options: NeedleworkErrorOptions & { readonly code?: string } = {}) {
    super(options.code ?? "TRANSIENT_ERROR", message, options);
  }
}

/** A tool attempt or call ran past its time limit. Shown to the model as a `timeout` outcome. */
export class TimeoutError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_TimeoutError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(TimeoutError, "name", { value: "TimeoutError" });
  }
  /** The limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number | undefined;

  constructor(
    message = "The tool call timed out",
    options: NeedleworkErrorOptions & { readonly timeoutMs?: number } = {},
  ) {
    super("TIMEOUT", message, options);
    this.timeoutMs = options.timeoutMs;
  }
}

/** A tool's circuit breaker is open: the tool was not called. */
export class CircuitOpenError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_CircuitOpenError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(CircuitOpenError, "name", { value: "CircuitOpenError" });
  }
  constructor(message = "The tool is temporarily unavailable (circuit open)", options: NeedleworkErrorOptions = {}) {
    super("CIRCUIT_OPEN", message, options);
  }
}

/** True when `error` is an abort: a DOMException or Error named `AbortError`. */
export function isAbortError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}

/**
 * The error to reject with when `signal` is aborted: its reason when that is an Error, otherwise
 * an `AbortError` DOMException carrying the reason as its cause.
 */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new DOMException("The operation was aborted", "AbortError");
  if (reason !== undefined) Object.defineProperty(error, "cause", { value: reason, configurable: true });
  return error;
}
