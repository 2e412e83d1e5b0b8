import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Bench, type Statistics } from "tinybench";
import type { Benchmark } from "./lib/benchmark.js";

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
  console.error(`No benchmark matches ${filters.join(", ")}. Files: ${readdirSync(here).filter((f) => f.endsWith(".bench.ts")).join(", ")}`);
  process.exit(1);
}

const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

interface Row {
  case: string;
  "median ms": number;
  "mad ms": number;
  "min ms": number;
  "p99 ms": number;
  "mean ms": number;
  "rme %": number;
  samples: number;
  "MB/s"?: number;
}

function row(name: string, latency: Statistics, bytes: number | undefined): Row {
  const out: Row = {
    case: name,
    "median ms": round(latency.p50),
    "mad ms": round(latency.mad),
    "min ms": round(latency.min),
    "p99 ms": round(latency.p99),
    "mean ms": round(latency.mean),
    "rme %": round(latency.rme, 2),
    samples: latency.samples?.length ?? 0,
  };
  if (bytes !== undefined) out["MB/s"] = round(bytes / 1e6 / (latency.p50 / 1000), 1);
  return out;
}

mkdirSync(resultsDir, { recursive: true });
let failed = false;
for (const file of files) {
  const benchmark = ((await import(join(here, file))) as { default: Benchmark }).default;
  console.log(`\n${benchmark.name}: ${benchmark.description}`);
  const cases = await benchmark.cases();
  const bench = new Bench({ time: 1000, iterations: 10, retainSamples: true, ...benchmark.options, name: benchmark.name });
  for (const c of cases) bench.add(c.name, c.fn);
  const tasks = await bench.run();
  const rows: Row[] = [];
  for (const [i, task] of tasks.entries()) {
    const result = task.result;
    if (!("latency" in result)) {
      failed = true;
      console.error(`${task.name}: ${result.state}${"error" in result ? ` (${String(result.error)})` : ""}`);
      continue;
    }
    rows.push(row(task.name, result.latency, cases[i]?.bytes));
  }
  console.table(rows);
  const record = {
    name: benchmark.name,
    description: benchmark.description,
    date: new Date().toISOString(),
    machine: { node: process.version, platform: `${process.platform}-${process.arch}`, cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length },
    results: rows,
    notes: benchmark.notes?.() ?? {},
  };
  const path = join(resultsDir, `${benchmark.name}.json`);
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`wrote ${path}`);
}
process.exitCode = failed ? 1 : 0;
