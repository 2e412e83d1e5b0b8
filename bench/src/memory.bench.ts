import { ADD_INPUT } from "./lib/add-tools.js";
import { defineBenchmark, type Goal, type Measurement } from "./lib/benchmark.js";
import { FULL_STACK_LABEL, fullStack, HAS_DIAGNOSTICS } from "./lib/stacks.js";

const TOTAL = 1_000_000;
const CHECKPOINT = 200_000;
/** More than this much growth after a million calls would mean something keeps per-call state. */
const BOUND_MB = 8;

const gc = (globalThis as { gc?: () => void }).gc;

function heapMb(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1e6;
}

const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

export default defineBenchmark({
  name: "memory",
  description: `Heap after ${TOTAL.toLocaleString("en-US")} sequential invokes of add({a, b}) through the full stack (${FULL_STACK_LABEL}): the heap must stay bounded, with diagnostics keeping a fixed number of records.`,
  cases: () => [],
  async measure() {
    if (!gc) throw new Error("memory benchmark: run node with --expose-gc (pnpm bench does)");
    const tools = fullStack().tools;
    const call = { name: "add", arguments: ADD_INPUT };
    for (let i = 0; i < 20_000; i++) await tools.invoke(call); // warm-up: code, tokenizer-free fast paths, diagnostics buffers
    const start = heapMb();
    const rows: Measurement[] = [
      { name: "after warm-up (20,000 calls)", "heap MB": round(start), "Δ MB": 0, "µs/call": "" },
    ];
    let done = 0;
    while (done < TOTAL) {
      const began = performance.now();
      for (let i = 0; i < CHECKPOINT; i++) await tools.invoke(call);
      const perCall = ((performance.now() - began) * 1000) / CHECKPOINT;
      done += CHECKPOINT;
      const heap = heapMb();
      rows.push({
        name: `after ${done.toLocaleString("en-US")} calls`,
        "heap MB": round(heap),
        "Δ MB": round(heap - start),
        "µs/call": round(perCall),
      });
    }
    return rows;
  },
  goals(_results, measurements) {
    const last = measurements.at(-1);
    const growth = typeof last?.["Δ MB"] === "number" ? last["Δ MB"] : undefined;
    const goals: Goal[] = [];
    if (growth !== undefined) {
      goals.push({
        goal: `heap bounded after ${TOTAL.toLocaleString("en-US")} invokes${HAS_DIAGNOSTICS ? " with diagnostics on" : " (full stack; usingDiagnostics not in this build)"} (growth under ${BOUND_MB} MB)`,
        measured: `${growth.toFixed(2)} MB growth`,
        met: growth < BOUND_MB,
      });
    }
    return goals;
  },
  notes: () => ({
    calls: TOTAL,
    checkpoint: CHECKPOINT,
    diagnostics: HAS_DIAGNOSTICS,
    heap: "process.memoryUsage().heapUsed after two forced GCs",
  }),
});
