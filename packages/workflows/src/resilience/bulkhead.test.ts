import { describe, expect, it } from "vitest";
import { Bulkhead } from "./bulkhead.js";

describe("Bulkhead", () => {
  it("hands a freed slot straight to the next waiter; a withdrawn wait is skipped; a release counts once", () => {
    const bulkhead = new Bulkhead(1, 2);
    const first = bulkhead.tryAcquire()!;
    expect(bulkhead.tryAcquire()).toBeUndefined();
    const granted: string[] = [];
    const withdraw = bulkhead.enqueue(() => granted.push("withdrawn"));
    let second: (() => void) | undefined;
    bulkhead.enqueue((release) => {
      granted.push("second");
      second = release;
    });
    expect(bulkhead.canQueue()).toBe(false);
    withdraw();
    first();
    first(); // twice: still one slot
    expect(granted).toEqual(["second"]);
    expect(bulkhead.tryAcquire()).toBeUndefined();
    second!();
    expect(bulkhead.tryAcquire()).toBeDefined();
  });
});
