// `pnpm peer-audit [runs] [--seed N] [--sections N] [--by-client] [--no-remote]`: the fair peer
// audit (DESIGN, "Failures as real tools produce them"): the AI SDK, the OpenAI Agents SDK, LangChain
// (with and without toolRetryMiddleware) and needlework at their documented defaults, three
// readers, the field report's scenarios plus a held-out fault set and a false-alarm corpus; tables,
// then the sections (sections.ts: each harness choice varied on its own, over the first N plans, 40
// by default, 0 for none), then the "remote tools" section (remote/audit.ts; `--no-remote` leaves it
// out), then the summary line last.
// `--by-client` adds a table per HTTP client (careful reader) before the summary line.
import { formatByClient, formatPeerAudit, runPeerAudit } from "./audit.js";
import { closeLoopback } from "./loopback.js";
import { remoteToolsSection } from "./remote/audit.js";
import { SECTIONS } from "./sections.js";

const args = process.argv.slice(2);
const option = (name: string): number | undefined => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : Number(args[at + 1]);
};
const runs = Number(args.find((a, i) => /^\d+$/.test(a) && !args[i - 1]?.startsWith("--")) ?? 200);
const seed = option("--seed") ?? 2026;
const sectionRuns = Math.min(runs, option("--sections") ?? 40);
const report = await runPeerAudit(runs, seed);
const lines = formatPeerAudit(report);
const last = lines.pop()!;
if (args.includes("--by-client")) lines.push(...formatByClient(report), "");
if (sectionRuns > 0)
  for (const section of SECTIONS) lines.push(...(await section.lines({ runs: sectionRuns, seed, report })), "");
if (!args.includes("--no-remote")) lines.push(...(await remoteToolsSection()), "");
await closeLoopback();
for (const line of [...lines, last]) console.log(line);
