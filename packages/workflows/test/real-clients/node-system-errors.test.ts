import { request } from "node:http";
import { connect } from "node:net";
import { lookup } from "node:dns/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort, invokeRealTime, invokeWithClient, LocalServer } from "./support.js";

// Node's own errors: `code`, `errno` and `syscall` on the error (ECONNREFUSED on connect,
// ECONNRESET on a socket, ENOTFOUND from DNS).
function post(url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: "POST" }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode));
    });
    outgoing.on("error", reject);
    outgoing.end(JSON.stringify({ name: "Ada" }));
  });
}

describe("Node system errors through the documented stack", () => {
  const server = new LocalServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it("ECONNREFUSED (nothing sent) is NETWORK_ERROR, retried even for a write", async () => {
    const port = await closedPort();
    const { outcome, waits } = await invokeWithClient(
      undefined,
      () =>
        new Promise((resolve, reject) => {
          const socket = connect(port, "127.0.0.1", () => resolve(socket.end()));
          socket.on("error", reject);
        }),
    );
    expect(waits).toHaveLength(2);
    expect(outcome).toMatchObject({ errorCode: "NETWORK_ERROR", retriable: true, metadata: { attempts: 3 } });
  });

  it("ECONNRESET after the request was sent: OUTCOME_UNKNOWN for a write, NETWORK_ERROR for a read", async () => {
    server.reply("reset");
    const write = await invokeRealTime(() => post(server.url));
    expect(write.outcome).toMatchObject({ errorCode: "OUTCOME_UNKNOWN", retriable: false, metadata: { attempts: 1 } });
    expect(write.outcome.message).toContain("(NETWORK_ERROR)");
    server.reply("reset");
    const read = await invokeRealTime(() => post(server.url), "read");
    expect(read.outcome).toMatchObject({ errorCode: "NETWORK_ERROR", retriable: true });
  });

  it("ENOTFOUND (a name that does not resolve) is NETWORK_ERROR that proves nothing was sent", async () => {
    const { outcome } = await invokeRealTime(() => lookup("no-such-host.invalid"), "read");
    expect(outcome).toMatchObject({
      errorCode: "NETWORK_ERROR",
      retriable: true,
      message: "Could not reach the upstream service (ENOTFOUND); the request was not sent.",
    });
  });
});
