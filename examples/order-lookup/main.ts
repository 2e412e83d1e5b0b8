import "reflect-metadata";
import { type AgentRunResult, ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { OrderTools } from "./order-tools.js";

const QUESTION = "Where are my orders ORD-12345, ORD-999, 42 and ORD-1999?";

/**
 * The scripted model: one turn asks for the four orders at once (passing "42" as a number, as a
 * model copying the user's words might), the next answers from what the tools said.
 */
function orderModel(): ScriptedChatClient {
  return new ScriptedChatClient([
    {
      toolCalls: [
        { name: "getOrderStatus", arguments: '{"orderId":"ORD-12345"}' },
        { name: "getOrderStatus", arguments: '{"orderId":"ORD-999"}' },
        { name: "getOrderStatus", arguments: '{"orderId":42}' },
        { name: "getOrderStatus", arguments: '{"orderId":"ORD-1999"}' },
      ],
    },
    {
      text:
        "ORD-12345 has shipped with DHL. I could not find ORD-999: please check the number. " +
        "42 is not an order ID (they look like ORD-12345). ORD-1999 could not be read because of an internal error; please try again later.",
    },
  ]);
}

/** The recommended pipeline over the order tools; `withResultMiddleware: false` shows Needlr's default. */
function buildFactory(withResultMiddleware = true) {
  const builder = usingAgentFramework(container.createChildContainer()).addAgentFunctions(OrderTools).usingResilience();
  return (withResultMiddleware ? builder.usingToolResultMiddleware() : builder).buildAgentFactory();
}

/** What the model read, without the metadata (ids, latency) that changes from run to run. */
function withoutMetadata(content: string): string {
  const { metadata: _metadata, ...rest } = JSON.parse(content) as Record<string, unknown>;
  return JSON.stringify(rest);
}

/**
 * Runs the seed's GetOrderStatus through an agent on a scripted model and prints, for each call,
 * what the model read: ok, not found with a suggestion, invalid arguments, and an unhandled
 * exception converted to an envelope while the agent turn goes on. Then the same turn without the
 * tool-result middleware, where the exception ends the run.
 */
export async function runOrderLookup(print: (line: string) => void = console.log): Promise<AgentRunResult> {
  const agent = buildFactory().createAgent({
    name: "order-support",
    instructions: "Answer questions about orders; never guess a status.",
    chatClient: orderModel(),
  });
  const result = await agent.run(QUESTION);

  print(`order-lookup: "${QUESTION}"`);
  const asked = new Map<string, string>();
  for (const message of result.messages) {
    if (message.role === "assistant")
      for (const call of message.toolCalls ?? [])
        asked.set(call.id, typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments));
    if (message.role === "tool")
      print(`  ${message.name}(${asked.get(message.toolCallId)})\n    model read: ${withoutMetadata(message.content)}`);
    if (message.role === "user" && message.kind === "run_health") print(`  ${message.content.replace("\n", "\n  ")}`);
  }
  print(`  answer: ${result.text}`);
  print(
    `  run status: ${result.status} after ${result.iterations} model turns (${result.health.tools_ok} ok, ${result.health.tools_failed} failed, ${result.health.tools_not_called} not called)`,
  );

  const bare = buildFactory(false).createAgent({
    name: "order-support",
    instructions: "Answer questions about orders.",
    chatClient: orderModel(),
  });
  const failure = await bare.run(QUESTION).then(
    () => "run() resolved",
    (error: unknown) =>
      `run() rejects with ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}; the turn is lost`,
  );
  print(`  without usingToolResultMiddleware(): ${failure}`);
  return result;
}
