import { createToolInvoker, type ErrorMapRule } from "@needlework/core";
import { type AgentRunResult, type DeadLetterQueue, usingAgentFramework } from "@needlework/workflows";
import { type ChatClient, type ChatMessage } from "@needlework/core";
import type { DependencyContainer } from "tsyringe";
import { CrmTools } from "./crm-tools.js";
import { CrmTimeoutError } from "./fake-crm.js";
import { relativeStack } from "./relative-stack.js";

/** The sync agent's system prompt (the scripted model does not read it; a real one would). */
export const INSTRUCTIONS =
  "You sync customer changes to Salesforce and HubSpot with update_contact, create_task and post_note. Report what was and was not written.";

/** Model turns per run, in both modes. */
export const MAX_ITERATIONS = 10;

/** How a run ended, in either mode. */
export interface ModeRun {
  readonly status: string;
  readonly text: string;
  readonly messages: readonly ChatMessage[];
}

/**
 * The guide's first build: the same tools and model, no middleware, and a hand-written loop whose
 * try/catch hands the model each exception as text, stack trace included. The loop knows nothing
 * failed, so it has no run_health, guardrail, retries or dead letters.
 *
 * @example
 * ```ts
 * const run = await runRaw(container, optimisticModel(), syncRequest(plan.writes));
 * ```
 */
export async function runRaw(container: DependencyContainer, model: ChatClient, input: string): Promise<ModeRun> {
  const invoker = createToolInvoker(container, { functions: [CrmTools] });
  const messages: ChatMessage[] = [
    { role: "system", content: INSTRUCTIONS },
    { role: "user", content: input },
  ];
  let text = "";
  for (let turn = 1; turn <= MAX_ITERATIONS; turn++) {
    const { message } = await model.complete({ messages: [...messages], tools: invoker.definitions });
    const calls = message.toolCalls ?? [];
    if (message.content !== undefined) text = message.content;
    messages.push({
      role: "assistant",
      ...(message.content === undefined ? {} : { content: message.content }),
      ...(calls.length === 0 ? {} : { toolCalls: calls }),
    });
    if (calls.length === 0) return { status: "completed", text, messages };
    const results = await Promise.all(
      calls.map(async (call) => {
        try {
          const outcome = await invoker.invoke({ name: call.name, arguments: call.arguments, callId: call.id });
          return outcome.status === "ok" ? JSON.stringify(outcome.data) : `${outcome.errorCode}: ${outcome.message}`;
        } catch (error) {
          return relativeStack(error);
        }
      }),
    );
    calls.forEach((call, i) =>
      messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: results[i]! }),
    );
  }
  return { status: "max_iterations", text, messages };
}

/**
 * Boundary rules for the two CRMs' errors that the default mapping does not know: a locked record
 * is worth retrying in a moment, and the SDK's request timeout leaves the write's fate unknown.
 */
export const CRM_ERROR_MAP: readonly ErrorMapRule[] = [
  {
    match: { status: 409 },
    code: "CONTACT_LOCKED",
    message: "The record is locked by another process.",
    retriable: true,
    suggestion: "Retry this write in a moment; locks are usually released within seconds.",
  },
  {
    match: CrmTimeoutError,
    code: "TIMEOUT",
    status: "timeout",
    message: "The CRM did not answer in time; the write may or may not have been applied.",
    retriable: true,
    suggestion: "Retry with the same arguments; check the record first if a duplicate would matter.",
  },
];

/**
 * needlework's full stack over the same tools: resilience (retries honouring Retry-After, here
 * without backoff delay so 500 runs take seconds), the tool-result middleware with the CRM rules,
 * truncation and redaction; the agent adds run_health, the success-claim guardrail and poison
 * detection with dead letters. Round policy `best-effort`: see the example's README section in
 * docs/examples.md for why not `all-or-nothing`.
 *
 * @example
 * ```ts
 * const result = await runNeedlework(container, optimisticModel(), input, { random, deadLetters, runId: "run-1" });
 * ```
 */
export async function runNeedlework(
  container: DependencyContainer,
  model: ChatClient,
  input: string,
  options: { readonly random: () => number; readonly deadLetters: DeadLetterQueue; readonly runId: string },
): Promise<AgentRunResult> {
  const factory = usingAgentFramework(container)
    .addAgentFunctions(CrmTools)
    .usingResilience({ retry: { maxAttempts: 3, baseDelayMs: 0 }, random: options.random })
    .usingToolResultMiddleware({ errorMap: CRM_ERROR_MAP })
    .usingTruncation()
    .usingRedaction()
    .buildAgentFactory();
  const agent = factory.createAgent({
    name: "crm-sync",
    instructions: INSTRUCTIONS,
    chatClient: model,
    maxIterations: MAX_ITERATIONS,
    roundPolicy: "best-effort",
    deadLetters: options.deadLetters,
  });
  return agent.run(input, { runId: options.runId });
}
