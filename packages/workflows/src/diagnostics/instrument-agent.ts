import { errorTypeName } from "@needlework/core";
import type { Agent } from "../agent/agent.js";
import type { AgentRunResult } from "../agent/agent-run-result.js";
import type { CreateAgentOptions } from "../agent/agent.options.js";
import type { ChatClient } from "@needlework/core";
import { type AgentRunStream, createAgentRunStream } from "../agent/stream/agent-run-stream.js";
import { SETTLED_RUN_STATUSES } from "../observability/trace-attributes.js";
import type { Tracing } from "../observability/tracing.js";
import { type DiagnosticsLogger, logRunEnd, logRunError } from "./diagnostics-logger.js";

/** What an agent is instrumented with. @internal */
export interface AgentInstrumentation {
  readonly tracing: Tracing | undefined;
  readonly logger: DiagnosticsLogger | undefined;
  readonly redact: (value: unknown) => unknown;
}

function redactedText(redact: (value: unknown) => unknown, text: string): string {
  const value = redact(text);
  return typeof value === "string" ? value : "";
}

/**
 * Creates an agent whose runs are traced (`invoke_agent`, and `chat` around its chat client) and
 * logged. The loop itself is not touched: the chat client is wrapped, and so are `run`/`resume`.
 * Tool spans come from the plugin's middleware; they find the run's span through the tracing scope.
 * @internal
 */
export function instrumentAgent(
  create: (options: CreateAgentOptions) => Agent,
  options: CreateAgentOptions,
  instrumentation: AgentInstrumentation,
): Agent {
  const { tracing, logger, redact } = instrumentation;
  if (!tracing && !logger) return create(options);
  const inner = options?.chatClient;
  // An invalid client is left as it is so createAgent reports it.
  const chatClient: ChatClient | undefined =
    tracing && typeof inner?.complete === "function" ? tracing.instrumentChatClient(inner) : undefined;
  const agent = create(chatClient ? { ...options, chatClient } : options);

  const observe = async (resumed: boolean, body: () => Promise<AgentRunResult>): Promise<AgentRunResult> => {
    try {
      const result = await (tracing ? tracing.traceRun(agent.name, resumed, body, inner) : body());
      if (logger) {
        const reason = "reason" in result ? redactedText(redact, result.reason) : undefined;
        logRunEnd(logger, agent.name, result, SETTLED_RUN_STATUSES.has(result.status), reason);
      }
      return result;
    } catch (error) {
      if (logger) {
        let message = "";
        try {
          message = error instanceof Error ? error.message : String(error);
        } catch {
          // Unprintable: the type is enough.
        }
        logRunError(logger, agent.name, { type: errorTypeName(error), message: redactedText(redact, message) });
      }
      throw error;
    }
  };

  return {
    ...agent,
    run: (input, runOptions) => observe(false, () => agent.run(input, runOptions)),
    resume: (checkpoint, decisions, resumeOptions) =>
      observe(true, () => agent.resume(checkpoint, decisions, resumeOptions)),
    // A relay: the inner stream starts inside the run's span, and its events pass through.
    stream: (input, streamOptions = {}) =>
      relay(
        streamOptions.bufferSize,
        (signal) => agent.stream(input, { ...streamOptions, signal }),
        (body) => observe(false, body),
      ),
    resumeStream: (checkpoint, decisions, streamOptions = {}) =>
      relay(
        streamOptions.bufferSize,
        (signal) => agent.resumeStream(checkpoint, decisions, { ...streamOptions, signal }),
        (body) => observe(true, body),
      ),
  };
}

function relay(
  bufferSize: number | undefined,
  open: (signal: AbortSignal) => AgentRunStream,
  observe: (body: () => Promise<AgentRunResult>) => Promise<AgentRunResult>,
): AgentRunStream {
  return createAgentRunStream(
    (sink, signal) =>
      observe(async () => {
        const inner = open(signal);
        for await (const event of inner) await sink.emit(event);
        return inner.result;
      }),
    bufferSize === undefined ? {} : { bufferSize },
  );
}
