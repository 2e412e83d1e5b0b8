/*
 * A journaled run as the page shows it: the events the live run page renders (`run-start`,
 * `turn-start`, `text-delta`, `tool-call`, `tool-result`, `run-health`, `correction`,
 * `approval-required`, `turn-end`, `run-end`), rebuilt from the journal, so both pages share one
 * renderer (public/timeline.js). What reaches the browser is chosen here: ids, names, statuses,
 * codes, the text the model read and wrote. Never a checkpoint (it is a signed capability to resume).
 */
import type { JournaledCall, JournaledRun, RunSummary } from "@needlework/workflows/durable";

/** A payload stored through a codec, shown without one. */
export const ENCODED = "[encoded: start the inspector with the store's codec to read it]";

const MARK = "$codec";

/** Replaces every value a codec sealed (`{ "$codec": "..." }`, or its JSON text) with {@link ENCODED}. */
export function unsealed(value: unknown): unknown {
  if (typeof value === "string") return value.startsWith(`{"${MARK}":`) ? ENCODED : value;
  if (Array.isArray(value)) return value.map(unsealed);
  if (value !== null && typeof value === "object") {
    if (MARK in value) return ENCODED;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unsealed(v)]));
  }
  return value;
}

/** One event of the page's timeline: the shape of an `AgentEvent` the live page renders. */
export type TimelineEvent = { readonly type: string } & Readonly<Record<string, unknown>>;

/** A run for the page: its header and its timeline. */
export interface RunView {
  readonly run: RunSummary & { readonly input: unknown };
  readonly events: readonly TimelineEvent[];
}

type Json = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === "string" ? value : "");
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The conversation's notes after each assistant turn: `run_health` and corrections, 1-based by turn. */
function notesByTurn(messages: unknown): Map<number, TimelineEvent[]> {
  const notes = new Map<number, TimelineEvent[]>();
  if (!Array.isArray(messages)) return notes;
  let turn = 0;
  for (const message of messages) {
    if (!isObject(message)) continue;
    if (message.role === "assistant") turn++;
    else if (message.role === "user" && (message.kind === "run_health" || message.kind === "correction")) {
      const list = notes.get(turn) ?? [];
      if (message.kind === "correction") list.push({ type: "correction", turn, reason: text(message.content) });
      else {
        const health = /run_health (\{.*?\})/.exec(text(message.content))?.[1];
        try {
          if (health) list.push({ type: "run-health", turn, health: JSON.parse(health) as unknown });
        } catch {
          // a note that is not ours: left out
        }
      }
      notes.set(turn, list);
    }
  }
  return notes;
}

/** `run_health` counted from a turn's settled calls, for a run that has not ended (the conversation is not stored until then). */
function healthSoFar(calls: readonly (JournaledCall | undefined)[]): Json {
  let ok = 0;
  let failed = 0;
  for (const call of calls) {
    const status = call?.outcome?.outcome.status;
    if (status === "ok" || status === "partial") ok++;
    else if (status !== undefined) failed++;
  }
  return { tools_ok: ok, tools_failed: failed, tools_not_called: 0, blocking_failure: failed > 0, so_far: true };
}

function resultEvent(turn: number, call: JournaledCall): TimelineEvent | undefined {
  const settled = call.outcome;
  if (!settled) return undefined;
  const { status, errorCode, message, suggestion, metadata } = settled.outcome;
  return {
    type: "tool-result",
    turn,
    callId: call.callId,
    outcome: {
      status,
      ...(errorCode === undefined ? {} : { errorCode }),
      ...(message === undefined ? {} : { message: unsealed(message) }),
      ...(suggestion === undefined ? {} : { suggestion: unsealed(suggestion) }),
      ...(typeof metadata?.attempts === "number" ? { attempts: metadata.attempts } : {}),
    },
    formatted: unsealed(settled.formatted),
  };
}

/** The page's view of a journaled run (read through the codec when the inspector has it). */
export function runView(run: JournaledRun): RunView {
  const end = run.end;
  // Without the codec, a stored result is one sealed value: its text, health and notes stay unread.
  const result = end && isObject(end.result) && !(MARK in end.result) ? end.result : undefined;
  const notes = notesByTurn(result?.messages);
  const pending: Json[] = Array.isArray(result?.pendingApprovals)
    ? (result.pendingApprovals as unknown[]).filter(isObject)
    : [];
  const claimed = new Set<string>();
  const events: TimelineEvent[] = [{ type: "run-start", runId: run.runId }];

  run.turns.forEach((turn, index) => {
    const number = index + 1;
    const message: Json = isObject(turn.message) ? turn.message : {};
    events.push({ type: "turn-start", turn: number });
    const content = unsealed(message.content);
    if (typeof content === "string" && content !== "")
      events.push({ type: "text-delta", turn: number, delta: content });
    const matched: (JournaledCall | undefined)[] = [];
    const toolCalls: Json[] = Array.isArray(message.toolCalls) ? message.toolCalls.filter(isObject) : [];
    for (const toolCall of toolCalls) {
      const id = text(toolCall.id);
      const name = text(toolCall.name);
      // The journal's call id is the provider's, or `<id>_t<turn>` when a model reused an id.
      const call = run.calls.find(
        (c) => !claimed.has(c.callId) && c.tool === name && (c.callId === id || c.callId.startsWith(`${id}_t`)),
      );
      const waiting = call ? undefined : pending.find((p) => p.tool === name && !claimed.has(text(p.callId)));
      const callId = call?.callId ?? (text(waiting?.callId) || id);
      claimed.add(callId);
      matched.push(call);
      events.push({
        type: "tool-call",
        turn: number,
        callId,
        tool: name,
        arguments: unsealed(call ? call.arguments : toolCall.arguments),
      });
      const settled = call && resultEvent(number, call);
      if (settled) events.push(settled);
    }
    const turnNotes = notes.get(number);
    if (turnNotes) events.push(...turnNotes);
    else if (!end && toolCalls.length > 0 && matched.some((c) => c?.outcome))
      events.push({ type: "run-health", turn: number, health: healthSoFar(matched) });
    events.push({ type: "turn-end", turn: number, ...(turn.usage ? { usage: turn.usage } : {}) });
  });

  // Calls no turn names (a compensation, an outcome the runtime made): shown after the last turn.
  const last = Math.max(1, run.turns.length);
  for (const call of run.calls) {
    if (claimed.has(call.callId)) continue;
    events.push({
      type: "tool-call",
      turn: last,
      callId: call.callId,
      tool: call.tool,
      arguments: unsealed(call.arguments),
    });
    const settled = resultEvent(last, call);
    if (settled) events.push(settled);
  }

  if (end) {
    if (end.status === "awaiting_approval")
      events.push({
        type: "approval-required",
        runId: run.runId,
        pending: pending.map((p) => ({ callId: text(p.callId), tool: text(p.tool), arguments: unsealed(p.arguments) })),
      });
    events.push({
      type: "run-end",
      runId: run.runId,
      status: end.status,
      text: result ? unsealed(result.text) : ENCODED,
      ...(result && isObject(result.health) ? { health: result.health } : {}),
      ...(result && isObject(result.usage) ? { usage: result.usage } : {}),
    });
  }
  return {
    run: {
      runId: run.runId,
      agent: run.agent,
      startedAt: run.startedAt,
      status: end?.status ?? "running",
      ...(end ? { endedAt: end.endedAt } : {}),
      input: unsealed(run.input),
    },
    events,
  };
}
