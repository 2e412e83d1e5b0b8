import { describe, expect, it } from "vitest";
import { raceAbort } from "./race-abort.js";

describe("raceAbort", () => {
  it("with a signal already aborted, rejects at once and leaves the abandoned work's rejection handled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const signal = AbortSignal.abort(new Error("stop"));
      let fail!: (error: Error) => void;
      const work = new Promise<never>((_, reject) => (fail = reject));
      await expect(raceAbort(work, signal)).rejects.toThrow("stop");
      // The work fails later (as a model call aborted with the same signal does): no one awaits it.
      fail(new Error("work failed"));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("settles with the work when the signal does not abort, and removes its listener", async () => {
    const controller = new AbortController();
    await expect(raceAbort(Promise.resolve(7), controller.signal)).resolves.toBe(7);
    await expect(raceAbort(Promise.reject(new Error("no")), controller.signal)).rejects.toThrow("no");
  });
});
