import type { ChatAssistantMessage, ChatMessage, FailedItem, JsonValue, ToolOutcomeStatus } from "@needlework/core";
import type { JournaledCall, JournaledOutcome, JournaledRun, JournaledTurn } from "@needlework/durable";
import { callIdempotencyKey } from "@needlework/core/kit";
import { callKey } from "../canonical-json.js";

/**
 * A checkpoint of format 1 (written before runs were journal-first, up to the release that made
 * the checkpoint a journal): a snapshot of the run's state, signed as a whole. Read, never written.
 * @internal
 */
export interface CheckpointFormat1 {
  readonly version: 1;
  readonly id: string;
  readonly agent: string;
  readonly runId: string;
  readonly createdAt: string;
  /** The paused round's calls (`PendingApproval`s), as format 2 has them too. */
  readonly pending: readonly object[];
  readonly signature: string;
  readonly state: {
    readonly messages: readonly ChatMessage[];
    readonly calls?: readonly {
      readonly callId: string;
      readonly status: ToolOutcomeStatus;
      readonly errorCode?: string;
    }[];
    /** The first call's key per "same tool, same arguments" (`callKey`). */
    readonly idempotencyKeys?: Readonly<Record<string, string>>;
  };
}

const STATUSES: readonly string[] = ["ok", "error", "partial", "skipped"];

/** `call_id` → `callId`: the envelope's metadata keys back as the outcome has them. */
const camel = (key: string): string => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function metadataOf(envelope: Record<string, unknown>): Record<string, JsonValue> {
  const shown = envelope.metadata;
  const out: Record<string, JsonValue> = {};
  if (typeof shown !== "object" || shown === null || Array.isArray(shown)) return out;
  for (const [key, value] of Object.entries(shown as Record<string, JsonValue>)) {
    if (key === "truncation" && typeof value === "object" && value !== null && !Array.isArray(value)) {
      out.truncation = { originalTokens: value.original_tokens ?? null, keptTokens: value.kept_tokens ?? null };
    } else out[camel(key)] = value;
  }
  return out;
}

/** The envelope the model read (format 1 rendered outcomes as it), when the text is one. */
function envelopeOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    const status = (value as { status?: unknown } | null)?.status;
    return typeof status === "string" && STATUSES.includes(status) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The key the model was shown in the envelope's metadata, when it was. */
function shownKey(text: string | undefined): string | undefined {
  const key = envelopeOf(text)?.metadata;
  const shown =
    typeof key === "object" && key !== null ? (key as { idempotency_key?: unknown }).idempotency_key : undefined;
  return typeof shown === "string" ? shown : undefined;
}

/**
 * A settled call's outcome from the tool message the model read: its envelope read back (the
 * default style), or, for a text the envelope does not describe (another `outcomeStyle`), the
 * call's recorded status with the text as its data.
 */
function outcomeOf(
  callId: string,
  tool: string,
  key: string,
  text: string | undefined,
  booked: CheckpointFormat1["state"]["calls"],
): JournaledOutcome {
  const envelope = envelopeOf(text);
  const record = booked?.find((c) => c.callId === callId);
  const status = (envelope?.status as ToolOutcomeStatus | undefined) ?? record?.status ?? "ok";
  const pick = <T>(name: string, type: string): T | undefined =>
    typeof envelope?.[name] === type ? (envelope?.[name] as T) : undefined;
  const errorCode = pick<string>("error_code", "string") ?? record?.errorCode;
  const message = pick<string>("message", "string");
  const suggestion = pick<string>("suggestion", "string");
  const failures = Array.isArray(envelope?.failures) ? (envelope.failures as FailedItem[]) : undefined;
  const data = envelope === undefined ? (text ?? null) : (envelope.data as JsonValue | undefined);
  const metadata = { tool, callId, idempotencyKey: key, ...(envelope ? metadataOf(envelope) : {}) };
  return {
    callId,
    idempotencyKey: key,
    outcome: {
      status,
      retriable: envelope?.retriable === true,
      ...(errorCode === undefined ? {} : { errorCode }),
      ...(message === undefined ? {} : { message }),
      ...(suggestion === undefined ? {} : { suggestion }),
      ...(failures === undefined ? {} : { failures }),
      ...(data === undefined ? {} : { data }),
      metadata,
    },
    formatted: text ?? "",
  };
}

/**
 * A format-1 checkpoint as the journal it stands for (format 2): the run's start from its first
 * messages, a turn per assistant message and, per call of a turn, its start and (when the state
 * holds its tool message) its outcome, with the key the state gave it (a repeat keeps its first
 * call's). Its signature was verified over the format-1 body; the result is not signed again and is
 * never written back as a checkpoint. @internal
 */
export function migrateCheckpointFormat1(
  checkpoint: CheckpointFormat1,
): Omit<CheckpointFormat1, "version" | "state"> & { readonly version: 2; readonly journal: Omit<JournaledRun, "end"> } {
  const { version: _version, state, ...rest } = checkpoint;
  const messages = Array.isArray(state?.messages) ? state.messages : [];
  const text = (role: string) => {
    const found = messages.find((m) => m.role === role);
    return found !== undefined && "content" in found && typeof found.content === "string" ? found.content : "";
  };
  const replies = new Map<string, string | undefined>();
  for (const m of messages) if (m.role === "tool") replies.set(m.toolCallId, m.content);
  const keys = state?.idempotencyKeys ?? {};
  const { runId } = checkpoint;
  const turns: JournaledTurn[] = [];
  const calls: JournaledCall[] = [];
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    const message = m as ChatAssistantMessage;
    turns.push({ index: turns.length, message });
    for (const call of message.toolCalls ?? []) {
      const args = call.arguments as string | Record<string, unknown>;
      if (!replies.has(call.id)) continue;
      // The key format 1 gave the call (a repeat its first call's), as its state recorded it.
      const key =
        keys[callKey(call.name, args)] ?? shownKey(replies.get(call.id)) ?? callIdempotencyKey(runId, call.id);
      const outcome = outcomeOf(call.id, call.name, key, replies.get(call.id), state.calls);
      calls.push({ callId: call.id, tool: call.name, arguments: args as JsonValue, idempotencyKey: key, outcome });
    }
  }
  const journal: Omit<JournaledRun, "end"> = {
    runId,
    agent: checkpoint.agent,
    instructions: text("system"),
    input: text("user"),
    startedAt: checkpoint.createdAt,
    turns,
    calls,
  };
  return { ...rest, version: 2, journal };
}
