import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cannotRun } from "../../test/support/cannot-run.js";
import { serveOrdersOverHttp } from "./server.js";

// The MCP Inspector CLI as a real third-party peer of examples/mcp, over stdio (it spawns the built
// server) and Streamable HTTP (the server from source, in this process). The Inspector needs
// Node 22.19+. The stdio run builds its own copy of the server (examples/mcp/dist), so it depends on
// no other test having built the examples.
const run = promisify(execFile);
const launcher = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js", import.meta.url),
);
const examples = fileURLToPath(new URL("..", import.meta.url));
const builtServer = fileURLToPath(new URL("./dist/mcp-server.js", import.meta.url));
const inspectorHome = mkdtempSync(join(tmpdir(), "mcp-inspector-home-"));
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const nodeOk = major > 22 || (major === 22 && minor >= 19);
/** `describe` where the Inspector runs; otherwise one test in its place that says why ({@link cannotRun}). */
function describeOnNodeOk(name: string, body: () => void): void {
  if (nodeOk) describe(name, body);
  else cannotRun(name, `the Inspector needs Node 22.19+, this is Node ${process.versions.node}`);
}
async function inspect(target: readonly string[], method: readonly string[]): Promise<Record<string, unknown>> {
  // The Inspector keeps ~/.mcp-inspector/storage: its home is a temporary folder instead.
  const env = { ...process.env, HOME: inspectorHome };
  const { stdout } = await run(process.execPath, [launcher, "--cli", ...target, ...method], {
    timeout: 60_000,
    env,
  }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }), // a tool error result exits non-zero
  );
  return JSON.parse(stdout.slice(stdout.indexOf("{"), stdout.lastIndexOf("}") + 1)) as Record<string, unknown>;
}

const listTools = ["--method", "tools/list"];
const callTool = (orderId: string) => [
  "--method",
  "tools/call",
  "--tool-name",
  "getOrderStatus",
  "--tool-arg",
  `orderId=${orderId}`,
];

describeOnNodeOk("MCP Inspector CLI against examples/mcp over stdio", () => {
  const target = [process.execPath, builtServer];

  beforeAll(async () => {
    const tsup = join(examples, "node_modules", ".bin", "tsup");
    await run(tsup, ["--entry.mcp-server", "mcp/cli.ts", "--out-dir", "mcp/dist", "--silent"], { cwd: examples });
  }, 120_000);

  it("tools/list shows the order tool with its schema and annotations", async () => {
    const { tools } = await inspect(target, listTools);
    expect(tools).toMatchObject([
      {
        name: "getOrderStatus",
        inputSchema: { type: "object", required: ["orderId"] },
        annotations: { destructiveHint: true },
      },
    ]);
  }, 90_000);

  it("tools/call returns the ok envelope", async () => {
    const result = await inspect(target, callTool("ORD-12345"));
    expect(result.isError).toBe(false);
    expect(JSON.stringify(result.content)).toContain('\\"status\\":\\"shipped\\"');
  }, 90_000);
});

describeOnNodeOk("MCP Inspector CLI against examples/mcp over Streamable HTTP", () => {
  let http: HttpServer;
  let target: string[];
  beforeAll(async () => {
    http = await serveOrdersOverHttp(0);
    target = [`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, "--transport", "http"];
  });
  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  it("tools/list and tools/call (a miss is an isError envelope)", async () => {
    const { tools } = await inspect(target, listTools);
    expect(tools).toMatchObject([{ name: "getOrderStatus" }]);
    const miss = await inspect(target, callTool("ORD-999"));
    expect(miss.isError).toBe(true);
    expect(JSON.stringify(miss.content)).toContain("ORDER_NOT_FOUND");
  }, 90_000);
});
