// `pnpm injection-audit`: an AgentDojo-style audit of usingInjectionPolicy. Four tool suites (mail,
// calendar, banking, files), benign tasks of two kinds, injections planted in untrusted results, and
// a scripted model that obeys whatever it reads. Prints a table, then the summary line last.
import { formatInjectionAudit, runInjectionAudit } from "./audit.js";

const reports = await runInjectionAudit();
for (const line of formatInjectionAudit(reports)) console.log(line);
