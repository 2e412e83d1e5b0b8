import { NeedleworkError } from "@needlework/core";
import type { OpenAI } from "openai";

/**
 * The stable codes of {@link OpenAIResponseError}:
 * - `OPENAI_CONNECTION_FAILED`: no HTTP answer at all (refused, DNS, TLS, timeout), after the SDK's retries;
 * - `OPENAI_INVALID_RESPONSE`: an answer that is JSON in name only (cut off, malformed, empty);
 * - `OPENAI_NOT_JSON`: an answer of another type, most often an HTML page from a proxy or a wrong base URL;
 * - `OPENAI_STREAM_INTERRUPTED`: a streamed answer that ended before the model finished its turn;
 * - `OPENAI_RESPONSE_FAILED`: the Responses API reported the response `failed`.
 *
 * @example
 * ```ts
 * const code: OpenAIResponseErrorCode = "OPENAI_CONNECTION_FAILED";
 * ```
 */
export type OpenAIResponseErrorCode =
  | "OPENAI_CONNECTION_FAILED"
  | "OPENAI_INVALID_RESPONSE"
  | "OPENAI_NOT_JSON"
  | "OPENAI_STREAM_INTERRUPTED"
  | "OPENAI_RESPONSE_FAILED";

/**
 * The server at the base URL did not answer as an OpenAI-compatible server does. The message says
 * what happened and what to check; the SDK's own error, when there is one, is the `cause`. HTTP
 * errors with a status (429, 500, 401, ...) are not wrapped: they stay the SDK's `APIError`s.
 *
 * @example
 * ```ts
 * try {
 *   await agent.run("Where is ORD-1?");
 * } catch (error) {
 *   if (error instanceof OpenAIResponseError) console.error(error.message); // no stack for the user
 *   else throw error;
 * }
 * ```
 */
export class OpenAIResponseError extends NeedleworkError {
  // Named here, not by the bundler (which may emit `_OpenAIResponseError`): `name` and `isInstance` read it.
  static {
    Object.defineProperty(OpenAIResponseError, "name", { value: "OpenAIResponseError" });
  }
  declare readonly code: OpenAIResponseErrorCode;
  /** The base URL the request went to. */
  readonly baseURL: string;

  constructor(code: OpenAIResponseErrorCode, message: string, baseURL: string, cause?: unknown) {
    super(code, message, cause === undefined ? {} : { cause });
    this.baseURL = baseURL;
  }
}

function describeContentType(contentType: string | null | undefined): string {
  return contentType ? `'${contentType.split(";")[0]!.trim()}'` : "no content type";
}

/**
 * The error for a 200 answer whose body is not the JSON object an OpenAI server sends.
 * @internal
 */
export function notJsonError(
  baseURL: string,
  contentType: string | null | undefined,
  what: string,
  expected = "JSON",
): OpenAIResponseError {
  return new OpenAIResponseError(
    "OPENAI_NOT_JSON",
    `The server at ${baseURL} answered the ${what} request with ${describeContentType(contentType)} ` +
      `instead of ${expected}, ` +
      "so it is probably not an OpenAI-compatible API (an HTML page usually means a proxy, a login page, or a " +
      "base URL missing its '/v1'). Check the base URL and any proxy between you and the server.",
    baseURL,
  );
}

/**
 * The error for a 200 answer that is not a usable JSON object (empty, or without the fields every
 * answer of that API has).
 * @internal
 */
export function invalidResponseError(
  baseURL: string,
  what: string,
  detail: string,
  cause?: unknown,
): OpenAIResponseError {
  return new OpenAIResponseError(
    "OPENAI_INVALID_RESPONSE",
    `The server at ${baseURL} sent an invalid ${what} response (${detail}). ` +
      "The connection may have been cut, or a proxy changed the body: " +
      "check the server's logs and any proxy in between.",
    baseURL,
    cause,
  );
}

/**
 * The error for a stream that ended, or broke, before the model's turn was complete.
 * @internal
 */
export function streamInterruptedError(baseURL: string, what: string, cause?: unknown): OpenAIResponseError {
  return new OpenAIResponseError(
    "OPENAI_STREAM_INTERRUPTED",
    `The ${what} stream from ${baseURL} ended before the model finished its turn, so the partial answer was dropped. ` +
      "The connection was cut or the server stopped: check the server's logs, its and any proxy's timeouts, and retry.",
    baseURL,
    cause,
  );
}

type SdkStatics = Pick<typeof OpenAI, "APIConnectionError" | "APIConnectionTimeoutError" | "APIError">;

/** Codes of a connection broken after it was made (a reset), not refused. */
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

/**
 * The code of a connection reset during the answer, if that is what `error` is: the SDK's
 * `APIConnectionError` over one, or fetch's bare `TypeError: terminated` when the body was cut.
 */
function resetCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && RESET_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return error instanceof TypeError && error.message === "terminated" ? "terminated" : undefined;
}

/**
 * Turns what the SDK threw into the error a user can act on: a connection failure or a body that
 * is not JSON becomes an {@link OpenAIResponseError}; HTTP status errors and anything else pass
 * through unchanged. The SDK's classes are read from the client (openai 6 and 7 each have their own).
 * @internal
 */
export function describeFailure(error: unknown, client: OpenAI, what: string): unknown {
  const sdk = client.constructor as unknown as SdkStatics;
  const baseURL = client.baseURL;
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new OpenAIResponseError(
      "OPENAI_CONNECTION_FAILED",
      `The ${what} request to ${baseURL} timed out with no answer (after the SDK's retries). ` +
        "Check that the server is up and not overloaded (its logs), or raise `timeoutMs` for slow local models.",
      baseURL,
      error,
    );
  }
  const reset = resetCode(error);
  if (reset !== undefined) {
    return new OpenAIResponseError(
      "OPENAI_CONNECTION_FAILED",
      `The connection to ${baseURL} was reset while the ${what} request was answered (${reset}), so the answer was ` +
        "lost. The server or a proxy closed it: check the server's logs and any proxy's timeouts, then retry.",
      baseURL,
      error,
    );
  }
  if (error instanceof sdk.APIConnectionError) {
    const cause = (error as { cause?: { code?: unknown; cause?: { code?: unknown } } }).cause;
    const code = cause?.code ?? cause?.cause?.code;
    return new OpenAIResponseError(
      "OPENAI_CONNECTION_FAILED",
      `Could not connect to ${baseURL}${typeof code === "string" ? ` (${code})` : ""} for the ${what} request, ` +
        "after the SDK's retries. Check that the server is running and listening there, the base URL " +
        "(OPENAI_BASE_URL or { baseURL }), and any proxy or firewall in between.",
      baseURL,
      error,
    );
  }
  if (error instanceof SyntaxError)
    return invalidResponseError(baseURL, what, "its JSON body is cut off or malformed", error);
  return error;
}
