// Binary MCP content as artifacts: an MCP server (made with the MCP SDK, over Streamable HTTP) answers
// with a chart as a PNG image; with `usingArtifacts()` on, the bytes go to the run's artifact store
// and the model reads what came back (type, size, the artifact's id), never base64. The model then
// tries `read_artifact` on it and is told it is binary.
// npx -y pnpm@10 --filter @needlework/examples mcp-binary
import "reflect-metadata";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChatRequest, ScriptedChatClient } from "@needlework/core";
import { InMemoryArtifactStore, InMemoryRunStore } from "@needlework/durable";
import { connectMcpServer } from "@needlework/mcp";
import { usingAgentFramework } from "@needlework/workflows";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { container } from "tsyringe";

/** A PNG's signature and 4 KB of pixels: what a chart tool sends, base64 in the MCP result. */
export const CHART = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(4096, 9),
]);

/** An MCP server with one tool, `quarter_chart`, on 127.0.0.1 (a free port). */
async function startChartServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    const server = new McpServer({ name: "charts", version: "1.0.0" });
    server.registerTool("quarter_chart", { description: "The quarter's revenue as a chart.", inputSchema: {} }, () => ({
      content: [
        { type: "text", text: "Revenue by month, Q3." },
        { type: "image", data: CHART.toString("base64"), mimeType: "image/png" },
      ],
    }));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Runs the example; `print` gets each line (the console by default). */
export async function runMcpBinaryExample(print: (line: string) => void = console.log): Promise<void> {
  const server = await startChartServer();
  const charts = await connectMcpServer(
    "charts",
    { url: server.url },
    { tools: { quarter_chart: { readOnly: true } } },
  );
  try {
    const artifacts = new InMemoryArtifactStore();
    const factory = usingAgentFramework(container.createChildContainer())
      .addTools(charts.tools)
      .usingResilience()
      .usingToolResultMiddleware()
      .usingArtifacts({ store: artifacts })
      .buildAgentFactory({ printDiagnostics: false });
    const tool = (request: ChatRequest) => request.messages.filter((m) => m.role === "tool");
    const chatClient = new ScriptedChatClient([
      { toolCalls: [{ name: "charts_quarter_chart", arguments: {} }] },
      (request) => {
        const [, image] = JSON.parse(tool(request)[0]!.content).data;
        return { toolCalls: [{ name: "read_artifact", arguments: { id: image.artifact.id, offset: 0, limit: 10 } }] };
      },
      { text: "Here is the Q3 chart (a 4 KB PNG, kept for you in the run)." },
    ]);
    const agent = factory.createAgent({
      name: "analyst",
      instructions: "Show charts.",
      chatClient,
      store: new InMemoryRunStore(),
    });
    const run = await agent.run("Show me the quarter.");
    const [chart, page] = tool(chatClient.requests.at(-1)!);
    const [caption, image] = JSON.parse(chart!.content).data;
    print(
      `model read: ${JSON.stringify(caption)} and ${JSON.stringify({ ...image, artifact: { ...image.artifact, id: `${image.artifact.id.slice(0, 12)}…` } })}`,
    );
    print(`base64 in the model's context: ${chart!.content.includes(CHART.subarray(0, 16).toString("base64"))}`);
    const read = JSON.parse(page!.content);
    print(`read_artifact: ${read.error_code} (${read.message.replace(/'[0-9a-f]{12}…'/, "'…'")})`);
    const [stored] = await artifacts.list(run.runId);
    const bytes = Buffer.from((await artifacts.get(run.runId, stored!.id))!.content, "base64");
    print(`stored: ${stored!.mediaType}, ${bytes.length} bytes, the same bytes: ${bytes.equals(CHART)}`);
    print(`run: ${run.status}`);
  } finally {
    await charts.close();
    await server.close();
  }
}
