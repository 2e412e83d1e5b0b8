import { createToolOutcome, type ToolOutcome } from "@needlework/core";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";

/**
 * What an `approve` callback learns about a call to a `requiresApproval` tool. Its arguments were
 * validated against the tool's schema before anyone is asked; exactly these arguments run.
 */
export interface McpApprovalRequest {
  /** The tool the client called. */
  readonly toolName: string;
  /** The arguments as the client sent them (validated, frozen): exactly what runs on approval. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * Every argument as a person should be shown it: JSON, keys in the schema's order, never cut
   * (arguments longer than `MAX_APPROVAL_ARGUMENTS_CHARS` are refused before anyone is asked).
   */
  readonly argumentsText: string;
  /** `argumentsHash(arguments)`: record it with the approval; the call runs only with arguments of this hash. */
  readonly argumentsHash: string;
  /** The JSON-RPC request id. */
  readonly requestId: string | number;
  /** The transport's session id, when it has sessions (Streamable HTTP). */
  readonly sessionId: string | undefined;
  /**
   * Why the call is put to a person, when the injection policy asks (`usingInjectionPolicy()`):
   * untrusted content entered the session before this call with effects.
   */
  readonly reason?: string;
}

/**
 * Decides a call to a `requiresApproval` tool when the client cannot be asked (it declared no
 * elicitation capability): `true` runs the tool, `false` answers `APPROVAL_DENIED`.
 */
export type McpApproveFunction = (call: McpApprovalRequest) => boolean | Promise<boolean>;

/** How a call to an approval tool was settled: run it, or answer with this outcome. */
export type McpApprovalDecision = { readonly run: true } | { readonly run: false; readonly outcome: ToolOutcome };

function refused(
  code: "APPROVAL_DENIED" | "APPROVAL_REQUIRED",
  call: Pick<McpApprovalRequest, "toolName">,
  callId: string,
): McpApprovalDecision {
  const tool = call.toolName;
  const outcome = createToolOutcome({
    status: "error",
    errorCode: code,
    message:
      code === "APPROVAL_REQUIRED"
        ? `The tool '${tool}' needs a person's approval, and this client cannot ask for it (no elicitation capability).`
        : `The call to '${tool}' was not approved, so it did not run.`,
    suggestion:
      code === "APPROVAL_REQUIRED"
        ? "Tell the user this action needs approval in a client that supports elicitation; do not retry."
        : "Tell the user the action was not approved; do not retry unless they ask again.",
    metadata: { tool, callId, attempts: 0, latencyMs: 0 },
  });
  return { run: false, outcome };
}

/**
 * Settles a call to a `requiresApproval` tool whose arguments were checked (valid, short enough to
 * show whole). A client that declared the elicitation capability is asked (`elicitation/create`),
 * shown every argument; the tool runs only on `accept`, anything else (`decline`,
 * `cancel`, or the request failing) is `APPROVAL_DENIED`. Without that capability, `approve`
 * decides; with no `approve` either, the answer is `APPROVAL_REQUIRED`. The tool never runs
 * unapproved.
 *
 * @internal
 * @example
 * ```ts
 * const decision = await decideApproval(server, call, callId, options.approve, extra.signal);
 * ```
 */
export async function decideApproval(
  server: Server,
  call: McpApprovalRequest,
  callId: string,
  approve: McpApproveFunction | undefined,
  signal: AbortSignal,
): Promise<McpApprovalDecision> {
  if (server.getClientCapabilities()?.elicitation !== undefined) {
    try {
      const answer = await server.elicitInput(
        {
          mode: "form",
          // Every argument, in the schema's order: what the person approves is exactly what runs.
          message: `${call.reason === undefined ? "" : `${call.reason} `}Allow '${call.toolName}' to run with these arguments?\n${call.argumentsText}`,
          requestedSchema: {
            type: "object",
            // Not approved unless the person ticks it: an empty or half-filled form must not run the tool.
            properties: { approve: { type: "boolean", title: `Run ${call.toolName}`, default: false } },
          },
        },
        { signal },
      );
      // Fails closed: only an explicit `accept` with `approve === true` runs the tool.
      const approved = answer.action === "accept" && answer.content?.["approve"] === true;
      return approved ? { run: true } : refused("APPROVAL_DENIED", call, callId);
    } catch (error) {
      signal.throwIfAborted();
      void error; // the client could not answer (no form mode, transport closed): not approved
      return refused("APPROVAL_DENIED", call, callId);
    }
  }
  if (approve === undefined) return refused("APPROVAL_REQUIRED", call, callId);
  // Only `true` approves: "false", 1, an object are not an approval.
  return (await approve(call)) === true ? { run: true } : refused("APPROVAL_DENIED", call, callId);
}

/** The answer for a call whose approval does not cover the arguments about to run. @internal */
export function notApproved(toolName: string, callId: string): McpApprovalDecision {
  return refused("APPROVAL_DENIED", { toolName }, callId);
}
