import type { AgentFunctionDescriptor, ToolCallContext } from "@needlework/core";

/** Told when the signal an attempt follows aborts (the caller's, or one an outer layer set). @internal */
export interface AttemptOwner {
  parentAborted(): void;
}

/**
 * The call as one attempt sees it: everything is the underlying call's, except `signal`, which is
 * this attempt's own. Most tools never read their signal, and an `AbortController` and a listener on
 * the caller's signal cost a large part of an attempt (bench `design-choices`, "attempt signal"), so the
 * controller is created only when someone reads `signal`; an abort (timeout, caller) that happens
 * before that is remembered and applied on the first read. Only then does the attempt listen to the
 * caller's signal.
 * @internal
 */
export class AttemptCall implements ToolCallContext {
  private controller: AbortController | undefined;
  private replaced: AbortSignal | undefined;
  private aborted = false;
  private ended = false;
  private reason: unknown;
  /** The signal of the outer layers this attempt listens to, once its own signal has been read. */
  private parent: AbortSignal | undefined;
  /** The settled promise the invoker returned for a body that returned a plain value, and that value. */
  returnedSync: Promise<unknown> | undefined;
  syncValue: unknown;

  constructor(
    private readonly base: ToolCallContext,
    private readonly owner: AttemptOwner,
  ) {}

  get tool(): AgentFunctionDescriptor {
    return this.base.tool;
  }
  get name(): string {
    return this.base.name;
  }
  get arguments(): Record<string, unknown> {
    return this.base.arguments;
  }
  set arguments(value: Record<string, unknown>) {
    this.base.arguments = value;
  }
  get callId(): string {
    return this.base.callId;
  }
  get runId(): string {
    return this.base.runId;
  }
  get callerSignal(): AbortSignal | undefined {
    return this.base.callerSignal;
  }
  get attempt(): number {
    return this.base.attempt;
  }
  set attempt(value: number) {
    this.base.attempt = value;
  }
  get idempotencyKey(): string {
    return this.base.idempotencyKey;
  }
  get idempotencyKeyRead(): boolean {
    return this.base.idempotencyKeyRead === true;
  }
  noteIdempotencyKeyRead(): void {
    this.base.noteIdempotencyKeyRead?.();
  }
  get items(): Map<string, unknown> {
    return this.base.items;
  }
  /** The body returned `value` synchronously (see `ToolCallContext.noteReturnedSync`). */
  noteReturnedSync(returned: Promise<unknown>, value: unknown): void {
    this.returnedSync = returned;
    this.syncValue = value;
  }
  get startedAt(): number {
    return this.base.startedAt;
  }

  /** Aborted when the caller aborts, an outer layer's signal aborts, or the attempt or call times out. */
  get signal(): AbortSignal {
    if (this.replaced) return this.replaced;
    if (!this.controller) {
      const controller = (this.controller = new AbortController());
      if (this.aborted) controller.abort(this.reason);
      else if (!this.ended) {
        // Follows whatever signal the outer layers gave the call (the caller's, or one they set).
        const parent = this.base.signal;
        if (parent.aborted) {
          this.owner.parentAborted();
          this.abort(parent.reason);
        } else {
          parent.addEventListener("abort", this);
          this.parent = parent;
        }
      }
    }
    return this.controller.signal;
  }

  /** An inner layer may hand the tool a signal of its own (it should follow this attempt's). */
  set signal(value: AbortSignal) {
    this.replaced = value;
  }

  /** The outer layers' signal aborted. */
  handleEvent(): void {
    const reason: unknown = this.parent?.reason;
    this.owner.parentAborted();
    this.abort(reason);
  }

  /** Aborts this attempt's signal (now, or on its first read). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.release();
    this.controller?.abort(reason);
  }

  /** Drops the listener on an outer layer's signal; called when the attempt is over. */
  release(): void {
    this.ended = true;
    if (this.parent) {
      this.parent.removeEventListener("abort", this);
      this.parent = undefined;
    }
  }
}
