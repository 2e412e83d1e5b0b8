// The agent of the durable remote-tools test, loaded by the test and by the worker process it kills:
// one round of two remote calls (`echo`, which completes, and `wait`, which the server holds until
// cancelled), journaled to a PostgresStore, then an answer.
import type { ChatClient } from "@needlework/core";
import type { AgentStore } from "@needlework/durable";
import { type Agent, usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { connectMcpServer, type McpServerConnection } from "../../src/index.js";

/** A model that asks for both calls in one round, then answers with what it read. */
function model(): ChatClient {
  return {
    async complete({ messages }) {
      const results = messages.filter((m) => m.role === "tool");
      if (results.length > 0) return { message: { content: `done after ${results.length} results` } };
      return {
        message: {
          toolCalls: [
            { id: "call_echo", name: "sdk_echo", arguments: { text: "first" } },
            { id: "call_wait", name: "sdk_wait", arguments: {} },
          ],
        },
      };
    },
  };
}

/** Connects to the server at `url` and builds the agent over `store`. */
export async function remoteAgent(
  url: string,
  store: AgentStore,
): Promise<{ readonly agent: Agent; readonly server: McpServerConnection }> {
  const server = await connectMcpServer("sdk", { url });
  const factory = usingAgentFramework(container.createChildContainer())
    .addTools(server.tools)
    .usingResilience()
    .usingToolResultMiddleware()
    .buildAgentFactory({ printDiagnostics: false });
  const agent = factory.createAgent({ name: "remote", instructions: "Use the tools.", chatClient: model(), store });
  return { agent, server };
}
