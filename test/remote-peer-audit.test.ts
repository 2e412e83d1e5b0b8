// `pnpm peer-audit`'s "remote tools" section, run once as CI runs it: the real MCP Toolbox server
// over PostgreSQL through needlework and four peers' MCP clients at their documented defaults. It
// checks what a reader of the table relies on: every client ran every turn against the same server,
// the figures come from each client's own channel, and needlework's documented stack lets no
// failure pass silently, loses no turn, writes nothing twice and runs no injected effect.
import { expect, it } from "vitest";
import {
  formatRemoteAudit,
  REMOTE_READERS,
  REMOTE_SCENARIOS,
  runRemoteAudit,
} from "../bench/src/peer-audit/remote/audit.js";
import { cannotStart } from "../bench/src/peer-audit/remote/world.js";
import { cannotRun } from "./support/cannot-run.js";

const why = await cannotStart();
if (why !== undefined) cannotRun("the remote-tools peer audit", why);
else
  it("runs the same Toolbox server and faults through every client and reader", { timeout: 300_000 }, async () => {
    const report = await runRemoteAudit();
    if ("skipped" in report) throw new Error(`skipped: ${report.skipped}`);
    expect(report.rows.map((r) => r.client)).toEqual([
      "needlework",
      "needlework, no injection policy",
      "OpenAI Agents JS",
      "AI SDK @ai-sdk/mcp",
      "LangChain mcp-adapters",
      "@toolbox-sdk/core ToolboxClient",
    ]);
    const turns = REMOTE_SCENARIOS.length * REMOTE_READERS.length;
    for (const row of report.rows) expect(row.turns).toBe(turns);

    const [needlework, unguarded, openai, aiSdk, langchain, toolbox] = report.rows;
    expect(needlework).toMatchObject({
      silent: { careful: 0, hurried: 0, flag: 0 },
      failures: 5,
      falseAlarms: { careful: 0, hurried: 0, flag: 0 },
      lost: 0,
      duplicates: 0,
      injected: 0,
    });
    // Without the injection policy the envelope still lets no failure pass silently, but the planted
    // refund runs, and a reader of markers sends the lost refund again (its envelope says retriable).
    expect(unguarded).toMatchObject({ silent: { careful: 0, hurried: 0, flag: 0 }, lost: 0 });
    expect(unguarded!.injected).toBeGreaterThan(0);
    // Each peer read through its own channel: OpenAI Agents hands the model no error marker at all,
    // LangChain's ToolNode marks a thrown ToolException, ToolboxClient throws to its caller.
    expect(openai!.silent.flag).toBe(openai!.failures);
    expect(langchain!.samples["SQL error (42P01)"]).toContain("ToolException");
    expect(aiSdk!.samples["SQL error (42P01)"]).toContain("SQLSTATE 42P01");
    expect(toolbox!.lost).toBeGreaterThan(0);
    // The planted instruction reached every peer's model as plain data, and the refund it asks for ran.
    for (const peer of [openai, aiSdk, langchain, toolbox]) expect(peer!.injected).toBeGreaterThan(0);

    const lines = formatRemoteAudit(report);
    expect(lines[1]).toMatch(/^Remote tools \(MCP Toolbox over PostgreSQL/);
    expect(lines.filter((line) => line.startsWith("| "))).toHaveLength(2 + report.rows.length);
  });
