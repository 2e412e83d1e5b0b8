import {
  type MappedError,
  mapHttpStatus,
  provesNotApplied,
  TimeoutError,
  ToolError,
  ToolResult,
} from "@needlework/core";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { failWith, type RemoteCallSite } from "./remote-results.js";

/** What a failed request says about the connection it went over. @internal */
export type ConnectionVerdict = "keep" | "reconnect";

/** The HTTP status of a Streamable HTTP failure, or `undefined`. @internal */
export function httpStatusOfTransport(error: unknown): number | undefined {
  return error instanceof StreamableHTTPError && typeof error.code === "number" && error.code >= 100
    ? error.code
    : undefined;
}

/**
 * Whether the connection is still usable after `error`: a closed transport (a crashed stdio child,
 * a dropped stream), a network failure or an expired session needs a new one. @internal
 *
 * @example
 * ```ts
 * if (verdictOf(error) === "reconnect") connection.markBroken();
 * ```
 */
export function verdictOf(error: unknown): ConnectionVerdict {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed ? "reconnect" : "keep";
  const status = httpStatusOfTransport(error);
  if (status !== undefined) return status === 404 ? "reconnect" : "keep";
  return "reconnect"; // a network error (fetch failed, reset, refused): the transport is suspect
}

/** Only for a call nothing was sent by, or one safe to repeat: see {@link lostOrUnavailable}. */
const unavailable = (site: RemoteCallSite, why: string, notApplied: boolean): MappedError => ({
  status: "error",
  code: "UPSTREAM_UNAVAILABLE",
  retriable: true,
  effect: notApplied ? "none" : "unknown",
  message: `Server '${site.server}' is unavailable (${why}).`,
  suggestion: "Retry later; if it keeps failing, report the outage.",
});

/**
 * A request whose answer was lost after it was sent (the connection failed or closed mid-call, a
 * gateway's 502/504): for a tool safe to repeat, `UPSTREAM_UNAVAILABLE` (retried); for any other,
 * `OUTCOME_UNKNOWN`, not retriable, since the write may have landed. Nothing sent: unavailable.
 */
function lostOrUnavailable(site: RemoteCallSite, why: string, notApplied: boolean): unknown {
  if (notApplied || site.safeToRepeat) return failWith(unavailable(site, why, notApplied), site);
  throw new ToolError(
    `Server '${site.server}' did not answer '${site.tool}' (${why}); it may or may not have taken effect.`,
    {
      code: "OUTCOME_UNKNOWN",
      suggestion: "Do not call it again blindly: check whether the action took effect first.",
    },
  );
}

/**
 * The tool's answer for a request that failed below the tool (the transport, the protocol), per
 * DESIGN: refused or reset connections, 502-504 and a closed transport (a crashed stdio child) are
 * `UPSTREAM_UNAVAILABLE`, retried for any tool when nothing was sent, else for read-only and
 * idempotent tools only (for any other tool a call that may have landed is `OUTCOME_UNKNOWN`); 401/403 `UNAUTHORIZED`/`FORBIDDEN`; JSON-RPC -32602 `INVALID_ARGUMENTS`,
 * -32601 `UNKNOWN_TOOL`; a request timeout `TIMEOUT` for a tool safe to repeat, else
 * `OUTCOME_UNKNOWN`. Never the error's text: the SDK's messages quote response bodies. @internal
 *
 * @example
 * ```ts
 * catch (error) { return transportFailure(error, site); }
 * ```
 */
export function transportFailure(error: unknown, site: RemoteCallSite): unknown {
  if (error instanceof McpError) {
    switch (error.code) {
      case ErrorCode.ConnectionClosed:
        return lostOrUnavailable(site, "the connection closed during the call", false);
      case ErrorCode.RequestTimeout:
        if (site.safeToRepeat)
          throw new TimeoutError(`Tool '${site.tool}' on server '${site.server}' timed out.`, { cause: error });
        throw new ToolError(
          `Tool '${site.tool}' on server '${site.server}' timed out; it may or may not have taken effect.`,
          {
            code: "OUTCOME_UNKNOWN",
            suggestion: "Do not call it again blindly: check whether the action took effect first.",
          },
        );
      case ErrorCode.InvalidParams:
        return ToolResult.fail(`Server '${site.server}' refused the arguments of '${site.tool}'.`, {
          code: "INVALID_ARGUMENTS",
          suggestion: "Call the tool again with arguments that match its schema.",
        });
      case ErrorCode.MethodNotFound:
        return ToolResult.fail(`Server '${site.server}' does not offer '${site.tool}' (any more).`, {
          code: "UNKNOWN_TOOL",
          suggestion: "Use another tool, or report that the server changed.",
        });
      default:
        return ToolResult.fail(`Server '${site.server}' refused the call (JSON-RPC error ${error.code}).`, {
          code: "REMOTE_TOOL_ERROR",
          suggestion: "Report the failure; calling again with the same arguments will likely fail the same way.",
        });
    }
  }
  const status = httpStatusOfTransport(error);
  if (status !== undefined) {
    if (status === 502 || status === 503 || status === 504)
      return lostOrUnavailable(site, `HTTP ${status}`, status === 503);
    const mapped = mapHttpStatus(status);
    if (mapped !== undefined)
      return failWith({ ...mapped, message: `Server '${site.server}': ${mapped.message}.` }, site);
  }
  if (error instanceof StreamableHTTPError || isNetworkError(error)) {
    const notApplied = safely(() => provesNotApplied(error) || provesNotApplied((error as { cause?: unknown }).cause));
    return lostOrUnavailable(site, notApplied ? "connection refused" : "the connection failed", notApplied);
  }
  throw error; // not a transport failure (a bug, a hostile value): the tool-result middleware maps it by type
}

function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

/** fetch's `TypeError` (its `cause` names the socket error), a Node socket error, undici's errors. */
function isNetworkError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { name, code, cause } = error as { name?: unknown; code?: unknown; cause?: unknown };
  if (typeof code === "string" && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return true;
  if (name === "TypeError" && typeof cause === "object" && cause !== null) return isNetworkError(cause);
  return false;
}
