import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolOutcome } from "@needlework/core";
import { connectMcpServer } from "@needlework/mcp";
import { usingAgentFramework } from "@needlework/workflows";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { container } from "tsyringe";
import { defineBenchmark, type Goal, type Measurement } from "./lib/benchmark.js";
import { expectResult, formatNs, perCall } from "./lib/per-call.js";

// One call of a remote tool over local Streamable HTTP: the raw MCP SDK client's callTool (the floor)
// beside the same call through needlework's documented stack (connectMcpServer + .addTools +
// resilience + the tool-result middleware), both against one MCP SDK server in a child process.
const CALLS = 20; // calls per tinybench sample
const PAIRS = 60; // interleaved rounds for the paired figure
const ROUND = 20; // calls per side per round
const ARGS = { text: "ping" };

const CASE = {
  raw: "MCP SDK Client.callTool (floor)",
  documented: "needlework documented stack (connectMcpServer)",
} as const;
const PAIRED = "paired: needlework / raw MCP SDK, median of interleaved rounds";

const here = dirname(fileURLToPath(import.meta.url));
let server: { url: string; stop: () => void } | undefined;
let rawCall: (() => Promise<unknown>) | undefined;
let nwCall: (() => Promise<ToolOutcome>) | undefined;
let cleanup: (() => Promise<void>) | undefined;

async function startServer(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [join(here, "lib", "mcp-echo-server.mjs")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8");
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`bench MCP server exited (${code})`)));
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
      const found = /listening (\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
  });
  return { url, stop: () => child.kill() };
}

const said = (value: unknown): boolean =>
  typeof value === "object" && value !== null && (value as { said?: unknown }).said === "ping";

async function timeRound(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < ROUND; i++) await call();
  return performance.now() - start;
}

export default defineBenchmark({
  name: "remote-tools",
  description: `One call of a remote MCP tool (\`echo\`) over local Streamable HTTP, server in its own process: the MCP SDK's own Client.callTool beside the same call through needlework's documented stack (connectMcpServer, .addTools, usingResilience, usingToolResultMiddleware). Wall time per call, and a paired figure from ${PAIRS} interleaved rounds of ${ROUND} calls each.`,
  options: { time: 1500, iterations: 10, warmupTime: 300 },
  async cases() {
    server = await startServer();
    const client = new Client({ name: "bench", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await client.listTools(); // as a user does before calling, and as connectMcpServer does at connect
    const raw = () => client.callTool({ name: "echo", arguments: ARGS });
    const remote = await connectMcpServer("bench", { url: server.url });
    const tools = usingAgentFramework(container.createChildContainer())
      .addTools(remote.tools)
      .usingResilience()
      .usingToolResultMiddleware()
      .buildAgentFactory({ printDiagnostics: false }).tools;
    const documented = () => tools.invoke({ name: "bench_echo", arguments: ARGS });
    rawCall = raw;
    nwCall = documented;
    cleanup = async () => {
      await client.close();
      await remote.close();
      server?.stop();
    };
    await expectResult(CASE.raw, raw, (r) => {
      const first = (r as { content?: { type: string; text?: string }[] }).content?.[0];
      return first?.type === "text" && said(JSON.parse(first.text ?? "null"));
    });
    await expectResult(CASE.documented, documented, (o) => o.status === "ok" && said(o.data));
    return [perCall(CASE.raw, CALLS, raw, { floor: true }), perCall(CASE.documented, CALLS, documented)];
  },
  async measure(): Promise<Measurement[]> {
    const raw = rawCall;
    const documented = nwCall;
    if (!raw || !documented) return [];
    // Rounds alternate which side goes first, so a slow moment of the shared machine falls on both.
    const ratios: number[] = [];
    let rawMs = 0;
    let nwMs = 0;
    for (let i = 0; i < PAIRS; i++) {
      const first = i % 2 === 0;
      const a = first ? await timeRound(raw) : 0;
      const b = await timeRound(documented);
      const c = first ? 0 : await timeRound(raw);
      const r = a + c;
      rawMs += r;
      nwMs += b;
      ratios.push(b / r);
    }
    await cleanup?.();
    ratios.sort((x, y) => x - y);
    const median = ratios[Math.floor(ratios.length / 2)]!;
    return [
      {
        name: PAIRED,
        ratio: Number(median.toFixed(4)),
        rawPerCall: formatNs((rawMs / (PAIRS * ROUND)) * 1e6),
        needleworkPerCall: formatNs((nwMs / (PAIRS * ROUND)) * 1e6),
      },
    ];
  },
  goals(results, measurements) {
    const goals: Goal[] = [];
    const paired = measurements.find((m) => m.name === PAIRED);
    if (typeof paired?.["ratio"] === "number") {
      const ratio = paired["ratio"];
      goals.push({
        goal: "a remote call through the documented stack costs at most +5% of the raw MCP SDK client's wall time",
        measured: `${((ratio - 1) * 100).toFixed(1)}% (paired rounds: ${String(paired["needleworkPerCall"])} vs ${String(paired["rawPerCall"])} per call)`,
        met: ratio <= 1.05,
      });
    }
    const raw = results.get(CASE.raw)?.wallNsPerCall;
    const nw = results.get(CASE.documented)?.wallNsPerCall;
    if (raw !== undefined && nw !== undefined)
      goals.push({
        goal: "same, from the tinybench medians",
        measured: `${((nw / raw - 1) * 100).toFixed(1)}% (${formatNs(nw)} vs ${formatNs(raw)} per call)`,
        met: nw / raw <= 1.05,
      });
    return goals;
  },
  notes: () => ({
    transport: "Streamable HTTP on 127.0.0.1, one session per client, server in a child process",
    tool: "echo({ text }) answering JSON text",
    stack: "connectMcpServer + .addTools + usingResilience() + usingToolResultMiddleware()",
  }),
});
