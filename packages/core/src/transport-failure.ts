// Failures of the transport (no response received): Node system codes, undici's, the clients' timeouts.
import { read } from "./error-chain.js";
import { IDEMPOTENCY_HINT, type MappedError } from "./mapped-error.js";

/** Codes of a failure to connect: nothing was sent, so nothing was applied. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
  "ERR_SOCKET_CONNECTION_TIMEOUT",
]);

/** Codes of a timeout after the request may have been sent (axios `ECONNABORTED`, gaxios `TimeoutError`...). */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "ECONNABORTED",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "TimeoutError",
]);

/** Codes of a connection lost after the request may have been sent. */
const LOST_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "EPIPE",
  "ENETRESET",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "ERR_NETWORK",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

/**
 * Node and client network codes mapped to `NETWORK_ERROR` (or `TIMEOUT`) and treated as transient.
 *
 * @example
 * ```ts
 * TRANSIENT_NETWORK_CODES.has("ECONNRESET"); // true
 * ```
 */
export const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  ...NOT_SENT_CODES,
  ...TIMEOUT_CODES,
  ...LOST_CODES,
]);

/** A failure of the transport: no response was received. @internal */
export interface TransportFailure {
  readonly kind: "not_sent" | "timeout" | "lost";
  /** The code (`ECONNREFUSED`) or name (`TimeoutError`) that says so. */
  readonly code: string;
}

export function transportFailure(candidate: unknown): TransportFailure | undefined {
  const code = read(candidate, "code");
  if (typeof code === "string") {
    const connecting = read(candidate, "syscall") === "connect" || read(candidate, "syscall") === "getaddrinfo";
    if (NOT_SENT_CODES.has(code) || (connecting && TRANSIENT_NETWORK_CODES.has(code)))
      return { kind: "not_sent", code };
    if (TIMEOUT_CODES.has(code)) return { kind: "timeout", code };
    if (LOST_CODES.has(code)) return { kind: "lost", code };
  }
  const type = read(candidate, "type"); // node-fetch 2's FetchError
  if (type === "request-timeout" || type === "body-timeout") return { kind: "timeout", code: "ETIMEDOUT" };
  // A DOMException from AbortSignal.timeout(), ky's and got's TimeoutError.
  if (read(candidate, "name") === "TimeoutError") return { kind: "timeout", code: "TimeoutError" };
  return undefined;
}

export function mapTransport(failure: TransportFailure): MappedError {
  if (failure.kind === "timeout")
    return {
      status: "timeout",
      code: "TIMEOUT",
      retriable: true,
      effect: "unknown",
      message: "The request to the upstream service timed out.",
      suggestion: IDEMPOTENCY_HINT,
    };
  if (failure.kind === "not_sent")
    return {
      status: "error",
      code: "NETWORK_ERROR",
      retriable: true,
      effect: "none",
      message: `Could not reach the upstream service (${failure.code}); the request was not sent.`,
      suggestion: "Retry the call; if it keeps failing, report the outage.",
    };
  return {
    status: "error",
    code: "NETWORK_ERROR",
    retriable: true,
    effect: "unknown",
    message: `A network error occurred reaching the upstream service (${failure.code}).`,
    suggestion: "Retry the call; if it keeps failing, report the outage.",
  };
}
