import { describe, expect, it } from "vitest";
import { createProgress } from "./progress.js";

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, out: { isTTY, write: (text: string) => writes.push(text) } };
}

describe("audit progress", () => {
  it("redraws one bar in place on a terminal, at most once per percent, and erases it at the end", () => {
    const { writes, out } = sink(true);
    const progress = createProgress("audit", 1000, out);
    for (let i = 1; i <= 1000; i++) progress.update(i);
    progress.done();
    expect(writes.length).toBe(101 + 1);
    expect(writes.every((w) => w.startsWith("\r") && !w.includes("\n"))).toBe(true);
    expect(writes.at(-2)).toBe(`\raudit [${"#".repeat(30)}] 1000/1000 runs`);
    expect(writes.at(-1)).toMatch(/^\r +\r$/);
  });

  it("writes a few plain lines when the output is not a terminal", () => {
    const { writes, out } = sink(false);
    const progress = createProgress("audit", 1000, out);
    for (let i = 1; i <= 1000; i++) progress.update(i);
    progress.done();
    expect(writes).toEqual([
      "audit: 1/1000 runs\n",
      "audit: 250/1000 runs\n",
      "audit: 500/1000 runs\n",
      "audit: 750/1000 runs\n",
      "audit: 1000/1000 runs\n",
    ]);
  });
});
