// `pnpm injection-audit`: an AgentDojo-style audit of usingInjectionPolicy. Four tool suites (mail,
// calendar, banking, files), benign tasks of two kinds, injections planted in untrusted results, and
// a scripted model that obeys whatever it reads. Prints a table, then the summary line last.
import { formatInjectionAudit, runInjectionAudit } from "./audit.js";

// The adversarial cases (lookalike IBANs, echo laundering, a sub-agent, MCP sessions, eviction
// past 10,000 runs) run under every mode too.
const reports = await runInjectionAudit({ adversarialFlood: 10_001 });
for (const line of formatInjectionAudit(reports)) console.log(line);
