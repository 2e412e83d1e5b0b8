// Binary MCP content (an image, audio, a resource's blob) with `usingArtifacts()` on: stored in the
// run's artifact store, described to the model with the artifact's id, never as base64; read_artifact
// answers that it is binary; with artifacts off, only the description. Against the MCP SDK's own
// server over Streamable HTTP, no mocks.
import "reflect-metadata";
import { formatToolOutcome } from "@needlework/core";
import { InMemoryArtifactStore } from "@needlework/durable";
import { usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServer, type McpServerConnection } from "../../src/index.js";
import { type SdkHttpServer, startSdkHttpServer } from "./sdk-server.mjs";

const IMAGE = Buffer.alloc(2048, 1);
const AUDIO = Buffer.alloc(512, 2);
const BLOB = Buffer.alloc(300, 3);

describe("binary MCP content as artifacts", () => {
  let http: SdkHttpServer;
  let sdk: McpServerConnection;

  beforeAll(async () => {
    http = await startSdkHttpServer({ calls: new Map(), cancelled: [] });
    sdk = await connectMcpServer("sdk", { url: http.url });
  });
  afterAll(async () => {
    await sdk.close();
    await http.close();
  });

  it("stores each binary item in the run's store; the model reads type, size and the artifact's id", async () => {
    const store = new InMemoryArtifactStore();
    const tools = usingAgentFramework(container.createChildContainer())
      .addTools(sdk.tools)
      .usingResilience()
      .usingToolResultMiddleware()
      .usingArtifacts({ store })
      .buildAgentFactory({ printDiagnostics: false }).tools;
    const outcome = await tools.invoke({ name: "sdk_media", arguments: {} }, { runId: "run_media" });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "ok" });
    const [text, image, audio, resource] = outcome.data as Record<string, unknown>[];
    expect(text).toBe("Q3 revenue, as a chart, a voice note and the raw file.");
    expect(image).toMatchObject({ type: "image", mimeType: "image/png", bytes: 2048, artifact: { bytes: 2048 } });
    expect(audio).toMatchObject({ type: "audio", mimeType: "audio/wav", bytes: 512, artifact: { bytes: 512 } });
    expect(resource).toMatchObject({
      type: "resource",
      uri: "file:///q3.parquet",
      bytes: 300,
      artifact: { bytes: 300 },
    });
    const formatted = formatToolOutcome(outcome);
    for (const bytes of [IMAGE, AUDIO, BLOB]) expect(formatted).not.toContain(bytes.subarray(0, 24).toString("base64"));

    const listed = await store.list("run_media");
    expect(listed.map((a) => a.mediaType).sort()).toEqual([
      "application/vnd.apache.parquet;base64",
      "audio/wav;base64",
      "image/png;base64",
    ]);
    expect(listed.every((a) => a.provenance === "untrusted")).toBe(true);
    const id = (image!["artifact"] as { id: string }).id;
    const stored = await store.get("run_media", id);
    expect(Buffer.from(stored!.content, "base64").equals(IMAGE)).toBe(true);
    expect(await store.get("another_run", id)).toBeUndefined();

    const read = await tools.invoke(
      { name: "read_artifact", arguments: { id, offset: 0, limit: 10 } },
      { runId: "run_media" },
    );
    expect(read).toMatchObject({ status: "error", errorCode: "ARTIFACT_BINARY", retriable: false });
    expect(read.message).toContain("image/png");
    expect(formatToolOutcome(read)).not.toContain(IMAGE.subarray(0, 24).toString("base64"));
  });

  it("with artifacts off, binary items are only described: nothing is stored, no artifact is named", async () => {
    const tools = usingAgentFramework(container.createChildContainer())
      .addTools(sdk.tools)
      .usingToolResultMiddleware()
      .buildAgentFactory({ printDiagnostics: false }).tools;
    const outcome = await tools.invoke({ name: "sdk_media", arguments: {} });
    const items = outcome.data as Record<string, unknown>[];
    expect(items[1]).toEqual({ type: "image", mimeType: "image/png", bytes: 2048 });
    expect(items.some((item) => typeof item === "object" && item !== null && "artifact" in item)).toBe(false);
  });
});
