// `pnpm peer-audit [runs]`: the fair peer audit (DESIGN, "Failures as real tools produce them"):
// the AI SDK, the OpenAI Agents SDK, LangChain (with and without toolRetryMiddleware) and needlework
// at their documented defaults, three readers, the field report's scenarios; tables, then the
// summary line last.
import { formatPeerAudit, runPeerAudit } from "./audit.js";

const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 200);
const report = await runPeerAudit(runs);
for (const line of formatPeerAudit(report)) console.log(line);
