// Test support (not exported): the MCP Toolbox for Databases server, from its npm package (a dev
// dependency: `@toolbox-sdk/server` and its platform binary), serving a tools.yaml over the local
// PostgreSQL on a free port, in a process group of its own that the test stops.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The Toolbox binary the npm package installed for this platform, or `undefined`. */
export function toolboxBinary(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const fromServer = createRequire(require.resolve("@toolbox-sdk/server/package.json"));
    const platform = `@toolbox-sdk/server-${process.platform}-${process.arch}`;
    const binary = join(dirname(fromServer.resolve(`${platform}/package.json`)), "bin", "toolbox");
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

/** A port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The database the tools read, from `DATABASE_URL` (as the PostgreSQL tests use it). */
function database(url: string): { host: string; port: string; database: string; user: string } {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: parsed.port || "5432",
    database: parsed.pathname.slice(1) || "postgres",
    user: decodeURIComponent(parsed.username) || "postgres",
  };
}

/**
 * A `tools.yaml` in Toolbox's flat format: a `postgres` source (Toolbox wants a non-empty password;
 * under trust authentication any works) and one slow source whose connections carry
 * `statement_timeout`, then the given tool and toolset documents.
 */
export function toolsYaml(databaseUrl: string, documents: readonly string[]): string {
  const db = database(databaseUrl);
  const source = (name: string, extra = "") =>
    [
      "kind: source",
      `name: ${name}`,
      "type: postgres",
      `host: ${db.host}`,
      `port: ${db.port}`,
      `database: ${db.database}`,
      `user: ${db.user}`,
      "password: unused-under-trust",
      extra,
    ]
      .filter((line) => line !== "")
      .join("\n");
  return [source("pg"), source("pg_timeout", 'queryParams:\n  options: "-c statement_timeout=300"'), ...documents].join(
    "\n---\n",
  );
}

/** A running Toolbox: its URL, its log so far, and what a test does to it. */
export interface RunningToolbox {
  readonly port: number;
  readonly file: string;
  url(toolset?: string): string;
  /** Waits until the log holds `count` lines matching `pattern`. */
  logged(pattern: RegExp, count?: number): Promise<void>;
  /** Kills the server's process group at once (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port and file, and waits until it serves. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts Toolbox on a free port over `yaml` (in a temporary folder) and waits until it serves. */
export async function startToolbox(binary: string, yaml: string): Promise<RunningToolbox> {
  const folder = mkdtempSync(join(tmpdir(), "nw-toolbox-"));
  const file = join(folder, "tools.yaml");
  writeFileSync(file, yaml);
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = "";
  let listeners: (() => void)[] = [];
  const launch = async (): Promise<void> => {
    log = "";
    const started = spawn(
      binary,
      [
        "--config",
        file,
        "--port",
        String(port),
        "--address",
        "127.0.0.1",
        "--disable-version-check",
        "--poll-interval",
        "1",
      ],
      // The Toolbox creates ~/.cache/snowflake at start: its home is the test's folder instead.
      {
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, HOME: folder },
      },
    );
    child = started;
    const hear = (chunk: Buffer) => {
      log += chunk.toString();
      for (const listener of listeners) listener();
    };
    started.stdout?.on("data", hear);
    started.stderr?.on("data", hear);
    const exited = new Promise<never>((_, reject) =>
      started.once("exit", (code) => reject(new Error(`Toolbox exited (${code}) before serving:\n${log}`))),
    );
    await Promise.race([running.logged(/Server ready to serve/), exited]);
  };
  const running: RunningToolbox = {
    port,
    file,
    url: (toolset) => `http://127.0.0.1:${port}/mcp${toolset === undefined ? "" : `/${toolset}`}`,
    logged: (pattern, count = 1) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if ((log.match(new RegExp(pattern.source, "g")) ?? []).length < count) return;
          listeners = listeners.filter((l) => l !== check);
          resolve();
        };
        listeners.push(check);
        check();
      }),
    kill: async () => {
      const current = child;
      if (current?.pid === undefined || current.exitCode !== null || current.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
      process.kill(-current.pid, "SIGKILL");
      await exited;
    },
    restart: () => launch(),
    stop: async () => {
      await running.kill();
      rmSync(folder, { recursive: true, force: true });
    },
  };
  await launch();
  return running;
}
