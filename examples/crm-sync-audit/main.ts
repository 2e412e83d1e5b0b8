import "reflect-metadata";
import { formatAudit, runAudit } from "./audit.js";

/**
 * Runs the 500-run audit and prints the table.
 *
 * @example
 * ```ts
 * await runCrmSyncAudit();
 * ```
 */
export async function runCrmSyncAudit(print: (line: string) => void = console.log, runs = 500) {
  const started = performance.now();
  const report = await runAudit({ runs, seed: 2024 });
  for (const line of formatAudit(report)) print(line);
  print(`  (${report.runs * 2} agent runs in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  return report;
}

