import { type AgentStore } from "@needlework/workflows/durable";
import { type Agent, ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";
import { type ChatMessage, type ChatRequest, type ScriptedTurn } from "@needlework/core";
import { container } from "tsyringe";
import { CrmTools } from "../crm-sync-audit/crm-tools.js";
import { CrmDirectory, FakeCrm } from "../crm-sync-audit/fake-crm.js";
import { faultPlans, type RunPlan } from "../crm-sync-audit/fault-plan.js";
import { CRM_ERROR_MAP, INSTRUCTIONS, MAX_ITERATIONS } from "../crm-sync-audit/modes.js";
import { syncRequest } from "../crm-sync-audit/optimistic-model.js";

/**
 * How fast the live run goes; all 0 makes it run at full speed (tests).
 *
 * @example
 * ```ts
 * const fullSpeed: LivePace = { wordDelayMs: 0, toolDelayMs: 0, retryDelayMs: 0 };
 * ```
 */
export interface LivePace {
  /** Pause before each word the model writes. */
  readonly wordDelayMs: number;
  /** How long each CRM request takes (every attempt). */
  readonly toolDelayMs: number;
  /** Resilience's wait before a retry. */
  readonly retryDelayMs: number;
}

/**
 * A pace a person can follow: the server's default.
 *
 * @example
 * ```ts
 * const { agent, input } = createLiveRun(HUMAN_PACE);
 * ```
 */
export const HUMAN_PACE: LivePace = { wordDelayMs: 45, toolDelayMs: 350, retryDelayMs: 600 };

/**
 * The audit's first sync job, with two faults a person can watch: HubSpot refuses the first
 * customer's contact update (403, permanent: `FORBIDDEN`), and Salesforce answers the follow-up
 * task with one 500 that resilience retries (`UPSTREAM_ERROR`, then ok).
 *
 * @example
 * ```ts
 * const plan = livePlan();
 * plan.writes.length; // 6
 * ```
 */
export function livePlan(): RunPlan {
  const { writes } = faultPlans(1, 2024)[0]!;
  return {
    run: 1,
    writes,
    faults: {
      [writes[1]!.key]: { kind: "forbidden", failures: 1, permanent: true },
      [writes[2]!.key]: { kind: "server_error", failures: 1 },
    },
  };
}

const FAILED = /"status":"(error|timeout|skipped|cancelled)"/;

/** The honest summary: which writes did not land and why, from the tool messages the model read. */
function honestSummary(request: ChatRequest, plan: RunPlan): ScriptedTurn {
  const failures: string[] = [];
  for (const message of request.messages as readonly ChatMessage[]) {
    if (message.role !== "tool" || !FAILED.test(message.content)) continue;
    const index = Number(/-w(\d+)$/.exec(message.toolCallId)?.[1]);
    const write = plan.writes[index];
    const code = /"error_code":"([A-Z_]+)"/.exec(message.content)?.[1] ?? "an error";
    if (write)
      failures.push(
        `the ${write.crm === "hubspot" ? "HubSpot" : "Salesforce"} ${write.tool.replace("_", " ")} for ${write.record} failed with ${code}`,
      );
  }
  const landed = plan.writes.length - failures.length;
  return {
    text:
      `The sync is not complete: ${failures.join("; ")}. ` +
      `The other ${landed} writes landed, including the Salesforce task, which went through after one automatic retry. ` +
      "Someone with HubSpot write access needs to apply the missing contact update.",
    usage: { inputTokens: 1480, outputTokens: 61, totalTokens: 1541 },
  };
}

/**
 * The live page's run: the CRM sync agent (the audit's tools, fake CRMs and error rules) on a
 * scripted model that writes all six changes, then claims success (the guardrail asks for a
 * correction), then answers honestly. A fresh pair of CRMs per call.
 *
 * @example
 * ```ts
 * const { agent, input } = createLiveRun(HUMAN_PACE);
 * for await (const event of agent.stream(input)) console.log(event.type);
 * ```
 */
export function createLiveRun(pace: LivePace, store?: AgentStore): { agent: Agent; input: string; plan: RunPlan } {
  const plan = livePlan();
  const directory = new CrmDirectory({
    salesforce: new FakeCrm("salesforce", plan),
    hubspot: new FakeCrm("hubspot", plan),
  });
  const runContainer = container.createChildContainer();
  runContainer.registerInstance(CrmDirectory, directory);
  const factory = usingAgentFramework(runContainer)
    .addAgentFunctions(CrmTools)
    // Innermost, so every attempt takes the time a real CRM request would.
    .usingMiddleware(async (_call, next) => {
      if (pace.toolDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, pace.toolDelayMs));
      return next();
    })
    .usingResilience({
      retry: { maxAttempts: 3, baseDelayMs: pace.retryDelayMs, maxDelayMs: pace.retryDelayMs },
      random: () => 0.5,
      circuitBreaker: false,
    })
    .usingToolResultMiddleware({ errorMap: CRM_ERROR_MAP })
    .usingTruncation()
    .usingRedaction()
    .buildAgentFactory();
  const model = new ScriptedChatClient(
    [
      {
        text: "I'll write both customers' changes to Salesforce and HubSpot in one round.",
        toolCalls: plan.writes.map((write, i) => ({
          id: `t1-w${i}`,
          name: write.tool,
          arguments: JSON.stringify(write.arguments),
        })),
        usage: { inputTokens: 812, outputTokens: 240, totalTokens: 1052 },
      },
      {
        text: "All changes are synced successfully.",
        usage: { inputTokens: 1290, outputTokens: 7, totalTokens: 1297 },
      },
      (request) => honestSummary(request, plan),
    ],
    { wordDelayMs: pace.wordDelayMs },
  );
  const agent = factory.createAgent({
    name: "crm-sync",
    instructions: INSTRUCTIONS,
    chatClient: model,
    maxIterations: MAX_ITERATIONS,
    ...(store ? { store } : {}),
  });
  return { agent, input: syncRequest(plan.writes), plan };
}
