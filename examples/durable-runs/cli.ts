import "reflect-metadata";
import { DURABLE_RUNS_DEFAULTS, runDurableRuns } from "./main.js";
import { runWorker, type WorkerConfig } from "./worker.js";

// `pnpm --filter @needlework/examples run durable-runs` runs the coordinator; it forks this same file with `worker`.
// Smaller runs for tests: DURABLE_RUNS="runs=12,kills=1".
if (process.argv[2] === "worker") {
  await runWorker(JSON.parse(process.env["NEEDLEWORK_DURABLE_WORKER"] ?? "{}") as WorkerConfig);
} else {
  const overrides = Object.fromEntries(
    (process.env["DURABLE_RUNS"] ?? "")
      .split(",")
      .filter((pair) => pair.includes("="))
      .map((pair) => {
        const [key, value] = pair.split("=") as [string, string];
        return [key, key === "schema" || key === "databaseUrl" ? value : Number(value)];
      }),
  );
  const summary = await runDurableRuns({ ...DURABLE_RUNS_DEFAULTS, ...overrides });
  process.exitCode = summary.lost === 0 && summary.duplicateEffects === 0 ? 0 : 1;
}
