/*
 * The types of declared tools and of the calls to them: decorator options, descriptors, the
 * per-call context and the middleware signature. They refer to each other (a tool's options hold
 * middleware, middleware sees the call, the call carries the tool), so they share this one leaf
 * file: it imports types only from zod, tsyringe and error-mapping, none of which import it back.
 */
import type { InjectionToken } from "tsyringe";
import type { z } from "zod";
import type { ErrorMapRule } from "./error-mapping.js";
import type { FailuresOption } from "./returned-failure.js";

/** A zod object schema: the only kind of `input` a tool may declare. */
export type ToolInputSchema = z.ZodObject;

/** The tool that undoes a committed call, for all-or-nothing rounds. */
export type CompensateOption =
  | string
  | {
      /** The name of the undo tool. */
      readonly tool: string;
      /** Builds the undo tool's arguments from the forward call's input and result data. */
      readonly arguments?: (input: Record<string, unknown>, data: unknown) => Record<string, unknown>;
    };

/** How a round's tool calls are treated when some fail. */
export type RoundPolicy = "best-effort" | "all-or-nothing" | "fail-fast";

/**
 * Options of `@AgentFunction`.
 *
 * @example
 * ```ts
 * @AgentFunction({ description: "Looks up an order by ID.", input: z.object({ orderId: z.string() }) })
 * ```
 */
export interface AgentFunctionOptions<S extends ToolInputSchema = ToolInputSchema> {
  /** What the tool does, for the model. Required. */
  readonly description: string;
  /** A zod v4 object schema for the arguments; its JSON Schema is what the model sees. */
  readonly input: S;
  /** The tool name; defaults to the method name. */
  readonly name?: string;
  /** A zod schema the tool's successful data should match (documentation and definitions). */
  readonly output?: z.ZodType;
  /** Tool-scoped middleware, first entry outermost; runs inside agent-level middleware. */
  readonly middleware?: readonly ToolMiddleware[];
  /**
   * Safe to run twice for one call: thrown transient errors are retried. Undeclared, a tool whose
   * body reads `ctx.idempotencyKey` during a call is taken to pass the key downstream, and that call
   * is treated as idempotent (a timeout or reset is retried under the same key, never `OUTCOME_UNKNOWN`);
   * `false` turns that off. Default: undeclared.
   */
  readonly idempotent?: boolean;
  /** The call waits for a human decision before it runs. Default `false`. */
  readonly requiresApproval?: boolean;
  /**
   * The tool only reads: it changes nothing in its environment. Adapters say so (MCP
   * `readOnlyHint: true`). Default `false`: a tool may change things.
   */
  readonly readOnly?: boolean;
  /**
   * Where the tool's results come from. `"untrusted"`: text a third party wrote (web pages, e-mail,
   * tickets, shared documents), which may hold instructions aimed at the model. Its outcomes carry
   * `metadata.provenance: "untrusted"`, and `usingInjectionPolicy()` gates the run's later calls with
   * effects. Default `"trusted"`.
   */
  readonly reads?: "trusted" | "untrusted";
  /**
   * What the tool changes: `"none"` (it only reads), `"internal"` (state of the user's own system:
   * a draft, a label, a cache), `"external"` (money, messages, anything seen outside). Undeclared
   * counts as `"external"`; `readOnly: true` counts as `"none"`.
   */
  readonly effects?: "none" | "internal" | "external";
  /** The tool reads private data (credentials, personal data, balances). Default `false`. */
  readonly sensitive?: boolean;
  /** The tool that undoes this one in an all-or-nothing round. */
  readonly compensate?: CompensateOption;
  /** Tools that must succeed first in the same round. */
  readonly dependsOn?: readonly string[];
  /** Per-attempt timeout for this tool, in milliseconds (overrides the resilience default). */
  readonly timeoutMs?: number;
  /** Result budget for this tool, in tokens (overrides the truncation default). */
  readonly maxResultTokens?: number;
  /** Free-form labels. */
  readonly tags?: readonly string[];
  /** Boundary rules mapping this tool's thrown errors to model-facing codes. */
  readonly errors?: readonly ErrorMapRule[];
  /**
   * How a *returned* failure value is recognized: `"detect"` (default: `{ ok: false }`,
   * `{ success: false }`, a non-empty `error`/`errors`, a `Response` with `ok: false`, failed items
   * of a batch; see `detectFailure`), `"off"` (every returned value is data), or your own detector.
   */
  readonly failures?: FailuresOption;
}

/** Options of `@AgentFunctionGroup`. */
export interface AgentFunctionGroupOptions {
  /** Group names the class belongs to; agents may pick tools by group. */
  readonly groups?: readonly string[];
  /** Round policy for this group's tools; overrides the agent's. */
  readonly roundPolicy?: RoundPolicy;
  /** `singleton` (default): one instance per container; `transient`: a fresh instance per call. */
  readonly lifetime?: "singleton" | "transient";
  /**
   * The constructor's dependencies, one tsyringe token per parameter in order, for compilers that
   * emit no `design:paramtypes` (standard decorators under tsx, esbuild, Vite, Bun). Optional with
   * `emitDecoratorMetadata`; when both exist, `inject` wins.
   */
  readonly inject?: readonly InjectionToken<unknown>[];
}

/** A class whose instances hold tool methods. */
export type ToolClass = abstract new (...args: never[]) => object;

/** Everything known about one declared tool. */
export interface AgentFunctionDescriptor {
  /** The tool name the model uses. */
  readonly name: string;
  readonly description: string;
  readonly input: ToolInputSchema;
  /** The class that declares the tool. */
  readonly target: ToolClass;
  /** The method's property key on the class. */
  readonly methodName: string;
  /** The options as given to `@AgentFunction`. */
  readonly options: AgentFunctionOptions;
  /** The group options of the declaring class (filled in when the class is decorated). */
  readonly group: AgentFunctionGroupOptions;
  /**
   * The body of a tool made by `defineTool` (it has no class to resolve): called with the validated
   * arguments and the call's context. Unset for decorated methods.
   */
  readonly execute?: (args: Record<string, unknown>, ctx: ToolContext) => unknown;
  /** The JSON Schema of the arguments as `defineTool({ inputSchema })` gave it: published as it is. */
  readonly inputSchema?: { readonly [key: string]: unknown };
  /** The JSON Schema of the data as `defineTool({ outputSchema })` gave it: published as it is. */
  readonly outputSchema?: { readonly [key: string]: unknown };
  /**
   * The server a remote tool runs on (`connectMcpServer(name, ...)`): outcomes carry it as
   * `metadata.server`, and the inspector shows it beside the call.
   */
  readonly server?: string;
}

/**
 * The second parameter of every tool method.
 *
 * @example
 * ```ts
 * @AgentFunction({ description: "Charges a card.", input: ChargeInput, idempotent: true })
 * charge(args: z.infer<typeof ChargeInput>, ctx: ToolContext) {
 *   return this.payments.charge(args, { idempotencyKey: ctx.idempotencyKey, signal: ctx.signal });
 * }
 * ```
 */
export interface ToolContext {
  /** The id of this call, as the model (or caller) gave it. */
  readonly callId: string;
  /** The id of the agent run (or invoke) this call belongs to. */
  readonly runId: string;
  /** Aborted when the caller cancels, an attempt times out, or a sibling fails under fail-fast. */
  readonly signal: AbortSignal;
  /** The attempt number, from 1. */
  readonly attempt: number;
  /**
   * Stable across retries of one call (and reused when the model repeats the same call): pass it
   * downstream. Reading it tells needlework the tool does, so its call is retried as `idempotent`
   * unless the tool declares `idempotent: false`.
   */
  readonly idempotencyKey: string;
  /** Values that middleware set for the tool (a request id, a tenant, ...). */
  readonly items: Map<string, unknown>;
}

/**
 * What middleware sees of a call. `arguments` are validated. Middleware may replace `arguments`
 * (they are validated again by `hooks()`) and `signal` (for an attempt) before calling `next`.
 */
export interface ToolCallContext {
  /** The tool being called. */
  readonly tool: AgentFunctionDescriptor;
  /** The tool's name (same as `tool.name`). */
  readonly name: string;
  /** Validated arguments. */
  arguments: Record<string, unknown>;
  readonly callId: string;
  readonly runId: string;
  /** The signal the tool will get. */
  signal: AbortSignal;
  /** The caller's own signal: abort of this one is cancellation, never a timeout. */
  readonly callerSignal: AbortSignal | undefined;
  /** The attempt number, from 1; resilience raises it. */
  attempt: number;
  readonly idempotencyKey: string;
  /**
   * True once the tool body read `ctx.idempotencyKey` in this call. A middleware that wraps the call
   * object it passes to `next` forwards {@link ToolCallContext.noteIdempotencyKeyRead} to the call it wraps.
   */
  readonly idempotencyKeyRead?: boolean;
  /** Records that the tool body read `ctx.idempotencyKey` (called by the tool's context). */
  noteIdempotencyKeyRead?(): void;
  /** The code of each attempt that failed and was retried, in order (resilience notes them). */
  readonly attemptErrors?: readonly string[];
  /** Records a failed attempt's code before the next attempt (called by resilience). */
  noteAttemptError?(code: string): void;
  /**
   * Tells the call's run what happens to the call in flight (resilience reports each retry here):
   * the run's event stream hears it, so its stream, hooks and tracing see it. Set from
   * `InvokeOptions.report`; a middleware may chain it (keep and call the previous one) to hear the
   * events of the layers inside it. Unset when nobody listens.
   */
  report?: ((event: ToolCallReport) => void) | undefined;
  /**
   * Called when the layer inside answered this call synchronously: the tool body returned a plain
   * value (not a promise), or a layer that got such an answer made its own at once. `returned` is the
   * settled promise handed back for `value`. The layer outside compares `returned` with what its
   * `next` gave it: the same promise means no layer in between waited or changed the value, so it
   * can take `value` (read back from {@link ToolCallContext.returnedSync} and
   * {@link ToolCallContext.syncValue}) at once instead of waiting a microtask for it, and answer
   * synchronously in turn. A layer that wraps the call object need not forward it. @internal
   */
  noteReturnedSync?(returned: Promise<unknown>, value: unknown): void;
  /** The promise last noted by {@link ToolCallContext.noteReturnedSync}. @internal */
  readonly returnedSync?: Promise<unknown> | undefined;
  /** The value noted with {@link ToolCallContext.returnedSync}. @internal */
  readonly syncValue?: unknown;
  /** Per-call values handed to the tool as `ctx.items`. */
  readonly items: Map<string, unknown>;
  /** `performance.now()` when the call started. */
  readonly startedAt: number;
}

/**
 * Another attempt of a call was scheduled: `attempt` failed (with `errorCode` when one is known,
 * `errorType` the class name of a thrown error) and the next one starts after `delayMs`.
 *
 * @example
 * ```ts
 * const report = (event: ToolRetryReport) => console.log(`${event.tool} retry in ${event.delayMs} ms`);
 * ```
 */
export interface ToolRetryReport {
  readonly type: "tool-retry";
  readonly callId: string;
  readonly runId: string;
  readonly tool: string;
  /** The attempt that failed (1-based); the next one is `attempt + 1`. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly errorCode?: string;
  readonly errorType?: string;
}

/**
 * What a middleware reports about a call in flight to the call's run (`ToolCallContext.report`),
 * discriminated on `type`.
 *
 * @example
 * ```ts
 * const report = (event: ToolCallReport) => { if (event.type === "tool-retry") retries++; };
 * ```
 */
export type ToolCallReport = ToolRetryReport;

/** Calls the next layer: the next middleware, or the tool body. */
export type NextFunction = (call?: ToolCallContext) => Promise<unknown>;

/**
 * A wrap-style middleware: runs around the layers inside it and returns what the model (or the
 * next layer out) should get. Returning without calling `next` short-circuits the tool.
 *
 * @example
 * ```ts
 * const timing: ToolMiddleware = async (call, next) => {
 *   const started = Date.now();
 *   try { return await next(); } finally { log(call.name, Date.now() - started); }
 * };
 * ```
 */
export type ToolMiddleware = (call: ToolCallContext, next: NextFunction) => Promise<unknown>;
