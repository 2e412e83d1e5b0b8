import { describe, expect, it, vi } from "vitest";
import { countedController, useResilienceHarness } from "../../test/support/resilience-harness.js";

const { handle, setup } = useResilienceHarness();

// A body that returns a plain value has settled before resilience looks at it: the attempt is
// answered at once, with nothing to time out (resilient-call.ts, `body`).
describe("resilience: a body that returns a plain value", () => {
  it("is answered without arming a deadline: no timer is ever created", async () => {
    handle("idem", () => ({ sum: 5 }));
    const call = setup()("idem");
    await call.settled;
    expect(call.state.value).toMatchObject({ status: "ok", data: { sum: 5 } });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a returned object with a then method is raced against its deadline, as a promise would be", async () => {
    // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a promise is what this test returns
    const thenable = { then: (resolve: (value: number) => void) => setTimeout(() => resolve(7), 5_000) };
    handle("quick", () => thenable);
    const call = setup({ retry: { maxAttempts: 1 } })("quick");
    await vi.advanceTimersByTimeAsync(1_000); // the tool's own 1 s attempt timeout
    expect(call.state.done).toBe(true);
    expect(call.state.error).toMatchObject({ name: "TimeoutError" });
    await vi.advanceTimersByTimeAsync(5_000); // the thenable settles late; nobody is waiting for it
  });

  it("a body that aborts its caller while it runs ends the call with the abort, though it returned a value", async () => {
    const { controller, signal } = countedController();
    handle("plain", () => {
      controller.abort();
      return { sum: 5 };
    });
    const call = setup()("plain", { signal });
    await call.settled;
    expect(call.state.error).toMatchObject({ name: "AbortError" });
  });

  it("a returned value still counts for the breaker: a success closes the count of failures", async () => {
    let fail = true;
    handle("idem", () => {
      if (fail) throw new Error("boom");
      return 1;
    });
    const invoke = setup({ retry: { maxAttempts: 1 }, circuitBreaker: { consecutiveFailures: 2 } });
    await invoke("idem").settled; // one failure
    fail = false;
    await invoke("idem").settled; // a success resets the count
    fail = true;
    await invoke("idem").settled; // one failure again: the circuit stays closed
    fail = false;
    const last = invoke("idem");
    await last.settled;
    expect(last.state.value).toMatchObject({ status: "ok", data: 1 });
  });
});
