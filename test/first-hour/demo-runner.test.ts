// `pnpm demo*` goes through scripts/demo.ts: a busy port is named, with the option that changes it,
// before anything is built.
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("../../scripts/demo.ts", import.meta.url));
let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

function listen(): Promise<number> {
  const listening = createServer();
  server = listening;
  return new Promise((resolve) => {
    listening.listen(0, "127.0.0.1", () => resolve((listening.address() as { port: number }).port));
  });
}

describe("the demo runner", () => {
  it("names a busy port and the option that changes it, before any build, without a stack", async () => {
    const port = await listen();
    const run = spawnSync(process.execPath, [script, "demo:inspector"], {
      env: { ...process.env, PORT: String(port) },
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      `Port ${port} is already in use (another demo:inspector still running?). Stop it, or pick another port: PORT=${port + 1} pnpm demo:inspector`,
    );
    expect(run.stdout).not.toContain("building");
  });

  it("refuses a PORT that is not a port number, and an unknown demo, naming the known ones", () => {
    const bad = spawnSync(process.execPath, [script, "demo:live"], {
      env: { ...process.env, PORT: "http" },
      encoding: "utf8",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe("PORT must be a port number (0-65535), got 'http'.");
    const unknown = spawnSync(process.execPath, [script, "demo:nope"], { encoding: "utf8" });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toBe(
      "scripts/demo.ts: unknown demo 'demo:nope'. Known: demo, demo:live, demo:inspector.",
    );
  });
});
