import type {
  AgentFunctionDescriptor,
  ToolCallContext,
  ToolCallReport,
  ToolClass,
  ToolContext,
  ToolMiddleware,
} from "./agent-function.options.js";
import { randomBytes } from "node:crypto";
import { types } from "node:util";
import type { DependencyContainer } from "tsyringe";
import { editDistance } from "./closest-name.js";
import { abortReason } from "./errors.js";
import { answerSync, composeMiddleware } from "./middleware.js";
import { ownOptions } from "./own-options.js";
import { registerAgentFunctions } from "./register-agent-functions.js";
import { type DefinedTool, withDefinedTools } from "./define-tool.js";
import { CallContext, ToolContextView } from "./call-context.js";
import { type ArgumentLimits, DEFAULT_ARGUMENT_LIMITS, parseToolArguments } from "./tool-arguments.js";
import { type ToolDefinition, toolDefinitionOf } from "./tool-definition.js";
import { createToolOutcome, type ToolOutcome } from "./tool-outcome.js";
import { CALL_PROBE } from "./call-probe.js";
import { CallScope, runInCallScope } from "./sub-run-mark.js";
import { markUntrusted } from "./tool-provenance.js";
import { isToolResult } from "./tool-result.js";
import { toolValueOutcome } from "./tool-value-outcome.js";

/** One call as a model (or your code) asks for it. */
export interface ToolCall {
  /** The tool name. */
  readonly name: string;
  /** An object, or the raw JSON string a model produced. */
  readonly arguments?: unknown;
  /** The call id; generated when omitted. */
  readonly callId?: string;
}

/** Per-invoke options. */
export interface InvokeOptions {
  /** Cancels the call; an aborted call rejects with an AbortError (never an outcome). */
  readonly signal?: AbortSignal;
  /** The run this call belongs to; generated when omitted. */
  readonly runId?: string;
  /** Values handed to middleware and the tool as `items`. */
  readonly items?: ReadonlyMap<string, unknown>;
  /**
   * The call's `ctx.idempotencyKey`; default `${runId}:${callId}`. The agent loop passes the first
   * call's key when the model repeats the same tool with the same arguments in a run.
   */
  readonly idempotencyKey?: string;
  /**
   * Hears what middleware reports about the call in flight (`ToolCallContext.report`: resilience's
   * retries). The agent loop passes its run's event stream here.
   */
  readonly report?: ((event: ToolCallReport) => void) | undefined;
}

/** What an outcome observer learns about the call besides its outcome. */
export interface InvokeInfo {
  readonly name: string;
  readonly callId: string;
  readonly runId: string;
  /** The validated arguments, or the raw ones when validation failed or the tool is unknown. */
  readonly arguments: unknown;
  /** The tool, when it exists. */
  readonly tool: AgentFunctionDescriptor | undefined;
}

/** Called with every outcome an invoker returns, including unknown tools and invalid arguments. */
export type OutcomeObserver = (outcome: ToolOutcome, info: InvokeInfo) => void;

/** Options of {@link createToolInvoker}. */
export interface ToolInvokerOptions {
  /** Decorated tool classes to offer. */
  readonly functions: readonly ToolClass[];
  /** Tools made by `defineTool` (or a connected server's `tools`) to offer beside them. */
  readonly tools?: readonly DefinedTool[];
  /** Agent-level middleware, first entry outermost; tool-scoped middleware runs inside it. */
  readonly middleware?: readonly ToolMiddleware[];
  /** Payload size and depth limits. */
  readonly limits?: ArgumentLimits;
  /** Observers of every outcome (diagnostics). An observer that throws is ignored. */
  readonly observers?: readonly OutcomeObserver[];
}

/** Invokes declared tools by name. */
export interface ToolInvoker {
  /** What the model is told about each tool. */
  readonly definitions: readonly ToolDefinition[];
  /** The declared tools. */
  readonly tools: readonly AgentFunctionDescriptor[];
  /** The tool of that name, or `undefined`. */
  get(name: string): AgentFunctionDescriptor | undefined;
  /**
   * Validates the arguments, resolves the tool's instance from the container, runs the middleware
   * and the tool, and returns its normalized outcome. Unknown tools and invalid arguments are
   * outcomes (`UNKNOWN_TOOL`, `INVALID_ARGUMENTS`), not exceptions. Without a result middleware a
   * tool exception rejects; a cancelled call always rejects with an AbortError.
   */
  invoke(call: ToolCall, options?: InvokeOptions): Promise<ToolOutcome>;
}

const ID_PREFIX = randomBytes(4).toString("hex");
let counter = 0;
/** A cheap, process-unique id (`run_…`, `call_…`): how needlework names what it starts. Part of `@needlework/core/kit`. */
export function nextId(kind: string): string {
  return `${kind}_${ID_PREFIX}${(++counter).toString(36)}`;
}

const SETTLED = Promise.resolve();

/**
 * A promise that rejects with `error` one microtask from now. A tool that throws synchronously
 * would otherwise reject its promise before the layers outside attach their handlers, and Node
 * would track it as a possibly unhandled rejection until they do: a cost on every failing call that
 * a promise rejected after its handler is attached never pays (bench `design-choices`). A rejection
 * nobody handles is still reported, a moment later.
 */
function rejectSoon(error: unknown): Promise<never> {
  return new Promise<never>((_, reject) => {
    void SETTLED.then(() => reject(error));
  });
}

/**
 * True for a value a body returned that is certainly not a thenable: a primitive, a `ToolResult`,
 * or an object or array with the standard prototype, no `then` anywhere on its chain and no proxy in front (so
 * no getter or trap runs here; `Promise.resolve` reads `then` itself). Anything else (a promise, a
 * class instance, a proxy) counts as asynchronous, which is always safe.
 */
function isPlainReturn(value: unknown): boolean {
  if (value === null || typeof value !== "object") return typeof value !== "function";
  if (types.isProxy(value)) return false;
  if (isToolResult(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === Array.prototype) && !("then" in value);
}

function suggestTools(name: string, names: readonly string[]): string {
  const ranked = names
    .map((n) => ({ n, d: editDistance(name.toLowerCase(), n.toLowerCase()) }))
    .filter(
      ({ n, d }) =>
        d <= Math.max(2, Math.floor(n.length / 3)) ||
        n.toLowerCase().includes(name.toLowerCase()) ||
        name.toLowerCase().includes(n.toLowerCase()),
    )
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map(({ n }) => `'${n}'`);
  const listed = names.slice(0, 20).join(", ") + (names.length > 20 ? ", ..." : "");
  return ranked.length > 0
    ? `Did you mean ${ranked.join(" or ")}? Available tools: ${listed}.`
    : `Use one of the available tools: ${listed || "(none)"}.`;
}

/**
 * Creates a {@link ToolInvoker} over decorated classes resolved from a tsyringe container.
 *
 * @example
 * ```ts
 * const invoker = createToolInvoker(container, { functions: [OrderTools] });
 * const outcome = await invoker.invoke({ name: "getOrderStatus", arguments: '{"orderId":"ORD-1"}' });
 * ```
 */
export function createToolInvoker(container: DependencyContainer, given: ToolInvokerOptions): ToolInvoker {
  // Own properties only: a polluted Object.prototype supplies no middleware, limit or observer.
  const options = ownOptions(given, ["functions", "tools", "middleware", "limits", "observers"]);
  const tools = withDefinedTools(registerAgentFunctions(container, ...(options.functions ?? [])), options.tools ?? []);
  const ownLimits = ownOptions(options.limits, ["maxBytes", "maxDepth"]);
  const limits = {
    maxBytes: ownLimits.maxBytes ?? DEFAULT_ARGUMENT_LIMITS.maxBytes,
    maxDepth: ownLimits.maxDepth ?? DEFAULT_ARGUMENT_LIMITS.maxDepth,
  };
  const observers = options.observers ?? [];
  const agentMiddleware = options.middleware ?? [];
  const gated = agentMiddleware.some((m) => typeof (m as { [CALL_PROBE]?: unknown })[CALL_PROBE] === "function");
  const byName = new Map<
    string,
    { tool: AgentFunctionDescriptor; pipeline: (call: ToolCallContext) => Promise<unknown> }
  >();
  for (const tool of tools) {
    const terminal = (call: ToolCallContext): Promise<unknown> => {
      let value: unknown;
      try {
        const body = tool.execute;
        if (body !== undefined) value = body(call.arguments, new ToolContextView(call));
        else {
          const instance = container.resolve(
            tool.target as unknown as new () => Record<string, (args: unknown, ctx: ToolContext) => unknown>,
          );
          value = instance[tool.methodName]!(call.arguments, new ToolContextView(call));
        }
      } catch (error) {
        return rejectSoon(error);
      }
      // Most bodies return a plain value: the layer that made `call` may then skip racing it.
      return isPlainReturn(value) ? answerSync(call, value) : Promise.resolve(value);
    };
    byName.set(tool.name, {
      tool,
      pipeline: composeMiddleware([...agentMiddleware, ...(tool.options.middleware ?? [])], terminal),
    });
  }
  const definitions = tools.map(toolDefinitionOf);
  const names = tools.map((t) => t.name);

  const observe = (outcome: ToolOutcome, info: InvokeInfo): ToolOutcome => {
    for (const observer of observers) {
      try {
        observer(outcome, info);
      } catch {
        // An observer must never change what the caller gets.
      }
    }
    return outcome;
  };

  // Not an async function: the success path is one reaction on the pipeline's promise, not a second
  // promise that awaits it (bench `design-choices`). Every exit is still a promise, and a throw
  // before the pipeline runs (an aborted signal, a hostile request) is still a rejection.
  const invoke = (request: ToolCall, invokeOptions: InvokeOptions = {}): Promise<ToolOutcome> => {
    try {
      return start(request, invokeOptions);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  const start = (request: ToolCall, invokeOptions: InvokeOptions): Promise<ToolOutcome> => {
    const { signal } = invokeOptions;
    if (signal?.aborted) throw abortReason(signal);
    const callId = request.callId ?? nextId("call");
    const runId = invokeOptions.runId ?? nextId("run");
    const entry = typeof request.name === "string" ? byName.get(request.name) : undefined;
    if (!entry) {
      // Never call a non-string name's own toString: it may throw or lie.
      const raw: unknown = request.name;
      const name =
        typeof raw === "string"
          ? raw
          : raw === null || (typeof raw !== "object" && typeof raw !== "function")
            ? String(raw)
            : `(${typeof raw})`;
      const unknownTool = observe(
        createToolOutcome({
          status: "error",
          errorCode: "UNKNOWN_TOOL",
          message: `There is no tool named '${name.slice(0, 100)}'.`,
          suggestion: suggestTools(name, names),
          metadata: { tool: name.slice(0, 100), callId, attempts: 0, latencyMs: 0 },
        }),
        { name, callId, runId, arguments: request.arguments, tool: undefined },
      );
      return Promise.resolve(unknownTool);
    }
    const { tool, pipeline } = entry;
    const parsed = parseToolArguments(request.arguments, tool.input, limits);
    if (!parsed.ok) {
      const invalid = observe(
        createToolOutcome({
          status: "error",
          errorCode: "INVALID_ARGUMENTS",
          message: `Invalid arguments for tool '${tool.name}': ${parsed.problems.join("; ")}.`,
          suggestion: "Call the tool again with arguments that match its schema.",
          metadata: { tool: tool.name, callId, attempts: 0, latencyMs: 0 },
        }),
        { name: tool.name, callId, runId, arguments: request.arguments, tool },
      );
      return Promise.resolve(invalid);
    }
    const call = new CallContext(
      tool,
      parsed.value,
      callId,
      runId,
      signal,
      invokeOptions.items,
      invokeOptions.idempotencyKey,
      invokeOptions.report,
    );
    let pending: Promise<unknown>;
    // A sub-agent run inside the body marks the call (sub-run-mark.ts). Only an invoker with a gate
    // (the injection policy) pays for the scope: without one, no decision reads the mark.
    const scope = gated ? new CallScope() : undefined;
    try {
      // A middleware written in JavaScript may return a plain value.
      pending = Promise.resolve(scope === undefined ? pipeline(call) : runInCallScope(scope, () => pipeline(call)));
    } catch (error) {
      pending = Promise.reject(error);
    }
    // Every layer answered synchronously (the body returned a plain value; see
    // `ToolCallContext.noteReturnedSync`): the outcome is made now, and the call costs one settled
    // promise instead of a reaction per layer.
    if (pending === call.returnedSync) {
      try {
        return Promise.resolve(finish(call.syncValue));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    // Without a signal a rejection passes through as it is, never rethrown here.
    return signal === undefined
      ? pending.then(finish)
      : pending.then(finish, (error: unknown) => {
          throw signal.aborted ? abortReason(signal) : error;
        });

    function finish(value: unknown): ToolOutcome {
      // Without the result middleware the value is raw: a returned failure or a value off the
      // declared `output` is still a failure here.
      const outcome = toolValueOutcome(value, tool);
      const metadata = outcome.metadata;
      metadata.tool = tool.name;
      metadata.callId = callId;
      metadata.attempts = call.attempt;
      metadata.latencyMs = performance.now() - call.startedAt;
      metadata.idempotencyKey = call.idempotencyKey;
      if (tool.server !== undefined) metadata.server = tool.server;
      const attemptErrors = call.attemptErrors;
      if (attemptErrors !== undefined && attemptErrors.length > 0) metadata.attemptErrors = [...attemptErrors];
      // Marked here, where every adapter's call passes: third-party text is labelled for the model,
      // the journal, traces and the run's injection policy whichever way the tool was called.
      if (tool.options.reads === "untrusted" || scope?.untrusted === true) markUntrusted(outcome);
      return observers.length === 0
        ? outcome
        : observe(outcome, { name: tool.name, callId, runId, arguments: call.arguments, tool });
    }
  };

  return {
    definitions,
    tools,
    get: (name) => byName.get(name)?.tool,
    invoke,
  };
}
