// The bin as a user starts it, with the mistakes a user makes (issue 38): a folder that is not there,
// a misspelt option, a port already taken. Each gets one line that says what to do, and no stack.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

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

describe("needlework-inspector's command line", () => {
  let busy: Server;
  let port = 0;
  beforeAll(async () => {
    if (!existsSync(CLI))
      throw new Error("packages/inspector is not built: run `pnpm build` first (`pnpm test` does).");
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it("refuses a --directory that does not exist", async () => {
    const { code, output } = await runBin(["--directory", "/no/such/folder"]);
    expect(code).toBe(2);
    expect(output).toContain('--directory "/no/such/folder" is not a directory');
  });

  it("suggests the near option for a misspelt one", async () => {
    const { code, output } = await runBin(["--databse-url", "postgres://x"]);
    expect(code).toBe(2);
    expect(output).toContain("Did you mean --database-url?");
  });

  it("names a busy port and the option that changes it, without a stack", async () => {
    const { code, output } = await runBin([
      "--directory",
      fileURLToPath(new URL(".", import.meta.url)),
      "--port",
      String(port),
    ]);
    expect(code).toBe(1);
    expect(output).toContain(`port ${port} is already in use`);
    expect(output).toContain("--port");
    expect(output).not.toMatch(/EADDRINUSE|\n\s+at /);
  });
});
