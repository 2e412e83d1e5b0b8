// node --conditions=@needlework/source --import tsx remote-tools/cli.ts [none|timeout|crash]
import { type Fault, runRemoteToolsExample } from "./main.js";

const fault = (process.argv[2] ?? "none") as Fault;
if (!["none", "timeout", "crash"].includes(fault)) {
  console.error(`unknown fault '${fault}': pick none, timeout or crash`);
  process.exit(2);
}
await runRemoteToolsExample(fault);
