import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invokeWithClient, LocalServer } from "./support.js";

// The idiom MDN's "Using the Fetch API" teaches: check `response.ok` and throw a plain Error stating
// the status. Nothing of the response travels with it but the text; the boundary reads the status
// from that text (DESIGN "The MDN idiom"), so a 503 is retried and told to the model as transient.
async function mdnPost(url: string, signal: AbortSignal): Promise<unknown> {
  const response = await fetch(url, { method: "POST", body: JSON.stringify({ name: "Ada" }), signal });
  if (!response.ok) throw new Error(`Response status: ${response.status}`);
  return response.json();
}

describe("fetch with the MDN idiom through the documented stack", () => {
  const server = new LocalServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it("HTTP 503 once: the write is retried (nothing was applied) and lands", async () => {
    server.reply({ status: 503 });
    const { outcome, waits } = await invokeWithClient(server, (signal) => mdnPost(server.url, signal));
    expect(waits).toHaveLength(1);
    expect(outcome).toMatchObject({ status: "ok", metadata: { attempts: 2 } });
    expect(server.requests).toBe(2);
  });

  it("HTTP 503 every time: UPSTREAM_UNAVAILABLE, retriable, the status stated to the model", async () => {
    server.reply({ status: 503 }, { status: 503 }, { status: 503 });
    const { outcome } = await invokeWithClient(server, (signal) => mdnPost(server.url, signal));
    expect(outcome).toMatchObject({ status: "error", errorCode: "UPSTREAM_UNAVAILABLE", retriable: true });
    expect(outcome.message).toContain("(HTTP 503)");
    expect(server.requests).toBe(3);
  });

  it("HTTP 404: NOT_FOUND, one attempt, not UNHANDLED_ERROR", async () => {
    server.reply({ status: 404 });
    const { outcome } = await invokeWithClient(server, (signal) => mdnPost(server.url, signal));
    expect(outcome).toMatchObject({ status: "error", errorCode: "NOT_FOUND", retriable: false });
    expect(server.requests).toBe(1);
  });
});
