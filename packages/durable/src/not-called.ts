/*
 * Which outcomes are of calls whose tool body never ran: the one rule `run_health` counts
 * `tools_not_called` by, and what the run inspector and a store's figures count the same way.
 */

/**
 * Error codes of calls whose tool body never ran: an unknown tool, invalid arguments, an open
 * circuit, a denied or still-required approval, arguments too long to approve, untrusted context.
 *
 * @example
 * ```ts
 * const sqlList = [...NOT_CALLED_CODES].map((code) => `'${code}'`).join(", ");
 * ```
 */
export const NOT_CALLED_CODES: ReadonlySet<string> = new Set([
  "UNKNOWN_TOOL",
  "INVALID_ARGUMENTS",
  "CIRCUIT_OPEN",
  "APPROVAL_DENIED",
  "APPROVAL_REQUIRED",
  "APPROVAL_ARGUMENTS_TOO_LONG",
  "UNTRUSTED_CONTEXT",
]);

/**
 * True when the tool body never ran for this outcome (skipped, denied, unknown tool, bad arguments,
 * open circuit): the model is told "not called", not "failed".
 *
 * @example
 * ```ts
 * const notCalled = run.calls.filter((c) => c.outcome && wasNotCalled(c.outcome.outcome)).length;
 * ```
 */
export function wasNotCalled(outcome: { readonly status: string; readonly errorCode?: string | undefined }): boolean {
  return outcome.status === "skipped" || (outcome.errorCode !== undefined && NOT_CALLED_CODES.has(outcome.errorCode));
}
