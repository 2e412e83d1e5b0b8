import { monitorEventLoopDelay } from "node:perf_hooks";
import { ADD_INPUT } from "./lib/add-tools.js";
import { defineBenchmark, type Goal, type Measurement } from "./lib/benchmark.js";
import { documentedStack } from "./lib/stacks.js";

const CONCURRENT = 10_000;
const ROUNDS = 5;
/** Issue 15: 10,000 concurrent invokes must never block the event loop longer than this. */
const BOUND_MS = 50;

const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

export default defineBenchmark({
  name: "event-loop",
  description: `Longest event-loop delay (perf_hooks.monitorEventLoopDelay, 1 ms resolution) and a 1 ms setInterval drift probe while ${CONCURRENT.toLocaleString("en-US")} invokes of add({a, b}) through the documented stack run concurrently; ${ROUNDS} rounds after a warm-up.`,
  cases: () => [],
  async measure() {
    const tools = documentedStack().tools;
    const call = { name: "add", arguments: ADD_INPUT };
    await Promise.all(Array.from({ length: CONCURRENT }, () => tools.invoke(call))); // warm-up
    const rows: Measurement[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      histogram.enable();
      // A drift probe beside the monitor: the longest gap between ticks of a 1 ms interval, minus 1 ms.
      let last = performance.now();
      let worstGap = 0;
      const probe = setInterval(() => {
        const now = performance.now();
        worstGap = Math.max(worstGap, now - last - 1);
        last = now;
      }, 1);
      const began = performance.now();
      const results = await Promise.all(Array.from({ length: CONCURRENT }, () => tools.invoke(call)));
      const elapsed = performance.now() - began;
      // Let the monitor take one more sample after the burst, so the burst's delay is recorded.
      await new Promise((resolve) => setTimeout(resolve, 5));
      histogram.disable();
      clearInterval(probe);
      if (results.length !== CONCURRENT) throw new Error("event-loop benchmark: wrong number of results");
      rows.push({
        name: `round ${r}`,
        "max delay ms": round(histogram.max / 1e6),
        "p99 delay ms": round(histogram.percentile(99) / 1e6),
        "max interval drift ms": round(worstGap),
        "burst ms": round(elapsed),
      });
    }
    return rows;
  },
  goals(_results, measurements) {
    const figure = (m: Measurement, column: string): number =>
      typeof m[column] === "number" ? (m[column] as number) : 0;
    const worst = Math.max(
      ...measurements.map((m) => Math.max(figure(m, "max delay ms"), figure(m, "max interval drift ms"))),
    );
    const goals: Goal[] = [
      {
        goal: `${CONCURRENT.toLocaleString("en-US")} concurrent invokes never block the event loop > ${BOUND_MS} ms`,
        measured: `${worst.toFixed(2)} ms worst delay`,
        met: worst <= BOUND_MS,
      },
    ];
    return goals;
  },
  notes: () => ({
    concurrent: CONCURRENT,
    rounds: ROUNDS,
    monitor: "perf_hooks.monitorEventLoopDelay({ resolution: 1 })",
  }),
});
