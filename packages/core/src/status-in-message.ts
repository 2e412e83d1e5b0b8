// The HTTP status a plain `Error` states in its message, in the forms the platform docs and the
// common clients teach. MDN's "Using the Fetch API" checks `if (!response.ok) throw new Error(
// `Response status: ${response.status}`)`; older MDN pages and many tutorials write `HTTP error!
// status: 503`; axios says `Request failed with status code 503`; node-fetch's README `HTTP Error
// Response: 503 Service Unavailable`. Read only on an `Error` nothing else recognized, and only a
// status of 400-599: the message itself is never shown.
import { read } from "./error-chain.js";

const FORMS =
  /^(?:response status|http error!?\s*status|http error response|request failed with status code|http status|status code|http|status)\s*[:=]?\s*([45]\d\d)\b/i;

/** Characters of a message read: the forms are short, and a long message is someone's own text. */
const MAX_MESSAGE = 200;

/**
 * The HTTP status (400-599) an `Error`'s message states at its start (`Response status: 503`,
 * `HTTP 503`, `HTTP error! status: 503`, `Request failed with status code 503`), or `undefined`.
 *
 * @example
 * ```ts
 * statusInMessage(new Error("Response status: 503")); // 503
 * statusInMessage(new Error("disk 503 full")); // undefined
 * ```
 */
export function statusInMessage(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const message = read(error, "message");
  if (typeof message !== "string" || message.length > MAX_MESSAGE) return undefined;
  const match = FORMS.exec(message.trim());
  return match === null ? undefined : Number(match[1]);
}
