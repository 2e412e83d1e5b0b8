import "reflect-metadata";
import { ADD_INPUT } from "./lib/add-tools.js";
import { documentedStack, bareInvoker } from "./lib/stacks.js";

// Profiles bursts of concurrent invokes (the event-loop benchmark's load):
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx src/profile-burst.ts documented 20
process.setSourceMapsEnabled(false);
const [stack = "documented", rounds = "20"] = process.argv.slice(2);
const tools = stack === "bare" ? bareInvoker() : documentedStack().tools;
const call = { name: "add", arguments: ADD_INPUT };
const times: number[] = [];
for (let r = 0; r < Number(rounds); r++) {
  const began = performance.now();
  await Promise.all(Array.from({ length: 10_000 }, () => tools.invoke(call)));
  times.push(Math.round(performance.now() - began));
}
console.log(`${stack}: burst ms`, times.join(" "));
