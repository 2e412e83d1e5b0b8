import type {
  AgentFunctionDescriptor,
  ToolCallContext,
  ToolCallReport,
  ToolContext,
} from "./agent-function.options.js";
import { callIdempotencyKey } from "./idempotency-key.js";

/** The per-call context: the signal and the items map are created only when someone reads them. @internal */
export class CallContext implements ToolCallContext {
  readonly name: string;
  readonly idempotencyKey: string;
  attempt = 1;
  idempotencyKeyRead = false;
  readonly startedAt = performance.now();
  arguments: Record<string, unknown>;
  private currentSignal: AbortSignal | undefined;
  private itemsMap: Map<string, unknown> | undefined;

  constructor(
    readonly tool: AgentFunctionDescriptor,
    args: Record<string, unknown>,
    readonly callId: string,
    readonly runId: string,
    readonly callerSignal: AbortSignal | undefined,
    private readonly initialItems: ReadonlyMap<string, unknown> | undefined,
    idempotencyKey?: string,
    public report?: (event: ToolCallReport) => void,
  ) {
    this.name = tool.name;
    this.arguments = args;
    this.idempotencyKey =
      typeof idempotencyKey === "string" && idempotencyKey !== "" ? idempotencyKey : callIdempotencyKey(runId, callId);
    this.currentSignal = callerSignal;
  }

  get items(): Map<string, unknown> {
    return (this.itemsMap ??= new Map(this.initialItems));
  }

  noteIdempotencyKeyRead(): void {
    this.idempotencyKeyRead = true;
  }

  returnedSync: Promise<unknown> | undefined;
  syncValue: unknown;
  noteReturnedSync(returned: Promise<unknown>, value: unknown): void {
    this.returnedSync = returned;
    this.syncValue = value;
  }

  private failedAttempts: string[] | undefined;
  get attemptErrors(): readonly string[] {
    return this.failedAttempts ?? [];
  }
  noteAttemptError(code: string): void {
    (this.failedAttempts ??= []).push(code);
  }

  get signal(): AbortSignal {
    return (this.currentSignal ??= new AbortController().signal);
  }

  set signal(value: AbortSignal) {
    this.currentSignal = value;
  }
}

/** What a tool body sees of its call (`ctx`): reading the key notes that the body passes it on. @internal */
export class ToolContextView implements ToolContext {
  constructor(private readonly call: ToolCallContext) {}
  get callId(): string {
    return this.call.callId;
  }
  get runId(): string {
    return this.call.runId;
  }
  get signal(): AbortSignal {
    return this.call.signal;
  }
  get attempt(): number {
    return this.call.attempt;
  }
  get idempotencyKey(): string {
    // The body reads its key: it passes it downstream (see `idempotent`).
    this.call.noteIdempotencyKeyRead?.();
    return this.call.idempotencyKey;
  }
  get items(): Map<string, unknown> {
    return this.call.items;
  }
}
