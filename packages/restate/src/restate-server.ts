import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, openSync, closeSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { arch, platform, tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Options of {@link startRestateServer}.
 *
 * @example
 * ```ts
 * const server = await startRestateServer({ partitions: 2, startTimeoutMs: 30_000 });
 * ```
 */
export interface RestateServerOptions {
  /** The `restate-server` binary; default: the one `@restatedev/restate-server` installed for this platform. */
  readonly binary?: string;
  /** Where the server keeps its journal (RocksDB); default: a fresh temporary folder, removed by `stop()`. */
  readonly baseDir?: string;
  /** Partitions of the new cluster (default 2: a test needs few, and each costs memory). */
  readonly partitions?: number;
  /** How long to wait for the admin API to answer (default 60 s). */
  readonly startTimeoutMs?: number;
}

/**
 * A Restate server this process spawned on free local ports: its URLs, and the controls a chaos test
 * needs (kill it with a signal, start it again on the same ports and journal).
 *
 * @example
 * ```ts
 * const server = await startRestateServer();
 * await server.register("http://127.0.0.1:9080");
 * server.kill("SIGKILL");
 * await server.restart();
 * await server.stop();
 * ```
 */
export interface RestateServer {
  /** Where clients start and resolve workflows (`@restatedev/restate-sdk-clients` `connect({ url })`). */
  readonly ingressUrl: string;
  /** The admin API (deployments, invocations, `/query`). */
  readonly adminUrl: string;
  /** The server's journal folder. */
  readonly baseDir: string;
  /** The running server's process id (`undefined` while it is down). */
  readonly pid: number | undefined;
  /** Registers (or re-registers, forced) a service endpoint served at `endpointUrl`. */
  register(endpointUrl: string): Promise<void>;
  /** Sends `signal` to the server (`SIGKILL` for a crash) and waits for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server again on the same ports and journal (after `kill`). */
  restart(): Promise<void>;
  /** Stops the server and removes its journal folder if this helper made it. */
  stop(): Promise<void>;
}

/** The binary `@restatedev/restate-server` installed for this machine, or `undefined` when it is not installed. */
export function restateServerBinary(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const launcher = require.resolve("@restatedev/restate-server/package.json");
    // The launcher's own script resolves its platform package the same way; spawning the binary directly
    // makes `kill("SIGKILL")` kill the server itself, not a Node wrapper around it.
    return createRequire(launcher).resolve(`@restatedev/restate-server-${platform()}-${arch()}/bin/restate-server`);
  } catch {
    return undefined;
  }
}

/** A TCP port no one listens on now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    return response.ok;
  } catch {
    return false;
  }
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not answer within ${timeoutMs} ms`);
}

/**
 * Spawns a Restate server (the binary npm ships as `@restatedev/restate-server`, a dev dependency of
 * this package) on free local ports with a fresh journal, and waits until its ingress and admin API
 * answer. For tests and examples: a production server is run and configured by its operator.
 *
 * @example
 * ```ts
 * import { startRestateServer } from "@needlework/restate/testing";
 *
 * const server = await startRestateServer();
 * try {
 *   await server.register(endpointUrl);
 * } finally {
 *   await server.stop();
 * }
 * ```
 */
export async function startRestateServer(options: RestateServerOptions = {}): Promise<RestateServer> {
  const binary = options.binary ?? restateServerBinary();
  if (binary === undefined) {
    throw new Error(
      "no restate-server binary: install @restatedev/restate-server (npm i -D @restatedev/restate-server)",
    );
  }
  const ownsDir = options.baseDir === undefined;
  const baseDir = options.baseDir ?? mkdtempSync(join(tmpdir(), "needlework-restate-"));
  const [ingress, admin, fabric] = [await freePort(), await freePort(), await freePort()];
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const adminUrl = `http://127.0.0.1:${admin}`;
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const log = openSync(join(baseDir, "server.log"), "a");
    child = spawn(binary, ["--no-logo"], {
      stdio: ["ignore", log, log],
      env: {
        ...process.env,
        RESTATE_BASE_DIR: baseDir,
        RESTATE_NODE_NAME: "needlework-test",
        RESTATE_LISTEN_MODE: "tcp",
        RESTATE_DEFAULT_NUM_PARTITIONS: String(options.partitions ?? 2),
        RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
        RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
        RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
        RESTATE_LOG_FILTER: "warn",
        RESTATE_LOG_DISABLE_ANSI_CODES: "true",
      },
    });
    closeSync(log);
    await until(
      async () => {
        if (child?.exitCode !== null || child.signalCode !== null) {
          throw new Error(`restate-server exited while starting (its log: ${join(baseDir, "server.log")})`);
        }
        return (await answers(`${adminUrl}/health`)) && (await answers(`${ingressUrl}/restate/health`));
      },
      timeoutMs,
      "restate-server",
    );
  };

  const kill = async (signal: NodeJS.Signals = "SIGTERM"): Promise<void> => {
    const running = child;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill(signal);
    await exited;
  };

  await launch();
  return {
    ingressUrl,
    adminUrl,
    baseDir,
    get pid() {
      return child?.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    async register(endpointUrl) {
      const response = await fetch(`${adminUrl}/deployments`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ uri: endpointUrl, force: true }),
      });
      if (!response.ok) throw new Error(`Restate refused the deployment at ${endpointUrl}: ${response.status}`);
    },
    kill,
    async restart() {
      await kill("SIGKILL");
      await launch();
    },
    async stop() {
      await kill("SIGTERM");
      if (ownsDir) rmSync(baseDir, { recursive: true, force: true });
    },
  };
}
