import "reflect-metadata";
import { fork } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Bench, type Statistics } from "tinybench";
import type { Benchmark, BenchmarkCase, CaseResult, Goal, Measurement } from "./lib/benchmark.js";
import { cpuNsPerCall, median } from "./lib/cpu-time.js";

// Runs every bench/src/*.bench.ts (or those whose file name contains one of the arguments), prints a
// table per benchmark and writes bench/results/<name>.json.
//   --cpu            goals are judged on CPU time per call (process.cpuUsage) instead of wall time;
//                    both are measured and printed either way. The machine is shared: CPU time does
//                    not count the time this process waits for a core.
//   --processes=N    runs each benchmark in N fresh processes and reports, per case, the median of
//                    their medians (every goal then reads those figures, still all from one run).
const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, "..", "results");
const args = process.argv.slice(2).filter((a) => a !== "--");
const clock: "wall" | "cpu" = args.includes("--cpu") ? "cpu" : "wall";
const processes = Math.max(1, Number(args.find((a) => a.startsWith("--processes="))?.slice(12) ?? 1) || 1);
const filters = args.filter((a) => !a.startsWith("--"));
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

const isChild = process.env["NEEDLEWORK_BENCH_CHILD"] === "1";
/** In a child of a --processes run: which process it is (its results go to a part file). */
const part = process.env["NEEDLEWORK_BENCH_PART"];

function runChild(file: string, index?: number): Promise<number> {
  return new Promise<number>((resolve) => {
    fork(fileURLToPath(import.meta.url), [file, ...(clock === "cpu" ? ["--cpu"] : [])], {
      stdio: "inherit",
      env: {
        ...process.env,
        NEEDLEWORK_BENCH_CHILD: "1",
        ...(index === undefined ? {} : { NEEDLEWORK_BENCH_PART: String(index) }),
      },
    }).on("exit", (c) => resolve(c ?? 1));
  });
}

const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

// Benchmarks measure what users run: built JavaScript under plain node, where stack traces are not
// source-mapped. tsx turns source maps on; a framework that reads `error.stack` would pay for that here only.
process.setSourceMapsEnabled(false);

interface Row {
  case: string;
  "median ms"?: number;
  "mad ms"?: number;
  "min ms"?: number;
  "p99 ms"?: number;
  "mean ms"?: number;
  calls?: number;
  "ns/call"?: number;
  "mad ns"?: number;
  "p99 ns"?: number;
  "× floor"?: number | string;
  "cpu ns/call"?: number;
  "cpu × floor"?: number | string;
  "rme %"?: number;
  samples?: number;
  "MB/s"?: number;
}

/** One case's figures as a part file of a --processes run keeps them. */
interface PartCase {
  readonly name: string;
  readonly calls?: number;
  readonly floor?: boolean;
  readonly result: CaseResult;
}

const ratio = (value: number | undefined, floor: number | undefined): number | string =>
  value === undefined || floor === undefined ? "" : round(value / floor, 2);

function row(
  c: BenchmarkCase,
  latency: Statistics,
  perCall: boolean,
  floor: { wall?: number; cpu?: number },
  cpuNs: number | undefined,
): Row {
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
      "× floor": ratio((latency.p50 * 1e6) / calls, floor.wall),
      ...(cpuNs === undefined ? {} : { "cpu ns/call": round(cpuNs, 0), "cpu × floor": ratio(cpuNs, floor.cpu) }),
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

/** The figure goals read: the requested clock's, falling back to wall time for cases without CPU time. */
function forGoals(result: CaseResult): CaseResult {
  if (clock === "wall" || result.cpuNsPerCall === undefined) return result;
  return { ...result, nsPerCall: result.cpuNsPerCall };
}

function printGoals(goals: readonly Goal[]): void {
  const label = clock === "cpu" ? "CPU time per call" : "wall time per call";
  if (goals.length > 0) console.log(`goals (${label}${processes > 1 ? `, median of ${processes} processes` : ""}):`);
  for (const goal of goals) console.log(`${goal.met ? "met   " : "MISSED"}  ${goal.goal}: ${goal.measured}`);
}

function machine(): Record<string, unknown> {
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
  };
}

/**
 * After the N processes of a --processes run: the median over processes of each case's medians, one
 * table and the goals judged on those medians, written to results/<name>.json.
 */
async function mergeParts(file: string): Promise<void> {
  const benchmark = ((await import(join(here, file))) as { default: Benchmark }).default;
  const partFiles = readdirSync(resultsDir).filter((f) => f.startsWith(`${benchmark.name}.part`));
  const parts = partFiles.map(
    (f) =>
      JSON.parse(readFileSync(join(resultsDir, f), "utf8")) as {
        cases: PartCase[];
        measurements: Measurement[];
      },
  );
  for (const f of partFiles) rmSync(join(resultsDir, f));
  const first = parts[0];
  if (!first) return;
  const pick = (name: string, key: keyof CaseResult): number | undefined => {
    const values = parts
      .map((p) => p.cases.find((c) => c.name === name)?.result[key])
      .filter((v): v is number => typeof v === "number");
    return values.length === 0 ? undefined : median(values);
  };
  const byName = new Map<string, CaseResult>();
  const rows: Row[] = [];
  let floor: { wall?: number; cpu?: number } = {};
  for (const c of first.cases) {
    const wall = pick(c.name, "wallNsPerCall");
    const cpu = pick(c.name, "cpuNsPerCall");
    const medianMs = pick(c.name, "medianMs") ?? Number.NaN;
    if (c.floor) floor = { ...(wall === undefined ? {} : { wall }), ...(cpu === undefined ? {} : { cpu }) };
    const result: CaseResult = {
      medianMs,
      ...(wall === undefined ? {} : { nsPerCall: wall, wallNsPerCall: wall }),
      ...(cpu === undefined ? {} : { cpuNsPerCall: cpu }),
    };
    byName.set(c.name, forGoals(result));
    rows.push(
      wall === undefined
        ? { case: c.name, "median ms": round(medianMs) }
        : {
            case: c.name,
            calls: c.calls ?? 1,
            "ns/call": round(wall, 0),
            "× floor": ratio(wall, floor.wall),
            ...(cpu === undefined ? {} : { "cpu ns/call": round(cpu, 0), "cpu × floor": ratio(cpu, floor.cpu) }),
          },
    );
  }
  console.log(`\n${benchmark.name}: median of ${parts.length} processes`);
  console.table(rows);
  // Figures measured outside tinybench come from the first process (they are not merged).
  const goals = benchmark.goals?.(byName, first.measurements) ?? [];
  printGoals(goals);
  const record = {
    name: benchmark.name,
    description: benchmark.description,
    date: new Date().toISOString(),
    machine: machine(),
    clock,
    processes: parts.length,
    results: rows,
    ...(first.measurements.length > 0 ? { measurements: first.measurements } : {}),
    ...(goals.length > 0 ? { goals } : {}),
    notes: benchmark.notes?.() ?? {},
  };
  const path = join(resultsDir, `${benchmark.name}.json`);
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`wrote ${path}`);
}

mkdirSync(resultsDir, { recursive: true });

// Each benchmark runs in a fresh process (same flags: tsx, --expose-gc), so the JIT state and heap
// one leaves behind cannot skew the next; the cases of one benchmark share a process, as compared.
if (!isChild && (files.length > 1 || processes > 1)) {
  let failedChild = false;
  for (const file of files) {
    if (processes === 1) {
      if ((await runChild(file)) !== 0) failedChild = true;
      continue;
    }
    for (let i = 0; i < processes; i++) {
      console.log(`\n${file}: process ${i + 1} of ${processes}`);
      if ((await runChild(file, i)) !== 0) failedChild = true;
    }
    if (!failedChild) await mergeParts(file);
  }
  process.exit(failedChild ? 1 : 0);
}

let failed = false;
for (const file of files) {
  const benchmark = ((await import(join(here, file))) as { default: Benchmark }).default;
  console.log(`\n${benchmark.name}: ${benchmark.description}`);
  const cases = await benchmark.cases();
  const perCall = cases.some((c) => c.calls !== undefined);
  const rows: Row[] = [];
  const byName = new Map<string, CaseResult>();
  const partCases: PartCase[] = [];
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
    let floor: { wall?: number; cpu?: number } = {};
    for (const [i, task] of tasks.entries()) {
      const result = task.result;
      const c = cases[i]!;
      if (!("latency" in result)) {
        failed = true;
        console.error(`${task.name}: ${result.state}${"error" in result ? ` (${String(result.error)})` : ""}`);
        continue;
      }
      const wallNs = c.calls === undefined ? undefined : (result.latency.p50 * 1e6) / c.calls;
      // CPU time after the wall-time samples, in the same process (the case is warm by then).
      const cpuNs = c.calls === undefined ? undefined : await cpuNsPerCall(c.fn, c.calls);
      if (c.floor)
        floor = { ...(wallNs === undefined ? {} : { wall: wallNs }), ...(cpuNs === undefined ? {} : { cpu: cpuNs }) };
      rows.push(row(c, result.latency, perCall, floor, cpuNs));
      const caseResult: CaseResult = {
        medianMs: result.latency.p50,
        ...(wallNs === undefined ? {} : { nsPerCall: wallNs, wallNsPerCall: wallNs }),
        ...(cpuNs === undefined ? {} : { cpuNsPerCall: cpuNs }),
      };
      byName.set(c.name, forGoals(caseResult));
      partCases.push({
        name: c.name,
        ...(c.calls === undefined ? {} : { calls: c.calls }),
        ...(c.floor ? { floor: true } : {}),
        result: caseResult,
      });
    }
    console.table(rows);
  }
  const measurements = (await benchmark.measure?.()) ?? [];
  if (measurements.length > 0) console.table(measurements);
  if (part !== undefined) {
    // One process of a --processes run: the parent merges the parts and judges the goals.
    writeFileSync(
      join(resultsDir, `${benchmark.name}.part${part}.json`),
      `${JSON.stringify({ cases: partCases, measurements })}\n`,
    );
    continue;
  }
  const goals = benchmark.goals?.(byName, measurements) ?? [];
  printGoals(goals);
  const record = {
    name: benchmark.name,
    description: benchmark.description,
    date: new Date().toISOString(),
    machine: machine(),
    clock,
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
