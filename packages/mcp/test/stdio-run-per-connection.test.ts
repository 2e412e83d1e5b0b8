import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { cannotRun } from "../../../test/support/cannot-run.js";

// The documented `runId: ({ sessionId }) => sessionId` gives undefined over stdio: the server falls
// back to one run per connection, so `deny` refuses a payment after the same client read a mail.
const built = ["../../core/dist/index.js", "../../workflows/dist/index.js", "../dist/index.js"].map((p) =>
  fileURLToPath(new URL(p, import.meta.url)),
);
const missing = built.filter((p) => !existsSync(p));
const fixture = fileURLToPath(new URL("./fixtures/stdio-policy-server.mjs", import.meta.url));

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>): string =>
  (result.content as Array<{ type: string; text: string }>)[0]?.text ?? "";

if (missing.length > 0)
  cannotRun("MCP over stdio: one run per connection", `missing ${missing.join(", ")}: run \`pnpm run build\` first`);
else
  describe("MCP over stdio: one run per connection", () => {
    for (const mode of ["no runId option", "session-callback"]) {
      it(`deny refuses a payment after the same client read a mail (${mode})`, async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [fixture, mode],
          stderr: "pipe",
        });
        let stderr = "";
        transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        const client = new Client({ name: "stdio-policy-client", version: "1.0.0" });
        await client.connect(transport);
        try {
          await client.callTool({ name: "readMail", arguments: {} });
          const refused = await client.callTool({
            name: "sendMoney",
            arguments: { iban: "DE44500105175407324931", amount: 250 },
          });
          expect(refused.isError, stderr).toBe(true);
          expect(JSON.parse(textOf(refused))).toMatchObject({ error_code: "UNTRUSTED_CONTEXT" });
          expect(stderr).not.toContain("paid");
        } finally {
          await client.close();
        }
      }, 30_000);
    }
  });
