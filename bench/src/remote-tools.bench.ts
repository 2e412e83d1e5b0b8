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
const PAIRS = 1000; // alternating single calls for the paired figure
const ARGS = { text: "ping" };

const CASE = {
  raw: "MCP SDK Client.callTool (floor)",
  documented: "needlework documented stack (connectMcpServer)",
} as const;
const PAIRED = "paired: 1 + median(needlework − raw) / median(raw), alternating calls";

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

export default defineBenchmark({
  name: "remote-tools",
  description: `One call of a remote MCP tool (\`echo\`) over local Streamable HTTP, server in its own process: the MCP SDK's own Client.callTool beside the same call through needlework's documented stack (connectMcpServer, .addTools, usingResilience, usingToolResultMiddleware). Wall time per call, and a paired figure from ${PAIRS} alternating calls of each.`,
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
    // Single calls alternate (which side goes first alternates too), so a slow moment of the shared
    // machine falls on both sides alike; the medians of the per-call wall times are compared.
    const rawMs: number[] = [];
    const nwMs: number[] = [];
    const time = async (call: () => Promise<unknown>, into: number[]) => {
      const start = performance.now();
      await call();
      into.push(performance.now() - start);
    };
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2 === 0) {
        await time(raw, rawMs);
        await time(documented, nwMs);
      } else {
        await time(documented, nwMs);
        await time(raw, rawMs);
      }
    }
    await cleanup?.();
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const r = median(rawMs);
    // The median of the pairs' differences: a paired estimate the machine's swings cancel out of.
    const added = median(nwMs.map((n, i) => n - rawMs[i]!));
    return [
      {
        name: PAIRED,
        ratio: Number(((r + added) / r).toFixed(4)),
        addedPerCall: formatNs(added * 1e6),
        rawPerCall: formatNs(r * 1e6),
        needleworkPerCall: formatNs(median(nwMs) * 1e6),
        pairs: PAIRS,
      },
    ];
  },
  goals(_results, measurements) {
    const goals: Goal[] = [];
    const paired = measurements.find((m) => m.name === PAIRED);
    if (typeof paired?.["ratio"] === "number") {
      const ratio = paired["ratio"];
      goals.push({
        goal: "a remote call through the documented stack costs at most +5% of the raw MCP SDK client's wall time",
        measured: `${((ratio - 1) * 100).toFixed(1)}% (median added ${String(paired["addedPerCall"])} per pair over a median raw call of ${String(paired["rawPerCall"])}; needlework's median ${String(paired["needleworkPerCall"])})`,
        met: ratio <= 1.05,
      });
    }
    return goals;
  },
  notes: () => ({
    transport: "Streamable HTTP on 127.0.0.1, one session per client, server in a child process",
    tool: "echo({ text }) answering JSON text",
    stack: "connectMcpServer + .addTools + usingResilience() + usingToolResultMiddleware()",
  }),
});
