import "reflect-metadata";
import { runEngineChaos } from "./chaos.js";
import { dbosWorker, type EngineWorkerConfig, restateWorker } from "./workers.js";

// `npx -y pnpm@10 --filter @needlework/examples run engines dbos` (or `restate`): 30 runs of 4 tool calls
// inside the engine, started in waves, the worker killed with SIGKILL while a tool is in flight (on Restate,
// every 3rd kill is of the server) and restarted each time until every run finished; then the guarantees,
// checked from the effects table. The coordinator forks this same file with `worker <engine>`.
// Smaller runs: ENGINES="runs=6,kills=2".
if (process.argv[2] === "worker") {
  const config = JSON.parse(process.env["NEEDLEWORK_ENGINE_WORKER"] ?? "{}") as EngineWorkerConfig;
  await (process.argv[3] === "dbos" ? dbosWorker(config) : restateWorker(config));
} else {
  const engine = process.argv[2] === "restate" ? "restate" : "dbos";
  const overrides = Object.fromEntries(
    (process.env["ENGINES"] ?? "")
      .split(",")
      .filter((pair) => pair.includes("="))
      .map((pair) => pair.split("=") as [string, string])
      .map(([key, value]) => [key, Number(value)]),
  );
  const summary = await runEngineChaos({
    engine,
    databaseUrl: process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test",
    runs: 30,
    kills: 10,
    ...overrides,
    log: (line) => console.log(line),
  });
  const { violations, ...counts } = summary;
  console.log(JSON.stringify(counts));
  for (const violation of violations) console.log(`broken: ${violation}`);
  console.log(violations.length === 0 ? "every guarantee held" : `${violations.length} guarantees broken`);
  process.exitCode = violations.length === 0 ? 0 : 1;
}
