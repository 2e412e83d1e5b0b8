/*
 * A journaled run as the page shows it: the events the live run page renders (`run-start`,
 * `turn-start`, `text-delta`, `tool-call`, `tool-result`, `run-health`, `correction`,
 * `approval-required`, `turn-end`, `run-end`), rebuilt from the journal, so both pages share one
 * renderer (public/timeline.js). What reaches the browser is chosen here: ids, names, statuses,
 * codes, the text the model read and wrote. Never a checkpoint (it is a signed capability to resume).
 *
 * Every step is one pass over the run's turns and calls with Map lookups: a view costs time linear
 * in the run's size (a 20,000-call run was quadratic before, 4-7 s).
 */
import type { JournaledOutcome, JournaledCall, JournaledRun, RunSummary } from "@needlework/durable";
import { healthSoFar, type RunStats, runStats } from "./run-stats.js";

export { type RunStats, runStats } from "./run-stats.js";

/** A payload stored through a codec, shown without one. */
export const ENCODED = "[encoded: start the inspector with the store's codec to read it]";
/** A payload this inspector's codec could not open (another key, or a corrupt record). */
export const UNREADABLE = "[unreadable: the store's codec could not open this value]";

const MARK = "$codec";

/** Replaces every value a codec sealed (`{ "$codec": "..." }`, or its JSON text) with {@link ENCODED}. */
export function unsealed(value: unknown): unknown {
  if (typeof value === "string") return value.startsWith(`{"${MARK}":`) ? ENCODED : value;
  if (Array.isArray(value)) return value.map(unsealed);
  if (value !== null && typeof value === "object") {
    if (Object.hasOwn(value, MARK)) return ENCODED;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unsealed(v)]));
  }
  return value;
}

/** One event of the page's timeline: the shape of an `AgentEvent` the live page renders. */
export type TimelineEvent = { readonly type: string } & Readonly<Record<string, unknown>>;

/**
 * What the inspector did to a run (approve, deny, resume, replay, acknowledge), by whom and when.
 *
 * @example
 * ```ts
 * const record: ActionRecord = { id: "a1", action: "approve", runId: "run_1", callId: "call_1", by: "Ada", at: new Date().toISOString(), result: "done" };
 * ```
 */
export interface ActionRecord {
  readonly id: string;
  /** `approve`, `deny`, `resume`, `cancel`, `replay` or `acknowledge`. */
  readonly action: string;
  readonly runId?: string;
  readonly callId?: string;
  readonly letterId?: string;
  /** Who: the name the person gave the page (required) and, with a token, `token holder`. */
  readonly by: string;
  /** ISO 8601. */
  readonly at: string;
  /** `done`, or the code it failed with. */
  readonly result: string;
}

/** A run for the page: its header, its timeline, and the figures of its list row. */
export interface RunView {
  readonly run: RunSummary & {
    readonly input: unknown;
    readonly instructions: unknown;
    readonly reason?: unknown;
    readonly interrupted?: boolean;
  };
  readonly stats: RunStats;
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
      ...(Array.isArray(metadata?.attemptErrors)
        ? { attemptErrors: metadata.attemptErrors.filter((c): c is string => typeof c === "string") }
        : {}),
      ...(typeof metadata?.latencyMs === "number" ? { latencyMs: metadata.latencyMs } : {}),
      // The MCP server a remote tool ran on (`connectMcpServer(name, ...)`): its name, never its address.
      ...(typeof metadata?.server === "string" ? { server: metadata.server } : {}),
    },
    formatted: unsealed(settled.formatted === "" ? artifactText(settled.outcome) : settled.formatted),
  };
}

/**
 * What the journal keeps of an outcome of an artifact instead of its text (a stored result's
 * preview and reference, or that a page was read): shown where the text would be.
 */
function artifactText(outcome: JournaledOutcome["outcome"]): string {
  const { status, artifact, data } = outcome;
  if (artifact === undefined && data === undefined) return "(a page of an artifact: read again from it on replay)";
  return JSON.stringify({
    status,
    ...(artifact === undefined ? {} : { artifact }),
    ...(data === undefined ? {} : { data }),
  });
}

/**
 * The journal's calls by the keys a model's tool call can name them by: its id, or `<id>_t<turn>`
 * when a model reused an id. Each key lists its calls in start order; a cursor skips claimed ones.
 */
class CallIndex {
  private readonly byKey = new Map<string, { calls: JournaledCall[]; next: number }>();
  readonly claimed = new Set<string>();

  constructor(calls: readonly JournaledCall[]) {
    for (const call of calls) {
      this.add(call.tool, call.callId, call);
      // Every prefix before a `_t`: `id_t2` is found by `id` (a handful of positions per id at most).
      for (let at = call.callId.indexOf("_t"); at > 0; at = call.callId.indexOf("_t", at + 1))
        this.add(call.tool, call.callId.slice(0, at), call);
    }
  }

  private add(tool: string, key: string, call: JournaledCall): void {
    const k = `${tool}\u0000${key}`;
    const entry = this.byKey.get(k);
    if (entry) entry.calls.push(call);
    else this.byKey.set(k, { calls: [call], next: 0 });
  }

  /** The first unclaimed call of `tool` named `id` (or `id_t<n>`). */
  take(tool: string, id: string): JournaledCall | undefined {
    const entry = this.byKey.get(`${tool}\u0000${id}`);
    if (!entry) return undefined;
    while (entry.next < entry.calls.length) {
      const call = entry.calls[entry.next]!;
      if (!this.claimed.has(call.callId)) return call;
      entry.next++;
    }
    return undefined;
  }
}

/** Arguments worth showing: a read-only tool has no start record, so its journaled arguments are empty. */
const shownArguments = (fromCall: unknown, fromTurn: unknown): unknown =>
  fromCall === null || fromCall === undefined ? fromTurn : fromCall;

/**
 * The page's view of a journaled run (read through the codec when the inspector has it).
 * `interrupted`: the run has not ended and no live process holds its lease.
 */
export function runView(run: JournaledRun, options: { interrupted?: boolean; now?: number } = {}): RunView {
  const end = run.end;
  // Without the codec, a stored result is one sealed value: its text, health and notes stay unread.
  const result = end && isObject(end.result) && !Object.hasOwn(end.result, MARK) ? end.result : undefined;
  const notes = notesByTurn(result?.messages);
  const pending: Json[] = Array.isArray(result?.pendingApprovals)
    ? (result.pendingApprovals as unknown[]).filter(isObject)
    : [];
  const pendingByTool = new Map<string, Json[]>();
  for (const p of pending) {
    const list = pendingByTool.get(text(p.tool));
    if (list) list.push(p);
    else pendingByTool.set(text(p.tool), [p]);
  }
  const index = new CallIndex(run.calls);
  const { claimed } = index;
  const events: TimelineEvent[] = [{ type: "run-start", runId: run.runId }];

  run.turns.forEach((turn, position) => {
    const number = position + 1;
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
      const call = index.take(name, id);
      let waiting: Json | undefined;
      if (!call) {
        const queue = pendingByTool.get(name);
        while (queue && queue.length > 0 && claimed.has(text(queue[0]!.callId))) queue.shift();
        waiting = queue?.shift();
      }
      const callId = call?.callId ?? (text(waiting?.callId) || id);
      claimed.add(callId);
      matched.push(call);
      events.push({
        type: "tool-call",
        turn: number,
        callId,
        tool: name,
        // A call awaiting approval shows the arguments its approval runs (the pending call's,
        // parsed by the tool's schema), never the model's raw text.
        arguments: unsealed(shownArguments(call?.arguments, waiting ? waiting.arguments : toolCall.arguments)),
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

  const paused = end?.status === "awaiting_approval";
  if (end) {
    if (paused)
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
      ...(result && isObject(result.health) && !paused ? { health: result.health } : {}),
      ...(result && isObject(result.usage) ? { usage: result.usage } : {}),
      ...(result && typeof result.reason === "string" ? { reason: unsealed(result.reason) } : {}),
    });
  }
  const interrupted = !end && options.interrupted === true;
  return {
    run: {
      runId: run.runId,
      agent: run.agent,
      startedAt: run.startedAt,
      status: end?.status ?? (interrupted ? "interrupted" : "running"),
      ...(end ? { endedAt: end.endedAt } : {}),
      ...(interrupted ? { interrupted: true } : {}),
      input: unsealed(run.input),
      instructions: unsealed(run.instructions),
      ...(result && typeof result.reason === "string" ? { reason: unsealed(result.reason) } : {}),
    },
    stats: runStats(run, options.now),
    events,
  };
}

/** The pending calls of a paused run, with the checkpoint to resume it (never sent to the page). */
export function pausedRun(
  run: JournaledRun,
): { checkpoint: unknown; pending: readonly { callId: string; tool: string }[] } | undefined {
  const result = run.end?.status === "awaiting_approval" && isObject(run.end.result) ? run.end.result : undefined;
  if (!result || !isObject(result.checkpoint) || !Array.isArray(result.pendingApprovals)) return undefined;
  return {
    checkpoint: result.checkpoint,
    pending: (result.pendingApprovals as unknown[])
      .filter(isObject)
      .map((p) => ({ callId: text(p.callId), tool: text(p.tool) })),
  };
}
