// Without a store, a checkpoint resumes once because the agent remembers the pauses it resumed: for
// as long as their checkpoints are valid, and no longer (an agent that resumes many holds few).
import { describe, expect, it } from "vitest";
import { ResumedPauses } from "./resumed-pauses.js";

describe("resumed pauses without a store", () => {
  it("remembers a pause as long as its checkpoint is valid, and forgets expired ones (bounded)", () => {
    const pauses = new ResumedPauses(1_000);
    expect(pauses.claim("a", 0, 10)).toBe(true);
    expect(pauses.claim("a", 0, 500)).toBe(false);
    // Thousands of pauses resumed over time: only those whose checkpoints are still valid stay.
    for (let i = 0; i < 5_000; i++) expect(pauses.claim(`p${i}`, i * 10, i * 10)).toBe(true);
    expect(pauses.size).toBeLessThanOrEqual(2 * 101 + 64);
  });
});
