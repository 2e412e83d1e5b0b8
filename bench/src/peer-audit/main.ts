// `pnpm peer-audit [runs]`: the CRM audit through the AI SDK, the OpenAI Agents SDK, LangChain and
// needlework, each with its default error handling; prints a table, then the summary line last.
import { formatPeerAudit, runPeerAudit } from "./audit.js";

const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 200);
const report = await runPeerAudit(runs);
for (const line of formatPeerAudit(report)) console.log(line);
