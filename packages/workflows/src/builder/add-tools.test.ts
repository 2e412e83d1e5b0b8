import { AgentFunction, AgentFunctionGroup, defineTool, ScriptedChatClient, ToolError } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { usingAgentFramework } from "./agent-framework.builder.js";
import { AgentFrameworkBuildError } from "./build-error.js";

@AgentFunctionGroup("orders")
class OrderDesk {
  @AgentFunction({ description: "Looks up an order.", input: z.object({ id: z.string().describe("Order id.") }) })
  lookup({ id }: { id: string }) {
    return { id, status: "shipped" };
  }
}

let flaky = 0;
const quote = defineTool({
  name: "quote",
  description: "Quotes a price.",
  input: z.object({ sku: z.string().describe("The SKU.") }),
  idempotent: true,
  groups: ["pricing"],
  execute: ({ sku }) => {
    if (++flaky === 1) throw new ToolError("busy", { code: "BUSY", transient: true });
    return { sku, price: 12 };
  },
});
const remote = defineTool({
  name: "shop_lookup",
  description: "Looks up an order on the shop.",
  inputSchema: { type: "object", properties: { id: { type: "string" } } },
  server: "shop",
  execute: () => "remote",
});

describe("addTools", () => {
  it("offers defined tools through the whole pipeline: retries, the envelope, the server beside the call", async () => {
    flaky = 0;
    const factory = usingAgentFramework(container.createChildContainer())
      .addAgentFunctions(OrderDesk)
      .addTools([quote, remote], quote)
      .usingResilience({ retry: { maxAttempts: 2, baseDelayMs: 1 } })
      .usingToolResultMiddleware()
      .buildAgentFactory({ printDiagnostics: false });
    expect(factory.tools.tools.map((t) => t.name)).toEqual(["lookup", "quote", "shop_lookup"]);
    const outcome = await factory.tools.invoke({ name: "quote", arguments: { sku: "A" } });
    expect(outcome).toMatchObject({ status: "ok", data: { sku: "A", price: 12 }, metadata: { attempts: 2 } });
    expect((await factory.tools.invoke({ name: "shop_lookup", arguments: {} })).metadata.server).toBe("shop");
    // A remote tool's parameters are its server's: no NW003 for the missing description of `id`.
    expect(factory.diagnostics.filter((d) => d.id === "NW003").map((d) => d.tool)).toEqual([]);
  });

  it("builds with defined tools alone, and an agent picks them by group", async () => {
    flaky = 1;
    const factory = usingAgentFramework(container.createChildContainer())
      .addTools(quote, remote)
      .usingToolResultMiddleware()
      .buildAgentFactory({ printDiagnostics: false });
    const chatClient = new ScriptedChatClient([
      { toolCalls: [{ name: "quote", arguments: { sku: "B" } }] },
      { text: "12" },
    ]);
    const agent = factory.createAgent({
      name: "pricing",
      instructions: "Quote.",
      chatClient,
      functionGroups: ["pricing"],
    });
    expect(agent.tools.definitions.map((d) => d.name)).toEqual(["quote"]);
    const run = await agent.run("Price of B?");
    expect(run.status).toBe("completed");
    expect(run.text).toBe("12");
  });

  it("refuses what is not a defined tool", () => {
    const builder = usingAgentFramework(container.createChildContainer());
    expect(() => builder.addTools(OrderDesk as never)).toThrow(/addTools: pass tools made by defineTool/);
  });
});

describe("NW012: two tools published under one name", () => {
  const build =
    (...tools: ReturnType<typeof defineTool>[]) =>
    () =>
      usingAgentFramework(container.createChildContainer())
        .addAgentFunctions(OrderDesk)
        .addTools(...tools)
        .buildAgentFactory({ printDiagnostics: false });

  it("refuses a defined tool named like a decorated method, naming both", () => {
    const lookup = defineTool({ name: "lookup", description: "Other.", input: z.object({}), execute: () => 1 });
    let error: unknown;
    try {
      build(lookup)();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AgentFrameworkBuildError);
    const found = (error as AgentFrameworkBuildError).diagnostics.filter((d) => d.id === "NW012");
    expect(found).toEqual([
      {
        id: "NW012",
        severity: "error",
        tool: "lookup",
        message:
          "Two tools are published as 'lookup': OrderDesk.lookup and defineTool(). The model could not tell them apart. Give one a different `name`.",
      },
    ]);
  });

  it("tells a server's tool to connect under another name", () => {
    const other = defineTool({ ...remoteOptions(), server: "shop2" });
    expect(build(remote, other)).toThrow(
      "NW012 Two tools are published as 'shop_lookup': the tool of server 'shop' and the tool of server 'shop2'. The model could not tell them apart. Connect the server under another name",
    );
  });
});

function remoteOptions() {
  return {
    name: "shop_lookup",
    description: "Another.",
    inputSchema: { type: "object" },
    execute: () => 1,
  } as const;
}
