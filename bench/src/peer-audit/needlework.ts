// needlework's documented stack, nothing configured for the audit: `usingResilience()
// .usingToolResultMiddleware()` and an agent with its defaults. The tool passes `ctx.idempotencyKey`
// to the CRM and declares `idempotent: true`, as the docs show (reading the key declares nothing). The scripted model reads the envelope the loop hands it: its
// `status` is the native marker.
import "reflect-metadata";
import {
  AgentFunction,
  AgentFunctionGroup,
  type ChatClient,
  type ChatRequest,
  type ChatResponse,
  type ToolContext,
} from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import type { z } from "zod";
import { syncContact } from "./clients.js";
import { callArguments, type Reader } from "./model.js";
import {
  Conversation,
  type FrameworkRun,
  INSTRUCTIONS,
  request,
  SyncInput,
  TOOL_DESCRIPTION,
  TOOL_NAME,
} from "./peers.js";
import type { FakeCrm, RunPlan } from "./world.js";

/** The run's CRM and the client its tool uses, injected into the tool group. */
export class AuditWorld {
  constructor(
    readonly crm: FakeCrm,
    readonly plan: RunPlan,
  ) {}
}

@AgentFunctionGroup({ inject: [AuditWorld] })
class SyncTools {
  constructor(private readonly world: AuditWorld) {}

  @AgentFunction({ name: TOOL_NAME, description: TOOL_DESCRIPTION, input: SyncInput, idempotent: true })
  syncContact(args: z.infer<typeof SyncInput>, ctx: ToolContext) {
    return syncContact(this.world.crm, this.world.plan.client, args, ctx.idempotencyKey);
  }
}

/**
 * Whether the envelope's `status` marks a failure (anything but `ok`): the JSON envelope's field,
 * or, for a text that is not one JSON value, the first `status` it states.
 */
export function flaggedEnvelope(content: string): boolean {
  try {
    const envelope = JSON.parse(content) as { status?: unknown };
    if (typeof envelope === "object" && envelope !== null && "status" in envelope) return envelope.status !== "ok";
  } catch {
    // not one JSON value: read the status it states
  }
  const stated = /"?status"?\s*[:=]\s*"?([a-z_]+)/i.exec(content);
  return stated !== null && stated[1]!.toLowerCase() !== "ok";
}

class ScriptedClient implements ChatClient {
  readonly seen = new Conversation();

  constructor(
    private readonly plan: RunPlan,
    private readonly reader: Reader,
  ) {}

  async complete(req: ChatRequest): Promise<ChatResponse> {
    let turns = 0;
    for (const m of req.messages) {
      if (m.role === "assistant") {
        turns++;
        for (const c of m.toolCalls ?? []) this.seen.call(c.id, c.arguments);
      } else if (m.role === "tool") {
        this.seen.result(m.toolCallId, { text: m.content, flagged: flaggedEnvelope(m.content) });
      }
    }
    const turn = this.seen.next(this.plan, this.reader, turns);
    if (turn.kind === "text") return { message: { content: turn.text } };
    return {
      message: { toolCalls: turn.calls.map((c) => ({ id: c.id, name: TOOL_NAME, arguments: callArguments(c.write) })) },
    };
  }
}

/**
 * One run through needlework's documented stack.
 *
 * @example
 * ```ts
 * const run = await runNeedlework(plan, crm, "flag");
 * ```
 */
export async function runNeedlework(plan: RunPlan, crm: FakeCrm, reader: Reader): Promise<FrameworkRun> {
  const scope = container.createChildContainer();
  scope.registerInstance(AuditWorld, new AuditWorld(crm, plan));
  const factory = usingAgentFramework(scope)
    .addAgentFunctions(SyncTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .buildAgentFactory();
  const client = new ScriptedClient(plan, reader);
  const agent = factory.createAgent({ name: "crm-sync", instructions: INSTRUCTIONS, chatClient: client });
  try {
    const result = await agent.run(request(plan), { runId: `run-${plan.run}` });
    return client.seen.outcome(result.status !== "completed", result.status, true);
  } catch {
    return client.seen.outcome(true, "threw"); // as for a peer: the application is told
  }
}
