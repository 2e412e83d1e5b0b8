/*
 * The HTTP status of a *returned* failure (a `Response` with `ok: false`, a batch item's `status`)
 * mapped to a stable code. Kept apart from error-mapping.ts on purpose: the thrown-error mapping
 * there is being reworked (`mapHttpStatus`), and this small table is meant to be replaced by it.
 * It follows DESIGN ("Failures as real tools produce them"): the message is fixed per code plus
 * the status number, never a body.
 */

/** A returned HTTP status as the model reads it. @internal */
export interface HttpStatusFailure {
  readonly code: string;
  readonly message: string;
  readonly retriable: boolean;
  readonly suggestion: string;
}

const RETRY_LATER = "Retry later; if it keeps failing, report the outage.";

/**
 * The failure an HTTP status ≥ 400 stands for; `undefined` below 400 (or for a non-status).
 * `retryAfterMs` adds the wait to a 429's message.
 *
 * @example
 * ```ts
 * httpStatusFailure(403)?.code; // "FORBIDDEN"
 * ```
 * @internal
 */
export function httpStatusFailure(status: number, retryAfterMs?: number): HttpStatusFailure | undefined {
  if (!Number.isInteger(status) || status < 400 || status > 599) return undefined;
  const http = `(HTTP ${status})`;
  switch (status) {
    case 400:
    case 422:
      return {
        code: "INVALID_REQUEST",
        retriable: false,
        message: `The upstream service rejected the request ${http}.`,
        suggestion: "Check the arguments and call again with corrected values.",
      };
    case 401:
      return {
        code: "UNAUTHORIZED",
        retriable: false,
        message: `The tool is not authenticated with the upstream service ${http}.`,
        suggestion: "Do not retry; report that the integration needs new credentials.",
      };
    case 403:
      return {
        code: "FORBIDDEN",
        retriable: false,
        message: `Permission denied by the upstream service ${http}.`,
        suggestion: "Do not retry; tell the user this action is not permitted.",
      };
    case 404:
    case 410:
      return {
        code: "NOT_FOUND",
        retriable: false,
        message: `The requested resource was not found ${http}.`,
        suggestion: "Verify the identifier before trying again.",
      };
    case 408:
      return {
        code: "TIMEOUT",
        retriable: true,
        message: `The upstream service timed out ${http}.`,
        suggestion: "Check whether the change was applied before retrying.",
      };
    case 409:
      return {
        code: "CONFLICT",
        retriable: false,
        message: `The resource is in a conflicting state ${http}.`,
        suggestion: "Read the current state of the resource before deciding whether to retry.",
      };
    case 429: {
      const seconds = retryAfterMs === undefined ? 0 : Math.ceil(retryAfterMs / 1000);
      const wait = retryAfterMs === undefined ? "" : ` Retry after ${seconds} second${seconds === 1 ? "" : "s"}.`;
      return {
        code: "RATE_LIMITED",
        retriable: true,
        message: `Rate limited by the upstream service ${http}.${wait}`,
        suggestion: "Wait before retrying, or continue with other work.",
      };
    }
    case 502:
    case 503:
    case 504:
      return {
        code: "UPSTREAM_UNAVAILABLE",
        retriable: true,
        message: `The upstream service is unavailable ${http}.`,
        suggestion: RETRY_LATER,
      };
    default:
      return status >= 500
        ? {
            code: "UPSTREAM_ERROR",
            retriable: true,
            message: `The upstream service failed ${http}.`,
            suggestion: RETRY_LATER,
          }
        : {
            code: "REQUEST_REJECTED",
            retriable: false,
            message: `The upstream service refused the request ${http}.`,
            suggestion: "Do not retry unchanged; tell the user what was refused.",
          };
  }
}
