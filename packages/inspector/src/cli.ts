#!/usr/bin/env node
// needlework-inspector: the run inspector over a PostgreSQL store (or a FileRunStore directory).
import "reflect-metadata";
import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import { closest } from "@needlework/core/internal";
import { FileRunStore } from "@needlework/durable";
import type { AgentStore } from "@needlework/durable";
import { startInspector } from "./inspector.js";
import { InspectorStartError, storeProblem } from "./start-error.js";

const USAGE = `Usage: needlework-inspector --database-url <url> [--schema needlework] [--port 4600] [--host 127.0.0.1] [--token <secret>]
       needlework-inspector --directory <FileRunStore directory> [--port 4600] ...

Serves a page over a needlework store's run journal and dead letters, on 127.0.0.1 unless --host says
otherwise (then --token, or NEEDLEWORK_INSPECTOR_TOKEN, is required). DATABASE_URL is read when
--database-url is not given. Payloads stored through a codec are shown encoded, and runs can be read
but not acted on: start the inspector from your own code with startInspector({ store, codec, agents })
to read them and to approve, resume or replay.`;

const OPTIONS = {
  "database-url": { type: "string" },
  schema: { type: "string" },
  directory: { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  token: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** A failure worth one line: the code of a store or network error, never its message (it may hold the URL). */
function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (error instanceof Error && (error.name === "InvalidOptionError" || code === "INVALID_OPTION"))
    return error.message;
  return typeof code === "string" && /^[A-Z0-9_]+$/.test(code) ? `failed with ${code}` : "failed";
}

/** `Unknown option '--databse-url'` → "did you mean --database-url?" (node's message never suggests). */
function suggestion(message: string): string {
  const given = /option '(--?[^'\s]+)'/.exec(message)?.[1];
  if (!given?.startsWith("--")) return "";
  const near = closest(given.slice(2).split("=")[0]!, Object.keys(OPTIONS));
  return near === undefined ? "" : ` Did you mean --${near}?`;
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: OPTIONS, strict: true }));
  } catch (error) {
    const message = (error as Error).message;
    console.error(`needlework-inspector: ${message.replace(/\.?$/, ".")}${suggestion(message)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const port = values.port === undefined ? 4600 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`needlework-inspector: --port must be an integer from 0 to 65535.\n\n${USAGE}`);
    return 2;
  }
  const databaseUrl = values["database-url"] ?? process.env.DATABASE_URL;
  if (values.directory === undefined && !databaseUrl) {
    console.error(`needlework-inspector: pass --database-url (or set DATABASE_URL), or --directory.\n\n${USAGE}`);
    return 2;
  }
  if (values.directory !== undefined) {
    let isDirectory = false;
    try {
      isDirectory = statSync(values.directory).isDirectory();
    } catch {
      // missing: said below
    }
    if (!isDirectory) {
      console.error(
        `needlework-inspector: --directory ${JSON.stringify(values.directory)} is not a directory. Pass the folder your FileRunStore writes to (new FileRunStore("<folder>")).`,
      );
      return 2;
    }
  }
  let store: AgentStore & { close?(): Promise<void> };
  if (values.directory !== undefined) store = new FileRunStore(values.directory);
  else {
    const { PostgresStore } = await import("@needlework/postgres");
    store = new PostgresStore({ connectionString: databaseUrl, ...(values.schema ? { schema: values.schema } : {}) });
  }
  try {
    // Fail now, with one line, rather than on the first page load.
    await store.journal.list({ limit: 1 });
  } catch (error) {
    console.error(
      `needlework-inspector: ${storeProblem(error, values.schema).message.replace(/^startInspector: /, "")}`,
    );
    await store.close?.();
    return 1;
  }
  const token = values.token ?? process.env.NEEDLEWORK_INSPECTOR_TOKEN;
  let inspector;
  try {
    // startInspector reads the store before it listens: a missing database or tables, a busy port,
    // each come back as one InspectorStartError whose message says what to do.
    inspector = await startInspector({
      store,
      port,
      ...(values.host ? { host: values.host } : {}),
      ...(token ? { token } : {}),
    });
  } catch (error) {
    console.error(
      InspectorStartError.isInstance(error) || error instanceof InspectorStartError
        ? `needlework-inspector: ${error.message.replace(/^startInspector: /, "")}`
        : `needlework-inspector: ${describe(error)}`,
    );
    await store.close?.();
    return 1;
  }
  console.log(`needlework inspector: open ${inspector.url}`);
  const stop = async (): Promise<void> => {
    await inspector.close();
    await store.close?.();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  return -1; // keep serving
}

main().then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`needlework-inspector: ${describe(error)}`);
    process.exitCode = 1;
  },
);
