import { describe, expect, it } from "vitest";
import { LatencyReservoir } from "./latency-reservoir.js";

/** A fixed pseudo-random sequence (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("LatencyReservoir", () => {
  it("gives exact nearest-rank percentiles while it holds every sample", () => {
    const reservoir = new LatencyReservoir(100, seeded(1));
    for (let ms = 1; ms <= 100; ms++) reservoir.add(ms);
    expect(reservoir.summary()).toEqual({ p50: 50, p90: 90, p99: 99, max: 100, samples: 100 });
  });

  it("stays bounded over many samples, keeps max exact, and its percentiles stay close to the truth", () => {
    const reservoir = new LatencyReservoir(1024, seeded(42));
    for (let i = 0; i < 200_000; i++) reservoir.add(i % 1000);
    reservoir.add(5000);
    const summary = reservoir.summary();
    expect(reservoir.size).toBe(1024);
    expect(reservoir.count).toBe(200_001);
    expect(summary.max).toBe(5000);
    expect(summary.p50).toBeGreaterThan(450);
    expect(summary.p50).toBeLessThan(550);
    expect(summary.p90).toBeGreaterThan(870);
    expect(summary.p90).toBeLessThan(930);
  });

  it("summarizes an empty reservoir as zeros", () => {
    expect(new LatencyReservoir(8, Math.random).summary()).toEqual({ p50: 0, p90: 0, p99: 0, max: 0, samples: 0 });
  });
});
