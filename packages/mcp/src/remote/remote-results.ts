import { type MappedError, mapHttpStatus, ToolError, ToolResult } from "@needlework/core";
import { mapSqlState } from "@needlework/core/internal";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type ContentDescription, describeContent, type StoredBinaries } from "./remote-content.js";

/** Who answered: the names a failure's message gives. @internal */
export interface RemoteCallSite {
  readonly server: string;
  /** The tool's name on its server. */
  readonly tool: string;
  /** The call may be repeated safely (read-only or idempotent). */
  readonly safeToRepeat: boolean;
}

/** The longest part of a server's error text the model reads (it is untrusted, and scrubbed). */
const MAX_ERROR_TEXT = 500;

const SQLSTATE = /\bSQLSTATE[\s:=(]*([0-9A-Z]{5})\b/;
const HTTP_STATUS = /\b(?:HTTP(?:\/\d(?:\.\d)?)?|status(?: code)?)[\s:=]*([45]\d\d)\b/i;

function textOf(result: CallToolResult): string {
  const parts: string[] = [];
  for (const item of result.content ?? []) if (item.type === "text") parts.push(item.text);
  return parts.join("\n");
}

/**
 * The code a failed result's text states: a SQLSTATE (through core's SQLSTATE table, as a `pg`
 * error would be mapped), else an HTTP status (core's status table), else nothing. @internal
 *
 * @example
 * ```ts
 * mappedFromText("ERROR: relation \"x\" does not exist (SQLSTATE 42P01)")?.code; // "DATABASE_ERROR"
 * ```
 */
export function mappedFromText(text: string): MappedError | undefined {
  const sqlState = SQLSTATE.exec(text)?.[1];
  if (sqlState !== undefined) return mapSqlState({ code: sqlState, severity: "ERROR" });
  const status = HTTP_STATUS.exec(text)?.[1];
  return status === undefined ? undefined : mapHttpStatus(Number(status));
}

/**
 * A mapped failure as the tool's answer: one that proves nothing was applied (`effect: "none"`) is
 * a transient failed result, which resilience retries for any tool; one that may have been applied
 * is thrown as a transient `ToolError`, retried only for a tool that is safe to repeat; any other
 * is a failed result. The model reads the code, our message and the suggestion. @internal
 *
 * @example
 * ```ts
 * return failWith(mapped, site);
 * ```
 */
export function failWith(mapped: MappedError, site: RemoteCallSite): ReturnType<typeof ToolResult.fail> {
  const options = {
    code: mapped.code,
    ...(mapped.suggestion === undefined ? {} : { suggestion: mapped.suggestion }),
  };
  if (mapped.retriable && mapped.effect !== "none" && !site.safeToRepeat)
    throw new ToolError(mapped.message, { ...options, transient: true });
  return ToolResult.fail(mapped.message, { ...options, transient: mapped.retriable });
}

function parsedText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return text;
  }
}

function itemValue(item: CallToolResult["content"][number], stored?: StoredBinaries): unknown | ContentDescription {
  return item.type === "text" ? parsedText(item.text) : describeContent(item, stored);
}

/**
 * The tool's answer for an MCP `tools/call` result:
 * - `isError: true`: a failure whose code comes from its text (a SQLSTATE, an HTTP status), else
 *   `REMOTE_TOOL_ERROR` with the server's text (cut to 500 characters; the outcome scrubs secrets
 *   and, as the tool reads untrusted content, marks it untrusted);
 * - `structuredContent`: the data (the tool's `outputSchema` checks it: `OUTPUT_INVALID`);
 * - otherwise the content: text that parses as JSON is data (and goes through returned-failure
 *   detection, Toolbox's `{"error": ...}`), other text is a string, images, audio and resources
 *   are described (type, size; with artifacts on, the stored artifact's id), never passed on as
 *   base64; one item is the data, several a list,
 *   none is an ok result with no data. @internal
 *
 * @example
 * ```ts
 * return remoteAnswer(await connection.callTool(name, args, meta, signal), site);
 * ```
 */
export function remoteAnswer(result: CallToolResult, site: RemoteCallSite, stored?: StoredBinaries): unknown {
  if (result.isError === true) {
    const text = textOf(result);
    const mapped = mappedFromText(text);
    if (mapped !== undefined) return failWith(mapped, site);
    const shown = text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
    return ToolResult.fail(
      `Tool '${site.tool}' on server '${site.server}' failed${shown.trim() === "" ? "." : `: ${shown}`}`,
      {
        code: "REMOTE_TOOL_ERROR",
        suggestion: "Read the server's message: fix the arguments if it names them, otherwise report the failure.",
      },
    );
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = result.content ?? [];
  if (content.length === 0) return undefined;
  if (content.length === 1) return itemValue(content[0]!, stored);
  return content.map((item) => itemValue(item, stored));
}
