import "reflect-metadata";
import { ShapeTools, shapeBodies } from "./lib/shape-tools.js";
import { documentedStack, fullStack } from "./lib/stacks.js";

// A small driver to profile one shape through to the text the model reads (not a benchmark: the
// runner ignores it); it prints CPU time per call beside the floor (direct call + JSON.stringify):
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx src/profile-shapes.ts documented order 3
// Stacks: documented | full | floor. Shapes: sum | order | records10k | records100k. Then seconds.
process.setSourceMapsEnabled(false);

const [stackName = "documented", shape = "sum", seconds = "3"] = process.argv.slice(2);
const inputs: Record<string, unknown> = {
  sum: { a: 2, b: 3 },
  order: { orderId: "ORD-12345" },
  records10k: { query: "acme" },
  records100k: { query: "acme" },
};
if (!(shape in inputs) || !["documented", "full", "floor"].includes(stackName)) {
  console.error("usage: profile-shapes.ts <documented|full|floor> <sum|order|records10k|records100k> [seconds]");
  process.exit(1);
}
const factory = stackName === "full" ? fullStack(undefined, ShapeTools) : documentedStack(undefined, ShapeTools);
const call = { name: shape, arguments: inputs[shape] };
const body = shapeBodies[shape as keyof typeof shapeBodies] as (input: unknown) => unknown;
const op =
  stackName === "floor"
    ? async () => JSON.stringify(body(call.arguments))
    : async () => factory.formatOutcome(await factory.tools.invoke(call));
console.log((await op()).slice(0, 200));

const until = performance.now() + Number(seconds) * 1000;
const cpu = process.cpuUsage();
let calls = 0;
while (performance.now() < until) {
  for (let i = 0; i < 200; i++) await op();
  calls += 200;
}
const used = process.cpuUsage(cpu);
console.log(
  `${stackName} ${shape}: ${calls} calls, ${(((used.user + used.system) * 1000) / calls).toFixed(0)} ns CPU per call`,
);
