/**
 * An `AbortError` a tool body threw although nobody aborted its call (neither the caller nor an
 * attempt timeout): the tool aborted its own request, which is how node-fetch, `fetch` with an
 * `AbortController`, or axios with a `signal` report a timeout the tool set itself. It is read as
 * what it is, a client timeout whose request may have landed (`TimeoutError`, effect unknown), not as
 * a cancellation, which would be neither mapped nor retried. Any other value is returned as it is.
 * @internal
 *
 * @example
 * ```ts
 * const error = ownAbortAsTimeout(thrown, call.callerSignal);
 * ```
 */
export function ownAbortAsTimeout(error: unknown, callerSignal: AbortSignal | undefined): unknown {
  if (callerSignal?.aborted === true || !isAbortError(error)) return error;
  const timeout = new Error("The tool's own request was aborted before it answered (its own timeout).", {
    cause: error,
  });
  timeout.name = "TimeoutError";
  return timeout;
}

function isAbortError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  try {
    const name = (error as { name?: unknown }).name;
    return name === "AbortError" || name === "CanceledError";
  } catch {
    return false;
  }
}
