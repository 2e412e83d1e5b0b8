import { ToolError } from "@needlework/core";
import nodeFetch, { FetchError } from "node-fetch";
import { describe, expect, it } from "vitest";
import { describeClient, invokeWithClient } from "./support.js";

// node-fetch 3 returns a failed status as a Response (thrown here as it is) and throws FetchError
// with `type: "system"` and Node's `code`/`errno` for the connection. It has no timeout of its own
// (version 2's `type: "request-timeout"` FetchError is built from the real class below).
async function post(url: string, signal: AbortSignal): Promise<unknown> {
  const response = await nodeFetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Ada" }),
    signal,
  });
  if (!response.ok) throw response;
  return response.json();
}

describeClient({ name: "node-fetch", send: post });

describe("node-fetch's FetchError through the documented stack", () => {
  it("a request-timeout FetchError of a write is OUTCOME_UNKNOWN, of a read TIMEOUT", async () => {
    const timeout = () =>
      new FetchError("network timeout at: http://api.internal/contacts?key=sk-live-secret", "request-timeout");
    const write = await invokeWithClient(undefined, async () => {
      throw timeout();
    });
    expect(write.outcome).toMatchObject({ errorCode: "OUTCOME_UNKNOWN", retriable: false, metadata: { attempts: 1 } });
    const read = await invokeWithClient(
      undefined,
      async () => {
        throw timeout();
      },
      "read",
    );
    expect(read.outcome).toMatchObject({ status: "timeout", errorCode: "TIMEOUT", retriable: true });
    expect(JSON.stringify([write.outcome, read.outcome])).not.toContain("sk-live");
  });

  it("a deliberate ToolError is still the tool's own words", async () => {
    const { outcome } = await invokeWithClient(undefined, async () => {
      throw new ToolError("The contact is archived.", { code: "CONTACT_ARCHIVED" });
    });
    expect(outcome).toMatchObject({ errorCode: "CONTACT_ARCHIVED", message: "The contact is archived." });
  });
});
