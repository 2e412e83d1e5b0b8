import "reflect-metadata";
import type { ToolInvoker } from "@needlework/core";
import { ADD_INPUT, BAD_INPUT } from "./lib/add-tools.js";
import { BREAKER_NEVER_OPENS, bareInvoker, documentedStack, fullStack } from "./lib/stacks.js";

// A small driver to profile one path in isolation (not a benchmark: the runner ignores it):
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx src/profile-driver.ts documented throws 5
// Stacks: bare | documented | full. Paths: ok | throws | invalid. Then seconds (default 3).
// It prints the CPU time per call; open the .cpuprofile in Chrome DevTools or speedscope.
process.setSourceMapsEnabled(false);

const [stackName = "documented", path = "ok", seconds = "3"] = process.argv.slice(2);
const stacks: Record<string, () => ToolInvoker> = {
  bare: bareInvoker,
  documented: () => documentedStack(BREAKER_NEVER_OPENS).tools,
  full: () => fullStack(BREAKER_NEVER_OPENS).tools,
};
const make = stacks[stackName];
if (!make || !["ok", "throws", "prebuilt", "invalid"].includes(path)) {
  console.error(`usage: profile-driver.ts <${Object.keys(stacks).join("|")}> <ok|throws|prebuilt|invalid> [seconds]`);
  process.exit(1);
}
const invoker = make();
const call = {
  name: path === "throws" ? "fail" : path === "prebuilt" ? "failPrebuilt" : "add",
  arguments: path === "invalid" ? BAD_INPUT : ADD_INPUT,
};
console.log(await invoker.invoke(call));

const until = performance.now() + Number(seconds) * 1000;
const cpu = process.cpuUsage();
let calls = 0;
while (performance.now() < until) {
  for (let i = 0; i < 1000; i++) await invoker.invoke(call);
  calls += 1000;
}
const used = process.cpuUsage(cpu);
console.log(
  `${stackName} ${path}: ${calls} calls, ${(((used.user + used.system) * 1000) / calls).toFixed(0)} ns CPU per call`,
);
