import { createToolInvoker, type ToolInvoker } from "@needlework/core";
import { Client, type ClientOptions } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { container } from "tsyringe";
import { afterEach, expect } from "vitest";
import { ShopTools } from "../../ai-sdk/test/shop-tools.js";
import type { McpServerOptions } from "../src/create-mcp-server.js";
import { serveMcp } from "../src/serve-mcp.js";

/** A fresh invoker over the shared adapter test tools. */
export const invoker = (): ToolInvoker =>
  createToolInvoker(container.createChildContainer(), { functions: [ShopTools] });

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

/**
 * A real SDK client connected to `serveMcp` over the SDK's in-memory transport pair. `setUp`
 * registers client-side handlers (e.g. for elicitation) before the client connects.
 */
export async function connect(
  options?: McpServerOptions,
  clientOptions?: ClientOptions,
  setUp?: (client: Client) => void,
): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = await serveMcp(invoker(), serverTransport, options);
  const client = new Client({ name: "test-client", version: "1.0.0" }, clientOptions);
  setUp?.(client);
  await client.connect(clientTransport);
  open.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

/** The envelope in a call result's text content. */
export function envelopeOf(result: Awaited<ReturnType<Client["callTool"]>>): Record<string, unknown> {
  const content = result.content as Array<{ type: string; text?: string }>;
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe("text");
  return JSON.parse(content[0]?.text ?? "null") as Record<string, unknown>;
}
