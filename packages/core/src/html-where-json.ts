// An HTML page answered where JSON was expected: a proxy's or load balancer's error page, a
// maintenance page, often with status 200. The client's JSON parse fails, and the platform's parser
// names the page in its message (`Unexpected token '<', "<!DOCTYPE "... is not valid JSON`); got
// wraps that in its `ParseError`. That is the upstream's answer, not a bug in the tool: it maps to
// `UPSTREAM_ERROR`, retriable, with an unknown effect (the page may come after the request was
// applied), so an idempotent tool is retried with its key and any other gets `OUTCOME_UNKNOWN`.
// The message itself is never shown.
import { errorChain, read } from "./error-chain.js";
import { IDEMPOTENCY_HINT, type MappedError } from "./mapped-error.js";

const HTML_AS_JSON =
  /^(?:Unexpected token '<', "\s*<(?:!doctype|html|head|body|title|\?xml)|Unexpected token < in JSON at position 0)/i;
const PARSE_ERRORS: ReadonlySet<unknown> = new Set(["SyntaxError", "ParseError"]);

/**
 * The mapping of a JSON parse failure on an HTML page (see the module's comment), or `undefined`.
 * @internal
 *
 * @example
 * ```ts
 * mapHtmlWhereJson(new SyntaxError(`Unexpected token '<', "<!DOCTYPE "... is not valid JSON`))?.code; // "UPSTREAM_ERROR"
 * ```
 */
export function mapHtmlWhereJson(error: unknown): MappedError | undefined {
  for (const candidate of errorChain(error)) {
    const message = read(candidate, "message");
    if (!PARSE_ERRORS.has(read(candidate, "name")) || typeof message !== "string") continue;
    if (!HTML_AS_JSON.test(message.slice(0, 40))) continue;
    return {
      status: "error",
      code: "UPSTREAM_ERROR",
      retriable: true,
      effect: "unknown",
      message: "The upstream service answered an HTML page where JSON was expected",
      suggestion: IDEMPOTENCY_HINT,
    };
  }
  return undefined;
}
