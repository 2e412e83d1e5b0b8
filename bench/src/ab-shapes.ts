import "reflect-metadata";
import { z } from "zod";
import { ORDER_1KB, RECORDS_10KB } from "./lib/shape-tools.js";

// An in-process A/B of two builds of the repository (not a benchmark: the runner ignores it). The
// documented and full stacks of each build run the same tools in turn, round after round, so both
// see the same load on a shared machine; it prints the median and the minimum CPU time per call,
// with the floor (the direct call's JSON.stringify). Build both checkouts first.
//   node --import tsx src/ab-shapes.ts /path/to/base-checkout [rounds]
process.setSourceMapsEnabled(false);

const [baseDir, roundsArg = "9"] = process.argv.slice(2);
if (baseDir === undefined) {
  console.error("usage: ab-shapes.ts <base checkout, built> [rounds]");
  process.exit(1);
}
const mainDir = new URL("../..", import.meta.url).pathname;

/** What this script uses of a build's @needlework/core and @needlework/workflows. */
interface Build {
  readonly core: {
    AgentFunction(options: object): (target: object, key: string, descriptor: PropertyDescriptor) => void;
    AgentFunctionGroup(): (target: abstract new () => object) => void;
  };
  readonly workflows: { usingAgentFramework(): Builder };
}
interface Builder {
  addAgentFunctions(...classes: (new () => object)[]): Builder;
  usingResilience(): Builder;
  usingToolResultMiddleware(): Builder;
  usingTruncation(): Builder;
  usingRedaction(): Builder;
  usingDiagnostics(): Builder;
  buildAgentFactory(options: { printDiagnostics: boolean }): Factory;
}
interface Factory {
  readonly tools: { invoke(call: { name: string; arguments: unknown }): Promise<unknown> };
  formatOutcome(outcome: unknown): string;
}

async function load(dir: string): Promise<Build> {
  return {
    core: (await import(`${dir}/packages/core/dist/index.js`)) as Build["core"],
    workflows: (await import(`${dir}/packages/workflows/dist/index.js`)) as Build["workflows"],
  };
}

const sumSchema = z.object({ a: z.number().describe("First addend."), b: z.number().describe("Second addend.") });
const querySchema = z.object({ query: z.string().describe("Search text.") });

/** The tools, decorated with the build's own decorators (each build has its own registry). */
function toolsOf(core: Build["core"]): new () => object {
  class Tools {
    sum(input: { a: number; b: number }) {
      return { sum: input.a + input.b };
    }
    order(_: unknown) {
      return ORDER_1KB;
    }
    list(_: unknown) {
      return RECORDS_10KB;
    }
  }
  const methods = [
    ["sum", sumSchema],
    ["order", querySchema],
    ["list", querySchema],
  ] as const;
  for (const [name, input] of methods) {
    const descriptor = Object.getOwnPropertyDescriptor(Tools.prototype, name)!;
    core.AgentFunction({ description: `The ${name} tool.`, input, readOnly: name !== "sum" })(
      Tools.prototype,
      name,
      descriptor,
    );
  }
  core.AgentFunctionGroup()(Tools);
  return Tools;
}

function stacksOf(build: Build): { documented: Factory; full: Factory } {
  const tools = toolsOf(build.core);
  const base = () =>
    build.workflows.usingAgentFramework().addAgentFunctions(tools).usingResilience().usingToolResultMiddleware();
  return {
    documented: base().buildAgentFactory({ printDiagnostics: false }),
    full: base().usingTruncation().usingRedaction().usingDiagnostics().buildAgentFactory({ printDiagnostics: false }),
  };
}

const builds = { base: stacksOf(await load(baseDir)), main: stacksOf(await load(mainDir)) };
const cases = [
  { stack: "documented", tool: "sum", args: { a: 2, b: 3 }, calls: 8000 },
  { stack: "documented", tool: "order", args: { query: "x" }, calls: 2000 },
  { stack: "full", tool: "order", args: { query: "x" }, calls: 800 },
  { stack: "documented", tool: "list", args: { query: "x" }, calls: 400 },
  { stack: "full", tool: "list", args: { query: "x" }, calls: 80 },
] as const;
const floors: Record<string, () => string> = {
  sum: () => JSON.stringify({ sum: 5 }),
  order: () => JSON.stringify(ORDER_1KB),
  list: () => JSON.stringify(RECORDS_10KB),
};

async function cpuNsPerCall(op: () => unknown, calls: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await op();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / calls;
}

const samples = new Map<string, number[]>();
const record = (key: string, ns: number) => samples.set(key, [...(samples.get(key) ?? []), ns]);
const rounds = Number(roundsArg);
for (let round = 0; round < rounds; round++) {
  for (const { stack, tool, args, calls } of cases) {
    record(`floor ${tool}`, await cpuNsPerCall(floors[tool]!, calls));
    // Each round swaps which build goes first.
    for (const side of round % 2 === 0 ? (["base", "main"] as const) : (["main", "base"] as const)) {
      const factory = builds[side][stack];
      const call = { name: tool, arguments: args };
      const op = async () => factory.formatOutcome(await factory.tools.invoke(call));
      if (round === 0) await cpuNsPerCall(op, calls); // warm-up
      record(`${side} ${stack} ${tool}`, await cpuNsPerCall(op, calls));
    }
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [key, values] of samples)
  console.log(
    `${key.padEnd(24)} ${median(values).toFixed(0).padStart(8)} ns median ${Math.min(...values)
      .toFixed(0)
      .padStart(8)} ns min`,
  );
