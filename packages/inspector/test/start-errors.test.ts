// What startInspector() (and the command line over it) says when it cannot serve: a busy port, a
// database that does not exist, a store never migrated. Each is one InspectorStartError with a code,
// a message that says what to do, and never the driver's message.
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { PostgresStore } from "@needlework/postgres";
import { InMemoryRunStore } from "@needlework/workflows";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InspectorStartError, startInspector } from "../src/index.js";
import { DATABASE_URL, describePostgres } from "../../postgres/src/test-database.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

function runBin(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.once("exit", (code) => resolve({ code, output }));
  });
}

/** The test database's URL with another database name (one that does not exist). */
function urlOfMissingDatabase(): { url: string; name: string } {
  const name = `nw_missing_${randomBytes(4).toString("hex")}`;
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), name };
}

describe("startInspector on a busy port", () => {
  let busy: Server;
  let port = 0;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it("rejects with PORT_IN_USE naming the port and the option, not a raw EADDRINUSE", async () => {
    const failed = await startInspector({ store: new InMemoryRunStore(), port }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(InspectorStartError);
    expect(failed).toMatchObject({ code: "PORT_IN_USE", port });
    const message = (failed as Error).message;
    expect(message).toContain(`port ${port} is already in use`);
    expect(message).toContain("`port`");
    expect(message).toContain("0 for any free one");
    expect((failed as Error & { cause?: { code?: string } }).cause?.code).toBe("EADDRINUSE");
  });
});

describePostgres("startInspector over a PostgreSQL database that does not exist, or was never migrated", () => {
  it("rejects with DATABASE_NOT_FOUND, saying to create it, never quoting the driver", async () => {
    const { url, name } = urlOfMissingDatabase();
    const store = new PostgresStore({ connectionString: url });
    try {
      const failed = await startInspector({ store, port: 0 }).catch((e: unknown) => e);
      expect(failed).toMatchObject({ name: "InspectorStartError", code: "DATABASE_NOT_FOUND" });
      expect((failed as Error).message).toContain("does not exist");
      expect((failed as Error).message).toContain("createdb");
      expect((failed as Error).message).not.toContain(name);
    } finally {
      await store.close();
    }
  });

  it("rejects with STORE_NOT_MIGRATED naming migrate() and the schema", async () => {
    const schema = `nw_never_${randomBytes(4).toString("hex")}`;
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema });
    try {
      const failed = await startInspector({ store, port: 0 }).catch((e: unknown) => e);
      expect(failed).toMatchObject({ name: "InspectorStartError", code: "STORE_NOT_MIGRATED" });
      expect((failed as Error).message).toContain("store.migrate()");
      expect((failed as Error).message).toContain(schema);
    } finally {
      await store.close();
    }
  });

  it("the command line names a missing database (DATABASE_NOT_FOUND) and an unmigrated schema, not STORE_FAILED", async () => {
    const missing = await runBin(["--database-url", urlOfMissingDatabase().url, "--port", "0"]);
    expect(missing.code).toBe(1);
    expect(missing.output).toContain("DATABASE_NOT_FOUND");
    expect(missing.output).toContain("createdb");
    expect(missing.output).not.toMatch(/STORE_FAILED|\n\s+at /);
    const schema = `nw_never_${randomBytes(4).toString("hex")}`;
    const unmigrated = await runBin(["--database-url", DATABASE_URL, "--schema", schema, "--port", "0"]);
    expect(unmigrated.code).toBe(1);
    expect(unmigrated.output).toContain(`schema "${schema}" (STORE_NOT_MIGRATED)`);
    expect(unmigrated.output).toContain("store.migrate()");
  });
});
