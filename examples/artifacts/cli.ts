// Huge results as artifacts, end to end on the file store: a tool returns 10,000 rows (one with a
// card number in it), the model reads a preview and pages through every row with read_artifact, the
// journal keeps references, and deleting the run deletes its artifact.
// npx -y pnpm@10 --filter @needlework/examples artifacts
import "reflect-metadata";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { container } from "tsyringe";
import { z } from "zod";
import { AgentFunction, AgentFunctionGroup, type ChatRequest, ScriptedChatClient } from "@needlework/core";
import { FileRunStore } from "@needlework/durable";
import { countTokens } from "@needlework/shaping";
import { usingAgentFramework } from "@needlework/workflows";

@AgentFunctionGroup("reports")
class ReportTools {
  @AgentFunction({ description: "Every order of the quarter.", input: z.object({}), readOnly: true })
  orders() {
    return Array.from({ length: 10_000 }, (_, id) => ({
      id,
      customer: `customer-${id % 97}`,
      total: id * 3,
      note: id === 4321 ? "paid with card 4111 1111 1111 1111" : "ok",
    }));
  }
}

/** A model that pages from where the last page ended until it has read every row. */
function pagingModel(): ScriptedChatClient {
  const results = (request: ChatRequest) =>
    request.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content));
  const step = (request: ChatRequest) => {
    const all = results(request);
    const id: string = all[0].artifact.id;
    const last = all.at(-1);
    const next = last.artifact ? 0 : last.data.offset + last.data.items.length;
    if (!last.artifact && next >= last.data.total) return { text: `Read ${next} rows.` };
    return { toolCalls: [{ name: "read_artifact", arguments: { id, offset: next, limit: 1000 } }] };
  };
  return new ScriptedChatClient([
    { toolCalls: [{ name: "orders", arguments: {} }] },
    ...Array.from({ length: 500 }, () => step),
  ]);
}

const directory = await mkdtemp(join(tmpdir(), "needlework-artifacts-"));
try {
  const store = new FileRunStore(directory);
  const factory = usingAgentFramework(container)
    .addAgentFunctions(ReportTools)
    .usingToolResultMiddleware()
    .usingTruncation()
    .usingRedaction()
    .usingArtifacts({ store: store.artifacts })
    .buildAgentFactory();
  const chatClient = pagingModel();
  const agent = factory.createAgent({
    name: "analyst",
    instructions: "Read every order.",
    chatClient,
    store,
    maxIterations: 500,
  });
  const result = await agent.run("How did the quarter go?");
  const toolMessages = chatClient.requests.at(-1)!.messages.filter((m) => m.role === "tool");
  const [artifact] = await store.artifacts.list(result.runId);
  const content = (await store.artifacts.get(result.runId, artifact!.id))!.content;
  const journal = await store.journal.read(result.runId);
  const biggest = Math.max(...journal!.calls.map((c) => Buffer.byteLength(JSON.stringify(c))));
  console.log(result.text);
  console.log(
    `stored: ${artifact!.bytes} bytes, ${artifact!.items} items; the card is stored redacted: ${!content.includes("4111 1111 1111 1111")}`,
  );
  console.log(`first read: ${countTokens(toolMessages[0]!.content)} tokens; ${toolMessages.length - 1} pages`);
  console.log(`journal: ${journal!.calls.length} calls, the biggest record ${biggest} bytes`);
  console.log("deleted:", await store.deleteRun(result.runId));
} finally {
  await rm(directory, { recursive: true, force: true });
}
