import "reflect-metadata";
import { fork } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as workflowsBuild from "@needlework/workflows";
import * as shapingBuild from "@needlework/workflows/shaping";
import { container } from "tsyringe";
import { ORDER_1KB, RECORDS_10KB, RECORDS_100KB, ShapeTools } from "./lib/shape-tools.js";

// CPU time per call of the full stack (truncation, redaction, diagnostics through the documented
// builder) on the shapes of tool-result-shapes.bench.ts, and of truncateValue and redactValue alone,
// as the median of 3 processes (this machine is shared: CPU time, not wall time). Not a benchmark
// file (the runner ignores it); the full-stack goals are printed by tool-result-shapes.bench.ts.
//   node --import tsx src/shaping-cpu.ts            # 3 processes, medians
//   node --import tsx src/shaping-cpu.ts --child    # one process
// SHAPING_DIST=<a copy of packages/workflows/dist> measures that build instead (before/after in one run).
process.setSourceMapsEnabled(false);

const SHAPES = [
  { key: "order", label: "1 KB order", input: { orderId: "ORD-12345" }, value: ORDER_1KB, goalUs: 20 },
  { key: "records10k", label: "10 KB list", input: { query: "acme" }, value: RECORDS_10KB, goalUs: 400 },
  { key: "records100k", label: "100 KB list", input: { query: "acme" }, value: RECORDS_100KB, goalUs: 600 },
] as const;

type Figures = Record<string, number>;

/** CPU µs per call of `op`, after a warm-up, over about `seconds`. */
async function cpuPerCall(op: () => unknown, seconds = 1): Promise<number> {
  const warmUntil = performance.now() + 300;
  while (performance.now() < warmUntil) await op();
  const cpu = process.cpuUsage();
  const until = performance.now() + seconds * 1000;
  let calls = 0;
  while (performance.now() < until) {
    for (let i = 0; i < 20; i++) await op();
    calls += 20;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / calls;
}

async function child(): Promise<Figures> {
  const dist = process.env["SHAPING_DIST"];
  const { usingAgentFramework } = dist
    ? ((await import(pathToFileURL(`${dist}/index.js`).href)) as typeof workflowsBuild)
    : workflowsBuild;
  const { createRedactor, truncateValue } = dist
    ? ((await import(pathToFileURL(`${dist}/shaping.js`).href)) as typeof shapingBuild)
    : shapingBuild;
  const full = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(ShapeTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .usingTruncation()
    .usingRedaction()
    .usingDiagnostics()
    .buildAgentFactory();
  const redactor = createRedactor();
  const figures: Figures = {};
  for (const shape of SHAPES) {
    const call = { name: shape.key, arguments: shape.input };
    const text = full.formatOutcome(await full.tools.invoke(call));
    if (typeof text !== "string" || text.length < 5) throw new Error(`${shape.label}: no text`);
    figures[`${shape.label}: full stack`] = await cpuPerCall(async () =>
      full.formatOutcome(await full.tools.invoke(call)),
    );
    figures[`${shape.label}: truncateValue`] = await cpuPerCall(() => truncateValue(shape.value), 0.5);
    figures[`${shape.label}: redactValue`] = await cpuPerCall(() => redactor.redactValue(shape.value), 0.5);
  }
  return figures;
}

if (process.argv.includes("--child")) {
  const figures = await child();
  if (process.send) process.send(figures);
  else for (const [name, us] of Object.entries(figures)) console.log(`${name}: ${us.toFixed(1)} µs`);
} else {
  const runs: Figures[] = [];
  for (let i = 0; i < 3; i++) {
    runs.push(
      await new Promise<Figures>((resolve, reject) => {
        const proc = fork(fileURLToPath(import.meta.url), ["--child"], { execArgv: process.execArgv });
        proc.on("message", (m) => resolve(m as Figures));
        proc.on("exit", (code) => code !== 0 && reject(new Error(`child exited ${code}`)));
      }),
    );
  }
  const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const name of Object.keys(runs[0]!)) {
    const us = median(runs.map((r) => r[name]!));
    const shape = SHAPES.find((s) => name === `${s.label}: full stack`);
    const goal = shape ? `  goal ≤ ${shape.goalUs} µs: ${us <= shape.goalUs ? "met" : "missed"}` : "";
    console.log(`${name.padEnd(36)} ${us.toFixed(1).padStart(9)} µs CPU (median of 3)${goal}`);
  }
}
