import type { ChatClient, ChatMessage, ChatRequest, ChatResponse, ChatToolCall } from "@needlework/core";
import type { IntendedWrite } from "./fault-plan.js";

/** The optimistic model's summary whenever any write came back ok. */
export const SYNC_COMPLETE = "Sync complete.";
/** Its summary when nothing came back ok. */
export const SYNC_FAILED = "Sync failed: none of the CRM writes went through.";
/** Calls of one write the model makes at most (the first included). */
export const MAX_MODEL_TRIES = 4;

/** How the model reads one tool result. */
export type ResultReading = "ok" | "retriable" | "failed";

/**
 * Reads a tool result the way the optimistic model does. An envelope (`status` + `retriable`)
 * says what happened and whether to retry. Anything else that parses as JSON is a vendor payload,
 * so a success; raw error text is a failure, and nothing in it says whether a retry could help.
 *
 * @example
 * ```ts
 * readToolResult('{"status":"error","error_code":"RATE_LIMITED","retriable":true}'); // "retriable"
 * readToolResult("HubSpotApiError: HTTP 429 Too Many Requests ...");                 // "failed"
 * ```
 */
export function readToolResult(content: string): ResultReading {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return "failed";
  }
  if (
    typeof parsed === "object" &&
    parsed !== null &&
    "status" in parsed &&
    "retriable" in parsed &&
    typeof parsed.retriable === "boolean"
  ) {
    if (parsed.status === "ok") return "ok";
    return parsed.retriable ? "retriable" : "failed";
  }
  return "ok";
}

/** The user turn of a sync run: the instruction, then the job as JSON on the following lines. */
export function syncRequest(writes: readonly IntendedWrite[]): string {
  return `Sync these changes to Salesforce and HubSpot, all writes in parallel:\n${JSON.stringify({ writes: writes.map((w) => ({ tool: w.tool, arguments: w.arguments })) })}`;
}

interface Job {
  readonly writes: readonly { readonly tool: string; readonly arguments: Record<string, unknown> }[];
}

function call(turn: number, index: number, job: Job): ChatToolCall {
  const write = job.writes[index]!;
  return { id: `t${turn}-w${index}`, name: write.tool, arguments: JSON.stringify(write.arguments) };
}

/**
 * One turn of the optimistic model, a pure function of the conversation. Turn 1 asks for every
 * write of the job at once. Then it re-reads every result: writes whose latest result says
 * `retriable` are called again (at most {@link MAX_MODEL_TRIES} calls per write); when none is
 * left it answers {@link SYNC_COMPLETE} if any write came back ok, else {@link SYNC_FAILED}.
 * Told by a correction that its answer hides failures, it repeats its summary: it is optimistic.
 *
 * @example
 * ```ts
 * const turn = optimisticTurn({ messages, tools: [] });
 * turn.toolCalls?.length; // 6 on the first turn
 * ```
 */
export function optimisticTurn(request: ChatRequest): ChatResponse["message"] {
  const messages: readonly ChatMessage[] = request.messages;
  const user = messages.find((m) => m.role === "user" && m.kind === undefined);
  if (user?.role !== "user") throw new Error("optimistic model: no user turn with a sync job");
  const job = JSON.parse(user.content.slice(user.content.indexOf("\n") + 1)) as Job;
  const turn = messages.filter((m) => m.role === "assistant").length + 1;
  if (turn === 1) return { toolCalls: job.writes.map((_, i) => call(turn, i, job)) };

  const writeOf = new Map<string, number>();
  const tries = job.writes.map(() => 0);
  const latest: (ResultReading | undefined)[] = job.writes.map(() => undefined);
  for (const m of messages) {
    if (m.role === "assistant") {
      for (const c of m.toolCalls ?? []) {
        const index = Number(/-w(\d+)$/.exec(c.id)?.[1]);
        writeOf.set(c.id, index);
        tries[index] = (tries[index] ?? 0) + 1;
      }
    } else if (m.role === "tool") {
      const index = writeOf.get(m.toolCallId);
      if (index !== undefined) latest[index] = readToolResult(m.content);
    }
  }
  const summary = { content: latest.includes("ok") ? SYNC_COMPLETE : SYNC_FAILED };
  const last = messages.at(-1);
  if (last?.role === "user" && last.kind === "correction") return summary;
  const retry = latest.flatMap((reading, i) => (reading === "retriable" && tries[i]! < MAX_MODEL_TRIES ? [i] : []));
  if (retry.length > 0) return { toolCalls: retry.map((i) => call(turn, i, job)) };
  return summary;
}

/**
 * The optimistic model as a {@link ChatClient}; the same one drives both audit modes.
 *
 * @example
 * ```ts
 * factory.createAgent({ name: "crm-sync", instructions, chatClient: optimisticModel() });
 * ```
 */
export function optimisticModel(): ChatClient {
  return { complete: async (request) => ({ message: optimisticTurn(request) }) };
}
