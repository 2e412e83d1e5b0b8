// Starts the MCP Toolbox for Databases server (the binary npm installs with `@toolbox-sdk/server`)
// over a tools.yaml written to a temporary folder, on a port the system picks, and stops it again.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A Toolbox server this program started. */
export interface ToolboxServer {
  /** The MCP endpoint of a toolset: `http://127.0.0.1:<port>/mcp/<toolset>`. */
  readonly url: (toolset: string) => string;
  /** Kills the server at once (SIGKILL), as a crash would. */
  crash(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  stop(): Promise<void>;
}

/** Where npm put the Toolbox binary for this platform (`@toolbox-sdk/server` depends on it). */
function binary(): string {
  const fromServer = createRequire(createRequire(import.meta.url).resolve("@toolbox-sdk/server/package.json"));
  const pkg = fromServer.resolve(`@toolbox-sdk/server-${process.platform}-${process.arch}/package.json`);
  return join(dirname(pkg), "bin", "toolbox");
}

function unusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Writes `yaml` to a temporary folder and serves it with Toolbox until `stop()`. */
export async function startToolboxServer(yaml: string): Promise<ToolboxServer> {
  const folder = mkdtempSync(join(tmpdir(), "remote-tools-"));
  writeFileSync(join(folder, "tools.yaml"), yaml);
  const port = await unusedPort();
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const args = ["--config", join(folder, "tools.yaml"), "--port", String(port), "--disable-version-check"];
      // The Toolbox creates ~/.cache/snowflake at start: its home is this server's folder instead.
      const env = { ...process.env, HOME: folder };
      const started = spawn(binary(), args, { detached: true, stdio: ["ignore", "pipe", "pipe"], env });
      child = started;
      let log = "";
      const hear = (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes("Server ready to serve")) resolve();
      };
      started.stdout?.on("data", hear);
      started.stderr?.on("data", hear);
      started.once("exit", (code) => reject(new Error(`Toolbox exited (${code}):\n${log.slice(-2000)}`)));
    });
  const crash = async () => {
    const running = child;
    if (running?.pid === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    process.kill(-running.pid, "SIGKILL");
    await exited;
  };
  await start();
  return {
    url: (toolset) => `http://127.0.0.1:${port}/mcp/${toolset}`,
    crash,
    start,
    stop: async () => {
      await crash();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
