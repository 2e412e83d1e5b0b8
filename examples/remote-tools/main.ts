// An agent over an MCP Toolbox toolset on PostgreSQL: the Toolbox server's tools become needlework
// tools with `connectMcpServer`, and every call keeps the envelope, retries and the injection policy.
// Pick a fault to see what the model reads when the server or the database misbehaves:
//   none      the calls succeed
//   timeout   the database cancels a slow report (statement_timeout, SQLSTATE 57014)
//   crash     the Toolbox server is killed before the first call, and started again for the next turn
import "reflect-metadata";
import { randomBytes } from "node:crypto";
import { connectMcpServer } from "@needlework/mcp";
import { ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";
import pg from "pg";
import { container } from "tsyringe";
import { startToolboxServer } from "./toolbox-server.js";

/** The faults a reader can trigger. */
export type Fault = "none" | "timeout" | "crash";

const DATABASE_URL = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

/** A tools.yaml in Toolbox's flat format: a postgres source, three tools and a toolset. */
function toolsYaml(schema: string): string {
  const db = new URL(DATABASE_URL);
  const source = (name: string, extra: string[] = []) =>
    [
      "kind: source",
      `name: ${name}`,
      "type: postgres",
      `host: ${db.hostname}`,
      `port: ${db.port || "5432"}`,
      `database: ${db.pathname.slice(1)}`,
      `user: ${decodeURIComponent(db.username) || "postgres"}`,
      // Toolbox wants a password; a server that trusts local connections ignores it.
      `password: ${decodeURIComponent(db.password) || "unused"}`,
      ...extra,
    ].join("\n");
  return [
    source("orders_db"),
    source("reports_db", ["queryParams:", '  options: "-c statement_timeout=300"']),
    [
      "kind: tool",
      "name: get_order",
      "type: postgres-sql",
      "source: orders_db",
      "description: Looks up an order by its id.",
      `statement: SELECT id, status, total FROM ${schema}.orders WHERE id = $1`,
      "parameters:",
      "  - name: id",
      "    type: integer",
      "    description: The order id.",
    ].join("\n"),
    [
      "kind: tool",
      "name: slow_report",
      "type: postgres-sql",
      "source: reports_db",
      "description: Sums every order (slow).",
      `statement: SELECT sum(total) AS revenue, pg_sleep(1)::text AS waited FROM ${schema}.orders`,
    ].join("\n"),
    "kind: toolset\nname: orders\ntools: [get_order, slow_report]",
  ].join("\n---\n");
}

/** What the model asks for under each fault, then its answer. */
function script(fault: Fault): ConstructorParameters<typeof ScriptedChatClient>[0] {
  const first =
    fault === "timeout"
      ? { name: "orders_slow_report", arguments: {} }
      : { name: "orders_get_order", arguments: { id: 1 } };
  return [
    { toolCalls: [first] },
    { toolCalls: [{ name: "orders_get_order", arguments: { id: 2 } }] },
    { text: "Done." },
  ];
}

/**
 * Creates a schema with two orders, serves it with Toolbox, runs the agent once with `fault`, prints
 * what the model read for each call, and cleans up.
 */
export async function runRemoteToolsExample(fault: Fault, print: (line: string) => void = console.log): Promise<void> {
  const schema = `remote_tools_${randomBytes(4).toString("hex")}`;
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  await db.query(`CREATE SCHEMA ${schema}`);
  const toolbox = await startToolboxServer(toolsYaml(schema)).catch(async (error: unknown) => {
    await db.query(`DROP SCHEMA ${schema} CASCADE`);
    await db.end();
    throw error;
  });
  try {
    await db.query(`CREATE TABLE ${schema}.orders (id int PRIMARY KEY, status text, total numeric)`);
    await db.query(`INSERT INTO ${schema}.orders VALUES (1, 'shipped', 40), (2, 'open', 25)`);
    // Toolbox calls every SQL tool destructive; get_order only reads, and we say so.
    const orders = await connectMcpServer(
      "orders",
      { url: toolbox.url("orders") },
      { tools: { get_order: { readOnly: true } } },
    );
    const factory = usingAgentFramework(container.createChildContainer())
      .addTools(orders.tools)
      .usingResilience({ retry: { maxAttempts: 2, baseDelayMs: 50 } })
      .usingToolResultMiddleware()
      .buildAgentFactory({ printDiagnostics: false });
    const agent = factory.createAgent({
      name: "orders",
      instructions: "Answer questions about orders.",
      chatClient: new ScriptedChatClient(script(fault)),
      // The crash fault: the server is killed before the first turn's call, and back for the second.
      onIterationStart: async ({ iteration }) => {
        if (fault === "crash" && iteration === 1) await toolbox.crash();
        if (fault === "crash" && iteration === 2) await toolbox.start();
      },
    });
    const run = await agent.run("How are orders 1 and 2?");
    const read = new Map(run.messages.flatMap((m) => (m.role === "tool" ? [[m.toolCallId, m.content] as const] : [])));
    for (const call of run.calls) {
      print(
        `${call.tool}: ${call.status}${call.errorCode ? ` ${call.errorCode}` : ""} (${call.attempts} attempt${call.attempts === 1 ? "" : "s"})`,
      );
      print(`  model read: ${(read.get(call.callId) ?? "").replace(/,"metadata":\{.*\}\}$/, "}")}`);
    }
    print(`run: ${run.status}`);
    await orders.close();
  } finally {
    await toolbox.stop();
    await db.query(`DROP SCHEMA ${schema} CASCADE`);
    await db.end();
  }
}
