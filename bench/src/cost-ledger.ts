import "reflect-metadata";
import { createToolInvoker, DEFAULT_ARGUMENT_LIMITS, formatToolOutcome, toJsonSafe } from "@needlework/core";
import { parseToolArguments, toolValueOutcome } from "@needlework/core/internal";
import { nextId } from "@needlework/core/kit";
import { container } from "tsyringe";
import { orderSchema, ShapeTools, shapeBodies, sumSchema } from "./lib/shape-tools.js";
import { documentedStack } from "./lib/stacks.js";

// The cost ledger of one successful call (not a benchmark: the runner ignores it). It measures, on
// the { sum } and 1 KB order shapes of `tool-result-shapes`, each step DESIGN.md asks of every call
// on its own (validating the arguments, the JSON-safe snapshot with the returned-failure check, the
// call's ids, its two clock reads for `latency_ms`, resolving the tool from the container, writing
// the envelope), beside the floor (the direct call's JSON.stringify), the bare invoker and the
// documented stack, all in one process that first ran every shape through both (as the bench does),
// and prints how far the steps alone come from issue 36's goals. CPU time per call, the minimum of
// alternating rounds:
//   node --import tsx src/cost-ledger.ts [rounds]
process.setSourceMapsEnabled(false);

const rounds = Number(process.argv[2] ?? "15");
const bare = createToolInvoker(container.createChildContainer(), { functions: [ShapeTools] });
const documented = documentedStack(undefined, ShapeTools);
const shapes = {
  sum: { input: { a: 2, b: 3 }, schema: sumSchema },
  order: { input: { orderId: "ORD-12345" }, schema: orderSchema },
} as const;
const child = container.createChildContainer();
child.register(ShapeTools, ShapeTools);

// Every shape through both stacks first, so the code is as warm and as polymorphic as in the bench.
for (const name of ["order", "records10k", "records100k", "sum"] as const) {
  const call = { name, arguments: name in shapes ? shapes[name as keyof typeof shapes].input : { query: "acme" } };
  for (let i = 0; i < 2000; i++) {
    formatToolOutcome(await bare.invoke(call));
    documented.formatOutcome(await documented.tools.invoke(call));
  }
}

let sink = 0;
const keep = (value: unknown): void => {
  if (typeof value === "string")
    sink += value.charCodeAt(value.length - 1); // a string is used: flattened
  else if (value !== undefined) sink++;
};

for (const [name, shape] of Object.entries(shapes)) {
  const body = shapeBodies[name as keyof typeof shapeBodies] as (input: unknown) => unknown;
  const call = { name, arguments: shape.input };
  const value = body(shape.input);
  const outcome = await bare.invoke(call);
  const tool = bare.get(name)!;
  const steps: Record<string, () => unknown> = {
    "validation (limits, zod, unknown keys)": () =>
      parseToolArguments(shape.input, shape.schema, DEFAULT_ARGUMENT_LIMITS),
    "snapshot copy (toJsonSafe)": () => toJsonSafe(value),
    "outcome (snapshot, failure check)": () => toolValueOutcome(value, tool),
    "call and run ids": () => nextId("call") + nextId("run"),
    "two clock reads": () => performance.now() - performance.now(),
    "container.resolve": () => child.resolve(ShapeTools),
    "envelope (formatToolOutcome)": () => formatToolOutcome(outcome),
    "the data's JSON.stringify": () => JSON.stringify(outcome.data),
  };
  const whole: Record<string, () => Promise<unknown>> = {
    floor: async () => JSON.stringify(body(shape.input)),
    "bare invoker + envelope": async () => formatToolOutcome(await bare.invoke(call)),
    "documented stack + envelope": async () => documented.formatOutcome(await documented.tools.invoke(call)),
  };
  const mins = new Map<string, number>();
  const perCall = (ns: number, n: number, label: string) =>
    mins.set(label, Math.min(mins.get(label) ?? Infinity, ns / n));
  for (let round = 0; round < rounds; round++) {
    for (const [label, op] of Object.entries(steps)) {
      const n = 20_000;
      const start = process.cpuUsage();
      for (let i = 0; i < n; i++) keep(op());
      const used = process.cpuUsage(start);
      perCall((used.user + used.system) * 1000, n, label);
    }
    for (const [label, op] of Object.entries(whole)) {
      const n = 5_000;
      const start = process.cpuUsage();
      for (let i = 0; i < n; i++) keep(await op());
      const used = process.cpuUsage(start);
      perCall((used.user + used.system) * 1000, n, label);
    }
  }
  const floor = mins.get("floor")!;
  const ns = (label: string): number => mins.get(label)!;
  // Over the floor, which already holds one call of the body and one stringify of its value: the
  // outcome step (it holds the copy, listed above for reading) and the envelope beyond the data's
  // stringify.
  const required =
    ns("validation (limits, zod, unknown keys)") +
    ns("outcome (snapshot, failure check)") +
    ns("call and run ids") +
    ns("two clock reads") +
    ns("container.resolve") +
    (ns("envelope (formatToolOutcome)") - ns("the data's JSON.stringify"));
  console.log(`\n${name}: CPU ns per call, the minimum of ${rounds} rounds`);
  for (const [label, value] of mins) console.log(`  ${label.padEnd(40)} ${value.toFixed(0).padStart(7)}`);
  console.log(`  ${"the steps alone, over the floor".padEnd(40)} ${required.toFixed(0).padStart(7)}`);
  const documentedNs = ns("documented stack + envelope");
  console.log(
    name === "sum"
      ? `  goal: at most +1000 ns over the floor. The steps alone: +${required.toFixed(0)}; the documented stack: +${(documentedNs - floor).toFixed(0)}`
      : `  goal: at most 1.5× the floor. The steps alone: ${((floor + required) / floor).toFixed(2)}×; the documented stack: ${(documentedNs / floor).toFixed(2)}×`,
  );
}
if (sink === 0) console.log("(nothing kept)");
