import { randomUUID } from "node:crypto";
import {
  argumentsHash,
  checkApprovalArguments,
  createToolOutcome,
  formatToolOutcome,
  toJsonSafe,
  type ToolInvoker,
  type ToolOutcome,
} from "@needlework/core";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ListToolsResult,
} from "@modelcontextprotocol/sdk/types.js";
import { invokeForModel, type UnhandledToolErrorHandler } from "@needlework/core";
import { APPROVED_BY_PERSON, APPROVED_ITEM, ownOptions } from "@needlework/core/kit";
import { ConnectionServer, runIdOfCall } from "./connection-run-id.js";
import { decideApproval, type McpApprovalDecision, type McpApproveFunction, notApproved } from "./mcp-approval.js";
import { hasObjectOutput, toMcpToolList } from "./mcp-tools.js";

/** What a `runId` function learns about the `tools/call` request it names the run for. */
export interface McpToolCallInfo {
  /** The tool the client called. */
  readonly toolName: string;
  /** The JSON-RPC request id (unique within one session only). */
  readonly requestId: string | number;
  /** The transport's session id, when it has sessions (Streamable HTTP). */
  readonly sessionId: string | undefined;
}

/** Options of {@link createMcpServer} and {@link serveMcp}. */
export interface McpServerOptions {
  /** The server name clients see in `initialize`. Default `"needlework"`. */
  readonly name?: string;
  /** The server version clients see in `initialize`. Default `"0.1.0"`. */
  readonly version?: string;
  /** Instructions for the client's model, sent in `initialize`. */
  readonly instructions?: string;
  /** Offer only these tools (by needlework name); others are `UNKNOWN_TOOL`. Default: every tool. */
  readonly tools?: readonly string[];
  /**
   * The needlework run id of each call: fixed, or a function of the request. Default, and when the
   * function gives `undefined` (no `sessionId` on stdio or in-memory transports): one run id per
   * connection, so the injection policy sees what earlier calls of the same client read.
   */
  readonly runId?: string | ((call: McpToolCallInfo) => string | undefined);
  /**
   * Renders the outcome as the text content of the result. Default: `formatToolOutcome` (the JSON
   * envelope). Pass a factory's `formatOutcome` to send what an agent built by the factory sends.
   */
  readonly format?: (outcome: ToolOutcome) => string;
  /** Leave `metadata` out of the default envelope. Default `false`. */
  readonly omitMetadata?: boolean;
  /**
   * Called with an exception that escaped the pipeline (an invoker without the tool-result
   * middleware). The client reads an `UNHANDLED_ERROR` envelope naming only the exception's type.
   */
  readonly onError?: UnhandledToolErrorHandler;
  /**
   * Decides calls to `requiresApproval` tools when the client declared no elicitation capability
   * (a client that did is always asked). Without it such calls answer `APPROVAL_REQUIRED` and the
   * tool never runs.
   */
  readonly approve?: McpApproveFunction;
}

const MCP_SERVER_OPTION_KEYS = [
  "name",
  "version",
  "instructions",
  "tools",
  "runId",
  "format",
  "omitMetadata",
  "onError",
  "approve",
] as const satisfies readonly (keyof McpServerOptions)[];

function exposedNames(invoker: ToolInvoker, names: readonly string[] | undefined): ReadonlySet<string> | undefined {
  if (names === undefined) return undefined;
  const known = new Set(invoker.definitions.map((d) => d.name));
  const missing = names.filter((n) => !known.has(n));
  if (missing.length > 0) {
    throw new TypeError(
      `createMcpServer: no tool named ${missing.map((n) => `'${n}'`).join(", ")}. Pick from: ${[...known].join(", ") || "(none)"}.`,
    );
  }
  return new Set(names);
}

/** The outcome for a tool hidden by `tools`: the invoker would suggest hidden names, so it is built here. */
function hiddenToolOutcome(name: string, callId: string, available: readonly string[]): ToolOutcome {
  return createToolOutcome({
    status: "error",
    errorCode: "UNKNOWN_TOOL",
    message: `There is no tool named '${name.slice(0, 100)}'.`,
    suggestion: `Use one of the available tools: ${available.join(", ") || "(none)"}.`,
    metadata: { tool: name.slice(0, 100), callId, attempts: 0, latencyMs: 0 },
  });
}

/** Freezes a JSON value (a request's arguments, cloned) at every level, so nothing changes it between approval and run. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** The item a call a person approved carries (the injection policy lets it run). */
const APPROVED_ITEMS: ReadonlyMap<string, unknown> = new Map([[APPROVED_ITEM, APPROVED_BY_PERSON]]);

/** What a client reads when the server's own `approve` or `runId` callback threw. */
const CALLBACK_FAILED =
  '{"status":"error","error_code":"SERVER_CALLBACK_FAILED","retriable":false,"message":"The server could not decide on this call; nothing ran.","suggestion":"Tell the user the server failed to process the request; do not retry."}';

/**
 * Creates an MCP server (the SDK's low-level `Server`, not yet connected) whose `tools/list` gives
 * the needlework tools' names, descriptions and JSON Schemas, and whose `tools/call` runs the
 * needlework pipeline and returns the formatted outcome as text content, with `isError: true`
 * whenever the status is not `ok`. A tool with an object `output` schema declares `outputSchema`
 * and its successful results carry `structuredContent` (the tool's data). Annotations are honest:
 * `readOnlyHint`, `idempotentHint`, and `destructiveHint` false only for read-only or idempotent
 * tools. A `requiresApproval` tool never runs unapproved: the client is asked through elicitation
 * when it declared that capability (the tool runs on `accept`, else `APPROVAL_DENIED`); otherwise
 * the `approve` option decides, and without it the answer is `APPROVAL_REQUIRED`. Unknown tools and invalid arguments are results the model can
 * read (`UNKNOWN_TOOL`, `INVALID_ARGUMENTS`), not protocol errors. Use it when you manage the
 * transport yourself (e.g. one server per Streamable HTTP session); otherwise use {@link serveMcp}.
 *
 * @example
 * ```ts
 * const server = createMcpServer(factory.tools, { name: "orders", format: factory.formatOutcome });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(invoker: ToolInvoker, given: McpServerOptions = {}): Server {
  // Own properties only: a polluted Object.prototype supplies no `approve`, `runId` or `tools`.
  const options = ownOptions(given, MCP_SERVER_OPTION_KEYS);
  const { runId, onError } = options;
  const exposed = exposedNames(invoker, options.tools);
  const definitions = exposed ? invoker.definitions.filter((d) => exposed.has(d.name)) : invoker.definitions;
  const tools = toMcpToolList(definitions);
  const byName = new Map(definitions.map((d) => [d.name, d]));
  const available = definitions.map((d) => d.name);
  const format =
    options.format ??
    ((outcome: ToolOutcome) => formatToolOutcome(outcome, { omitMetadata: options.omitMetadata ?? false }));

  const server = new ConnectionServer(
    { name: options.name ?? "needlework", version: options.version ?? "0.1.0" },
    {
      capabilities: { tools: { listChanged: false } },
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    try {
      return await callTool(request, extra);
    } catch (error) {
      extra.signal.throwIfAborted();
      // An exception of the server's own callbacks (`approve`, `runId`): the client gets a fixed
      // text, never the exception's (it may name a database, a URL with a password).
      void error;
      return { content: [{ type: "text", text: CALLBACK_FAILED }], isError: true };
    }
  });

  const callTool = async (
    request: { params: { name: string; arguments?: Record<string, unknown> | undefined } },
    extra: { signal: AbortSignal; requestId: string | number; sessionId?: string | undefined },
  ): Promise<CallToolResult> => {
    const name = request.params.name;
    const callId = `mcp_${randomUUID()}`;
    let outcome: ToolOutcome;
    if (exposed && !exposed.has(name)) {
      outcome = hiddenToolOutcome(name, callId, available);
    } else {
      let args: Record<string, unknown> = request.params.arguments ?? {};
      const definition = byName.get(name);
      const tool = definition?.flags.requiresApproval ? invoker.get(name) : undefined;
      let decision: McpApprovalDecision = { run: true };
      if (tool !== undefined) {
        // Checked before anyone is asked: invalid arguments, or arguments too long to show whole,
        // are answered so and nobody is asked. The person sees every argument; a frozen copy of
        // exactly those arguments runs, and only while its hash is the one approved.
        const checked = checkApprovalArguments(tool, args, { callId });
        if (!checked.ok) decision = { run: false, outcome: checked.outcome };
        else {
          args = deepFreeze(structuredClone(args));
          const call = {
            toolName: name,
            arguments: args,
            argumentsText: checked.text,
            argumentsHash: checked.hash,
            requestId: extra.requestId,
            sessionId: extra.sessionId,
          };
          decision = await decideApproval(server, call, callId, options.approve, extra.signal);
          if (decision.run && argumentsHash(args) !== checked.hash) decision = notApproved(name, callId);
        }
      }
      if (!decision.run) {
        outcome = decision.outcome;
      } else {
        // One run per connection unless `runId` names one: calls of one client share what they read.
        const info = { toolName: name, requestId: extra.requestId, sessionId: extra.sessionId };
        const invokeOptions = { signal: extra.signal, runId: runIdOfCall(runId, info, server.connectionRunId) };
        outcome = await invokeForModel(invoker, { name, arguments: args, callId }, invokeOptions, onError);
        // The injection policy refused the call for want of a person's approval: ask, as for a
        // `requiresApproval` tool; approved, the same call runs once more, marked approved. Not
        // approved, the client reads the policy's UNTRUSTED_CONTEXT.
        const gated = invoker.get(name);
        if (
          outcome.errorCode === "UNTRUSTED_CONTEXT" &&
          outcome.metadata.approvalRequired === true &&
          gated !== undefined
        ) {
          const flagged = outcome.metadata.untrustedArguments;
          const reason = `Text a third party wrote entered this session before this call${Array.isArray(flagged) && flagged.length > 0 ? `, and its arguments ${flagged.map((f) => `'${String(f)}'`).join(", ")} came from it` : ""}.`;
          // Shown whole, like any approval; arguments too long to show are answered so, nobody asked.
          const checked = checkApprovalArguments(gated, args, { callId });
          if (!checked.ok) outcome = checked.outcome;
          const frozen = checked.ok ? deepFreeze(structuredClone(args)) : args;
          const call = {
            toolName: name,
            arguments: frozen,
            argumentsText: checked.ok ? checked.text : "",
            argumentsHash: checked.ok ? checked.hash : "",
            requestId: extra.requestId,
            sessionId: extra.sessionId,
            reason,
          };
          const asked = checked.ok
            ? await decideApproval(server, call, callId, options.approve, extra.signal)
            : notApproved(name, callId);
          args = frozen;
          if (asked.run && argumentsHash(args) === call.argumentsHash)
            outcome = await invokeForModel(
              invoker,
              { name, arguments: args, callId },
              { ...invokeOptions, items: APPROVED_ITEMS },
              onError,
            );
        }
      }
    }
    const ok = outcome.status === "ok";
    const definition = byName.get(name);
    const structured =
      ok && definition !== undefined && hasObjectOutput(definition) ? toJsonSafe(outcome.data) : undefined;
    return {
      content: [{ type: "text", text: format(outcome) }],
      ...(structured !== null && typeof structured === "object" && !Array.isArray(structured)
        ? { structuredContent: structured }
        : {}),
      isError: !ok,
    };
  };

  return server;
}
