// Runs written through the public API into any store, the way an application's would be: a sync
// with a refused write, a retried one and a corrected answer; a refund paused for approval; a tool
// that returns hostile markup; a call dead-lettered as poison; a run cut off mid-call (still running).
import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup, ToolResult } from "@needlework/core";
import { type Agent, ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";
import type { AgentStore } from "@needlework/durable";
import { container } from "tsyringe";
import { z } from "zod";

/** What a tool returns to try to inject markup into a page that shows it. */
export const HOSTILE = `<img src=x onerror="document.body.dataset.pwned='1'"><script>document.body.dataset.pwned='2'</script>`;

const Contact = z.object({ contactId: z.string().describe("The contact's id.") });
type ContactInput = z.infer<typeof Contact>;

/** The tools; `flaky` fails once per id with a 503, then works. */
export class CrmWorld {
  readonly flaky = new Map<string, number>();
  hang?: Promise<void>;
  /** Called when a body starts waiting on `hang`: the call is running, its start journaled. */
  onHang?: () => void;
  /** Orders refunded, in order (the refund tool's side effect). */
  readonly refunds: string[] = [];
  /** Merges done (the merge tool succeeds once `locked` is false). */
  merges = 0;
  locked = true;
}

@AgentFunctionGroup({ groups: ["crm"], inject: [CrmWorld] })
class CrmTools {
  constructor(private readonly world: CrmWorld) {}

  @AgentFunction({ description: "Updates a contact in HubSpot.", input: Contact })
  updateHubspot({ contactId }: ContactInput) {
    return ToolResult.fail(`HubSpot refused the update of ${contactId} (HTTP 403).`, {
      code: "FORBIDDEN",
      suggestion: "Do not retry; tell the user this needs HubSpot write access.",
    });
  }

  @AgentFunction({ description: "Creates a follow-up task in Salesforce.", input: Contact, idempotent: true })
  async createTask({ contactId }: ContactInput) {
    const seen = this.world.flaky.get(contactId) ?? 0;
    this.world.flaky.set(contactId, seen + 1);
    if (seen === 0) throw Object.assign(new Error("Service unavailable"), { status: 503 });
    if (this.world.hang) {
      this.world.onHang?.();
      await this.world.hang;
    }
    return { taskId: `T-${contactId}`, status: "Not Started" };
  }

  @AgentFunction({ description: "Reads a contact's notes.", input: Contact, readOnly: true })
  readNotes({ contactId }: ContactInput) {
    return { contactId, notes: [HOSTILE, "call back on Monday"] };
  }

  @AgentFunction({
    description: "Refunds an order.",
    input: z.object({ orderId: z.string().describe("Order id.") }),
    requiresApproval: true,
  })
  refund({ orderId }: { orderId: string }) {
    this.world.refunds.push(orderId);
    return { refunded: orderId };
  }

  @AgentFunction({ description: "Merges two contacts.", input: Contact })
  mergeContacts({ contactId }: ContactInput) {
    if (this.world.locked)
      return ToolResult.fail(`Contact ${contactId} is locked by another merge.`, { code: "CONFLICT" });
    this.world.merges++;
    return { merged: contactId };
  }
}

/** The ids of the runs {@link writeRuns} wrote. */
export interface WrittenRuns {
  readonly failed: string;
  readonly paused: string;
  readonly hostile: string;
  readonly poisoned: string;
  readonly running: string;
  /** A second paused refund (agent `billing`), for a denial. */
  readonly pausedToDeny: string;
  /** The agents that wrote them, to hand to `startInspector({ agents })` (the last of each name). */
  readonly agents: readonly Agent[];
  readonly world: CrmWorld;
}

/**
 * Writes the runs into `store`, oldest first (`running` is the newest of the five the list test
 * names; with `denial`, a sixth, `pausedToDeny`, is written first).
 */
export async function writeRuns(store: AgentStore, options: { denial?: boolean } = {}): Promise<WrittenRuns> {
  const world = new CrmWorld();
  const scope = container.createChildContainer();
  scope.registerInstance(CrmWorld, world);
  const factory = usingAgentFramework(scope)
    .addAgentFunctions(CrmTools)
    .usingResilience({ retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 }, circuitBreaker: false })
    .usingToolResultMiddleware()
    .buildAgentFactory();
  const agent = (name: string, steps: ConstructorParameters<typeof ScriptedChatClient>[0]) =>
    factory.createAgent({
      name,
      instructions: "Sync customer changes; report what failed.",
      chatClient: new ScriptedChatClient(steps),
      store,
      poisonThreshold: 2,
      checkpointSecret: "inspector-test-secret-0123456789abcdef",
    });

  const billing = agent("billing", [
    { toolCalls: [{ id: "r2", name: "refund", arguments: { orderId: "ORD-10" } }] },
    { text: "Not refunded." },
  ]);
  const pausedToDeny = options.denial ? (await billing.run("Refund ORD-10.")).runId : "";

  const failed = await agent("crm-sync", [
    {
      text: "Writing both changes.",
      toolCalls: [
        { id: "w1", name: "updateHubspot", arguments: { contactId: "24290" } },
        { id: "w2", name: "createTask", arguments: { contactId: "24290" } },
      ],
      usage: { inputTokens: 800, outputTokens: 60, totalTokens: 860 },
    },
    { text: "All changes are synced successfully." },
    { text: "The HubSpot update failed with FORBIDDEN; the Salesforce task was created after one retry." },
  ]).run("Sync contact 24290 to HubSpot and Salesforce.");

  const support = agent("support", [
    { toolCalls: [{ id: "r1", name: "refund", arguments: { orderId: "ORD-9" } }] },
    { text: "Refunded." },
  ]);
  const paused = await support.run("Refund ORD-9.");

  const hostile = await agent(`notes-${HOSTILE}`, [
    { toolCalls: [{ id: "n1", name: "readNotes", arguments: { contactId: HOSTILE } }] },
    { text: `The notes say ${HOSTILE}` },
  ]).run(`Read the notes of ${HOSTILE}`);

  const poisoned = await agent("crm-sync", [
    { toolCalls: [{ id: "m1", name: "mergeContacts", arguments: { contactId: "C-7" } }] },
    { toolCalls: [{ id: "m2", name: "mergeContacts", arguments: { contactId: "C-7" } }] },
    { toolCalls: [{ id: "m3", name: "mergeContacts", arguments: { contactId: "C-7" } }] },
    { text: "Could not merge." },
  ]).run("Merge C-7 into C-8.");

  // A process that dies mid-call: the run stays journaled, unfinished ("running").
  let unblock!: () => void;
  world.hang = new Promise<void>((resolve) => (unblock = resolve));
  world.flaky.set("99", 1);
  const kill = new AbortController();
  const crm = agent("crm-sync", [
    { text: "Creating the task.", toolCalls: [{ id: "t1", name: "createTask", arguments: { contactId: "99" } }] },
    { text: "Task created after the restart." },
  ]);
  const hanging = new Promise<void>((resolve) => (world.onHang = resolve));
  const cut = crm.run("Create a task for 99.", { signal: kill.signal, runId: `run_running_${Date.now()}` });
  await hanging; // the call is running: the process "dies" now, not after a guessed delay
  kill.abort(new DOMException("process killed", "AbortError"));
  await cut.catch(() => undefined);
  unblock();
  const running = (await store.journal.list({ status: "running", limit: 1 })).runs[0]!.runId;

  return {
    failed: failed.runId,
    paused: paused.runId,
    hostile: hostile.runId,
    poisoned: poisoned.runId,
    running,
    pausedToDeny,
    agents: [support, billing, crm],
    world,
  };
}
