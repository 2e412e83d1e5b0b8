import "reflect-metadata";
import { formatAudit, runAudit } from "./audit.js";
import { createProgress, type ProgressOutput } from "./progress.js";

/**
 * Runs the 500-run audit and prints the table.
 *
 * @example
 * ```ts
 * await runCrmSyncAudit();
 * ```
 */
export async function runCrmSyncAudit(
  print: (line: string) => void = console.log,
  runs = 500,
  progressTo: ProgressOutput = process.stderr,
) {
  const started = performance.now();
  const progress = createProgress("CRM sync audit", runs, progressTo);
  const report = await runAudit({ runs, seed: 2024, onProgress: (done) => progress.update(done) });
  progress.done();
  for (const line of formatAudit(report)) print(line);
  print(`  (${report.runs * 2} agent runs in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  return report;
}
