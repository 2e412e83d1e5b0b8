// The remote-tools example, run as a reader runs it, under each fault: the real Toolbox server (its
// npm binary) over the local PostgreSQL.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { expect, it } from "vitest";
import { cannotRun } from "../../test/support/cannot-run.js";
import { describePostgres } from "../../packages/postgres/src/test-database.js";
import { runRemoteToolsExample } from "./main.js";

function toolboxInstalled(): boolean {
  try {
    const fromServer = createRequire(createRequire(import.meta.url).resolve("@toolbox-sdk/server/package.json"));
    const pkg = fromServer.resolve(`@toolbox-sdk/server-${process.platform}-${process.arch}/package.json`);
    return existsSync(pkg);
  } catch {
    return false;
  }
}

const lines = async (fault: "none" | "timeout" | "crash") => {
  const printed: string[] = [];
  await runRemoteToolsExample(fault, (line) => printed.push(line));
  return printed.filter((line) => !line.startsWith("  "));
};

if (!toolboxInstalled())
  cannotRun("the remote-tools example", "no Toolbox binary: `@toolbox-sdk/server` did not install one");
else
  describePostgres("the remote-tools example", () => {
    it("runs the calls, and under each fault the model reads a clear failure while the run goes on", async () => {
      expect(await lines("none")).toEqual([
        "orders_get_order: ok (1 attempt)",
        "orders_get_order: ok (1 attempt)",
        "run: completed",
      ]);
      expect(await lines("timeout")).toEqual([
        "orders_slow_report: error TIMEOUT (2 attempts)",
        "orders_get_order: ok (1 attempt)",
        "run: completed_with_failures",
      ]);
      expect(await lines("crash")).toEqual([
        "orders_get_order: error UPSTREAM_UNAVAILABLE (2 attempts)",
        "orders_get_order: ok (1 attempt)",
        "run: completed_with_failures",
      ]);
    }, 60_000);
  });
