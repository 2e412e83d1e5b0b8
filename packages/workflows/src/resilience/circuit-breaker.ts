import type { ResilienceEmitters, ToolCircuitEvent } from "./resilience-events.js";

/**
 * What {@link CircuitBreaker.admit} answers: `"closed"` (run), `"trial"` (run: the one call let
 * through after the open period), `"open"` (refuse), or a promise that settles when the running
 * trial ends (ask again then). @internal
 */
export type Admission = "closed" | "trial" | "open" | Promise<void>;

/** How an attempt's outcome counts for the breaker. @internal */
export type BreakerVerdict = "success" | "failure" | "uncounted";

/**
 * The circuit breaker of one tool, with the semantics of cockatiel's `circuitBreaker` over a
 * `ConsecutiveBreaker`: `threshold` failures in a row open the circuit; after `halfOpenAfterMs` one
 * trial call is let through while the others wait for it; the trial closes the circuit again, or,
 * if it fails, reopens it. An uncounted outcome (a deliberate answer, the end of the call) neither
 * counts nor resets while closed, and ends a trial as a success, as in cockatiel.
 *
 * Written here rather than taken from cockatiel: cockatiel's `execute` runs every call through two
 * async functions and a result object, about a sixth of what the documented stack allocates per
 * call (measured with the sampling heap profiler over the `tool-call` benchmark's add tool); here
 * the breaker is a synchronous gate before an attempt and a record after it.
 *
 * @example
 * ```ts
 * const breaker = new CircuitBreaker("refund", 5, 30_000, emitters);
 * const admission = breaker.admit();
 * if (admission === "closed" || admission === "trial") breaker.record(admission, "success");
 * ```
 * @internal
 */
export class CircuitBreaker {
  private state: "closed" | "open" | "halfOpen" = "closed";
  private failures = 0;
  private openedAt = 0;
  private trialEnded: Promise<void> | undefined;
  private endTrial: (() => void) | undefined;
  private readonly event: ToolCircuitEvent;

  constructor(
    tool: string,
    private readonly threshold: number,
    private readonly halfOpenAfterMs: number,
    private readonly events: Pick<ResilienceEmitters, "break" | "halfOpen" | "reset">,
  ) {
    this.event = Object.freeze({ tool });
  }

  /** Asks to start an attempt; see {@link Admission}. */
  admit(): Admission {
    if (this.state === "closed") return "closed";
    if (this.state === "halfOpen") return this.trialEnded!;
    if (performance.now() - this.openedAt < this.halfOpenAfterMs) return "open";
    this.state = "halfOpen";
    this.trialEnded = new Promise((resolve) => (this.endTrial = resolve));
    this.events.halfOpen.emit(this.event);
    return "trial";
  }

  /** Records how an admitted attempt ended. */
  record(admission: "closed" | "trial", verdict: BreakerVerdict): void {
    if (admission === "trial") {
      this.endTrial!();
      this.trialEnded = this.endTrial = undefined;
      if (verdict === "failure") this.open();
      else this.close();
    } else if (this.state === "closed" && verdict !== "uncounted") {
      if (verdict === "success") this.failures = 0;
      else if (++this.failures >= this.threshold) this.open();
    }
  }

  private open(): void {
    this.state = "open";
    this.openedAt = performance.now();
    this.events.break.emit(this.event);
  }

  private close(): void {
    this.state = "closed";
    this.failures = 0;
    this.events.reset.emit(this.event);
  }
}
