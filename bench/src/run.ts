import "reflect-metadata";
import { fork } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Bench, type Statistics } from "tinybench";
import type { Benchmark, BenchmarkCase, CaseResult } from "./lib/benchmark.js";

// Runs every bench/src/*.bench.ts (or those whose file name contains one of the arguments), prints a
// table per benchmark and writes bench/results/<name>.json.
const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, "..", "results");
const filters = process.argv.slice(2).filter((a) => a !== "--");
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => filters.length === 0 || filters.some((filter) => f.includes(filter)))
  .sort();

if (files.length === 0) {
  console.error(
    `No benchmark matches ${filters.join(", ")}. Files: ${readdirSync(here)
      .filter((f) => f.endsWith(".bench.ts"))
      .join(", ")}`,
  );
  process.exit(1);
}

// Each benchmark runs in a fresh process (same flags: tsx, --expose-gc), so the JIT state and heap
// one leaves behind cannot skew the next; the cases of one benchmark share a process, as compared.
if (files.length > 1 && process.env["NEEDLEWORK_BENCH_CHILD"] !== "1") {
  let failedChild = false;
  for (const file of files) {
    const code = await new Promise<number>((resolve) => {
      fork(fileURLToPath(import.meta.url), [file], {
        stdio: "inherit",
        env: { ...process.env, NEEDLEWORK_BENCH_CHILD: "1" },
      }).on("exit", (c) => resolve(c ?? 1));
    });
    if (code !== 0) failedChild = true;
  }
  process.exit(failedChild ? 1 : 0);
}

const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

// Benchmarks measure what users run: built JavaScript under plain node, where stack traces are not
// source-mapped. tsx turns source maps on; a framework that reads `error.stack` would pay for that here only.
process.setSourceMapsEnabled(false);

interface Row {
  case: string;
  "median ms": number;
  "mad ms"?: number;
  "min ms"?: number;
  "p99 ms"?: number;
  "mean ms"?: number;
  calls?: number;
  "ns/call"?: number;
  "mad ns"?: number;
  "p99 ns"?: number;
  "× floor"?: number | string;
  "rme %": number;
  samples: number;
  "MB/s"?: number;
}

function row(c: BenchmarkCase, latency: Statistics, perCall: boolean, floorNs: number | undefined): Row {
  const samples = latency.samples?.length ?? 0;
  if (perCall) {
    const calls = c.calls ?? 1;
    const ns = (ms: number): number => round((ms * 1e6) / calls, 0);
    return {
      case: c.name,
      "median ms": round(latency.p50),
      calls,
      "ns/call": ns(latency.p50),
      "mad ns": ns(latency.mad),
      "p99 ns": ns(latency.p99),
      "× floor": floorNs === undefined ? "" : round((latency.p50 * 1e6) / calls / floorNs, 1),
      "rme %": round(latency.rme, 2),
      samples,
    };
  }
  const out: Row = {
    case: c.name,
    "median ms": round(latency.p50),
    "mad ms": round(latency.mad),
    "min ms": round(latency.min),
    "p99 ms": round(latency.p99),
    "mean ms": round(latency.mean),
    "rme %": round(latency.rme, 2),
    samples,
  };
  if (c.bytes !== undefined) out["MB/s"] = round(c.bytes / 1e6 / (latency.p50 / 1000), 1);
  return out;
}

mkdirSync(resultsDir, { recursive: true });
let failed = false;
for (const file of files) {
  const benchmark = ((await import(join(here, file))) as { default: Benchmark }).default;
  console.log(`\n${benchmark.name}: ${benchmark.description}`);
  const cases = await benchmark.cases();
  const perCall = cases.some((c) => c.calls !== undefined);
  const rows: Row[] = [];
  const byName = new Map<string, CaseResult>();
  if (cases.length > 0) {
    const bench = new Bench({
      time: 1000,
      iterations: 10,
      retainSamples: true,
      ...benchmark.options,
      name: benchmark.name,
    });
    for (const c of cases) bench.add(c.name, c.fn);
    const tasks = await bench.run();
    let floorNs: number | undefined;
    for (const [i, task] of tasks.entries()) {
      const result = task.result;
      const c = cases[i]!;
      if (!("latency" in result)) {
        failed = true;
        console.error(`${task.name}: ${result.state}${"error" in result ? ` (${String(result.error)})` : ""}`);
        continue;
      }
      const nsPerCall = c.calls === undefined ? undefined : (result.latency.p50 * 1e6) / c.calls;
      if (c.floor) floorNs = nsPerCall;
      rows.push(row(c, result.latency, perCall, floorNs));
      byName.set(c.name, { medianMs: result.latency.p50, ...(nsPerCall === undefined ? {} : { nsPerCall }) });
    }
    console.table(rows);
  }
  const measurements = (await benchmark.measure?.()) ?? [];
  if (measurements.length > 0) console.table(measurements);
  const goals = benchmark.goals?.(byName, measurements) ?? [];
  for (const goal of goals) console.log(`${goal.met ? "met   " : "MISSED"}  ${goal.goal}: ${goal.measured}`);
  const record = {
    name: benchmark.name,
    description: benchmark.description,
    date: new Date().toISOString(),
    machine: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      cpu: cpus()[0]?.model ?? "unknown",
      cores: cpus().length,
    },
    results: rows,
    ...(measurements.length > 0 ? { measurements } : {}),
    ...(goals.length > 0 ? { goals } : {}),
    notes: benchmark.notes?.() ?? {},
  };
  const path = join(resultsDir, `${benchmark.name}.json`);
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`wrote ${path}`);
}
process.exitCode = failed ? 1 : 0;
