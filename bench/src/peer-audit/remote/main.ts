// `npx -y pnpm@10 --filter @needlework/bench run peer-audit:remote`: the "remote tools" section of
// `pnpm peer-audit` alone.
import { remoteToolsSection } from "./audit.js";

for (const line of await remoteToolsSection()) console.log(line);
