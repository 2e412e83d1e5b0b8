// Test support (not exported): drives an engine's DurableExecution from a test, inside the engine's
// workflow. An engine ties its steps to the workflow's own async context (DBOS's AsyncLocalStorage,
// Restate's invocation), so the test's calls are handed to the workflow, which runs them there.
import type { DurableExecution } from "@needlework/durable";

/** The jobs of one attempt, served inside its workflow until the attempt dies. */
export class AttemptChannel {
  private readonly jobs: (() => void)[] = [];
  private wake: (() => void) | undefined;
  private dead: ((reason: Error) => void) | undefined;

  /** Serves jobs as they come (each started at once, not awaited: calls may be in flight together). */
  async serve(): Promise<never> {
    const died = new Promise<never>((_, reject) => (this.dead = reject));
    for (;;) {
      const job = this.jobs.shift();
      if (job !== undefined) {
        job();
        continue;
      }
      await Promise.race([new Promise<void>((resolve) => (this.wake = resolve)), died]);
      this.wake = undefined;
    }
  }

  /** Ends the attempt: `serve()` throws `reason` (a retryable failure of the workflow's attempt). */
  kill(reason = new Error("the attempt's process died")): void {
    this.dead?.(reason);
  }

  /** Runs `job` inside the workflow and gives its result back. */
  run<T>(job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push(() => void job().then(resolve, reject));
      this.wake?.();
    });
  }
}

/** `execution` as the test sees it: every durable member runs inside the workflow through `channel`. */
export function throughChannel(execution: DurableExecution, channel: AttemptChannel): DurableExecution {
  return {
    runId: execution.runId,
    step: (name, fn) => channel.run(() => execution.step(name, fn)),
    call: (key, fn, call) => channel.run(() => execution.call(key, fn, call)),
    waitForDecision: (callId, gated, check) => channel.run(() => execution.waitForDecision(callId, gated, check)),
    now: () => execution.now(),
    random: () => execution.random(),
  };
}

/** Executions handed out by workflow attempts, taken by the test in order, per run. */
export class Attempts {
  private readonly ready = new Map<string, DurableExecution[]>();
  private readonly waiting = new Map<string, ((execution: DurableExecution) => void)[]>();

  /** An attempt of `runId` hands its execution out. */
  hand(runId: string, execution: DurableExecution): void {
    const taker = this.waiting.get(runId)?.shift();
    if (taker !== undefined) taker(execution);
    else this.ready.set(runId, [...(this.ready.get(runId) ?? []), execution]);
  }

  /** The next attempt's execution of `runId` (waits for the engine to start it). */
  take(runId: string, timeoutMs = 30_000): Promise<DurableExecution> {
    const found = this.ready.get(runId)?.shift();
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no attempt of ${runId} started`)), timeoutMs);
      this.waiting.set(runId, [
        ...(this.waiting.get(runId) ?? []),
        (execution) => {
          clearTimeout(timer);
          resolve(execution);
        },
      ]);
    });
  }

  /** Forgets every attempt (a fresh engine). */
  clear(): void {
    this.ready.clear();
    this.waiting.clear();
  }
}
