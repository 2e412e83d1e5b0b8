import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cannotRun } from "../../../test/support/cannot-run.js";

// The child process runs the BUILT packages (see fixtures/stdio-server.mjs); `pnpm test` builds
// them first. Without them the suite is skipped locally and fails in CI, saying what to run.
const built = ["../../core/dist/index.js", "../dist/index.js"].map((p) => fileURLToPath(new URL(p, import.meta.url)));
const missing = built.filter((p) => !existsSync(p));
const fixture = fileURLToPath(new URL("./fixtures/stdio-server.mjs", import.meta.url));
const buildHint = `missing ${missing.join(", ")}: run \`pnpm run build\` in the repository root first`;

/** `describe` when the built packages are there; otherwise one test saying why (failed on CI). */
function describeBuilt(name: string, body: () => void): void {
  if (missing.length > 0) cannotRun(name, buildHint);
  else describe(name, body);
}

type CallResult = Awaited<ReturnType<Client["callTool"]>>;
const textOf = (result: CallResult): string => (result.content as Array<{ type: string; text: string }>)[0]?.text ?? "";

describeBuilt("serveMcp over stdio", () => {
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = "";

  beforeAll(async () => {
    transport = new StdioClientTransport({ command: process.execPath, args: [fixture], stderr: "pipe" });
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    client = new Client({ name: "stdio-test-client", version: "1.0.0" });
    await client.connect(transport);
  }, 20_000);

  afterAll(async () => {
    const pid = transport.pid;
    await client.close();
    // close() ends the child's stdin and waits for it to exit; the pid must be gone.
    expect(pid).toBeTypeOf("number");
    expect(() => process.kill(pid!, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
  }, 20_000);

  it("the real client starts the server as a child process and lists its tools", async () => {
    expect(client.getServerVersion(), stderr).toMatchObject({ name: "needlework-stdio-fixture", version: "1.0.0" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["getOrderStatus", "cancelOrder", "explode"]);
    expect(tools[0]).toMatchObject({
      description: "Looks up an order by ID.",
      inputSchema: { type: "object", required: ["orderId"] },
    });
  });

  it("calls a tool successfully", async () => {
    const result = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } });
    expect(result.isError).toBe(false);
    expect(JSON.parse(textOf(result))).toMatchObject({ status: "ok", data: { orderId: "ORD-1", status: "shipped" } });
  });

  it("returns failures, exceptions and invalid arguments as isError envelopes", async () => {
    const notFound = await client.callTool({ name: "getOrderStatus", arguments: { orderId: "ORD-404" } });
    expect(notFound.isError).toBe(true);
    expect(JSON.parse(textOf(notFound))).toMatchObject({ status: "error", error_code: "ORDER_NOT_FOUND" });

    const thrown = await client.callTool({ name: "explode", arguments: {} });
    expect(thrown.isError).toBe(true);
    expect(JSON.parse(textOf(thrown))).toMatchObject({
      error_code: "UNHANDLED_ERROR",
      message: "An unexpected error occurred (TypeError). The call was not retried.",
    });
    expect(textOf(thrown)).not.toContain("hunter2");

    const invalid = await client.callTool({ name: "getOrderStatus", arguments: {} });
    expect(JSON.parse(textOf(invalid))).toMatchObject({ error_code: "INVALID_ARGUMENTS" });
  });
});

describeBuilt("approval tools over stdio", () => {
  /** Starts the fixture for one client; `answer` makes the client declare elicitation and reply with it. */
  async function start(answer?: "accept" | "decline") {
    const transport = new StdioClientTransport({ command: process.execPath, args: [fixture], stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client(
      { name: "stdio-approval", version: "1.0.0" },
      answer ? { capabilities: { elicitation: {} } } : {},
    );
    if (answer) client.setRequestHandler(ElicitRequestSchema, () => ({ action: answer, content: { approve: true } }));
    await client.connect(transport);
    return { client, stderr: () => stderr };
  }
  const cancel = { name: "cancelOrder", arguments: { orderId: "ORD-7" } };

  it.each([
    [undefined, "APPROVAL_REQUIRED"],
    ["decline", "APPROVAL_DENIED"],
  ] as const)(
    "elicitation %s: %s and the tool does not run",
    async (answer, code) => {
      const { client, stderr } = await start(answer);
      const result = await client.callTool(cancel);
      await client.close();
      expect(result.isError).toBe(true);
      expect(JSON.parse(textOf(result))).toMatchObject({ error_code: code });
      expect(stderr()).not.toContain("cancelled ORD-7");
    },
    20_000,
  );

  it("elicitation accept: the tool runs", async () => {
    const { client, stderr } = await start("accept");
    const result = await client.callTool(cancel);
    await client.close();
    expect(result.isError).toBe(false);
    expect(stderr()).toContain("cancelled ORD-7");
  }, 20_000);
});
