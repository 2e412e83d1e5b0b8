import type { AgentFunctionDescriptor } from "./agent-function.options.js";

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
  /** Stable across retries of one call: pass it downstream and declare the tool `idempotent`. */
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
  /** Per-call values handed to the tool as `ctx.items`. */
  readonly items: Map<string, unknown>;
  /** `performance.now()` when the call started. */
  readonly startedAt: number;
}
