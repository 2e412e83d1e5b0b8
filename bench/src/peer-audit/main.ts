// `pnpm peer-audit [runs]`: the fair peer audit (DESIGN, "Failures as real tools produce them"):
// the AI SDK, the OpenAI Agents SDK, LangChain (with and without toolRetryMiddleware) and needlework
// at their documented defaults, three readers, the field report's scenarios; tables, then the
// summary line last.
// `--by-client` adds a table per HTTP client (careful reader) before the summary line.
// The "remote tools" section (remote/audit.ts) runs before the summary line; `--no-remote` leaves it out.
import { formatByClient, formatPeerAudit, runPeerAudit } from "./audit.js";
import { remoteToolsSection } from "./remote/audit.js";

const args = process.argv.slice(2);
const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 200);
const report = await runPeerAudit(runs);
const lines = formatPeerAudit(report);
const last = lines.pop()!;
if (args.includes("--by-client")) lines.push(...formatByClient(report), "");
if (!args.includes("--no-remote")) lines.push(...(await remoteToolsSection()), "");
for (const line of [...lines, last]) console.log(line);
