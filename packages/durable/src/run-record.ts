import type { ChatResponse, ToolOutcome } from "@needlework/core";
import { toJsonSafe } from "@needlework/core";
import type {
  JournaledCall,
  JournaledCallStart,
  JournaledRun,
  JournaledRunStart,
  JournaledTurn,
} from "./run-journal.js";
import type { ApprovalRecord } from "./approval-record.js";
import { journaledOutcome } from "./journaled-outcome.js";
import { journaledTurn } from "./journaled-turn.js";

/** A call as the run's own record keeps it: its start when one was recorded, its outcome once settled. */
interface HeldCall {
  start?: {
    readonly tool: string;
    readonly arguments: unknown;
    readonly idempotencyKey: string;
    approval?: ApprovalRecord;
  };
  recorded?: JournaledCall;
  outcome?: ToolOutcome;
  /** The key the outcome was recorded with. */
  key?: string;
}

/**
 * The journal of one run as the run itself holds it, in memory: what a checkpoint serializes when
 * the run pauses, and (without a `store`) the only journal the run has. It belongs to the run, not
 * the agent: nothing else references it, so it is dropped with the run when the run returns (an
 * agent that runs a million runs holds no journal of a finished one).
 *
 * Cheap on purpose (every run writes to it): live records are kept by reference, not copied. That
 * is safe because what is recorded is already an immutable snapshot: a model response the loop
 * never changes (it builds its own messages from it), and a tool outcome whose `data` is the
 * JSON-safe snapshot taken when the call settled (later mutation of the tool's object cannot reach
 * it). The JSON form is made only when a checkpoint asks for it ({@link RunRecord.serialize}).
 * Records read back from a journal (a replay's history) are JSON already and kept as they are.
 * For needlework's own packages (`@needlework/durable/internal`), not public API. @internal
 */
export class RunRecord {
  private readonly turns: (JournaledTurn | { readonly index: number; readonly response: ChatResponse })[] = [];
  private readonly calls = new Map<string, HeldCall>();

  /** `start.startedAt`: ISO 8601, or epoch ms (a new run: formatted only when serialized). */
  private readonly start: Omit<JournaledRunStart, "startedAt"> & { readonly startedAt: string | number };

  constructor(
    start: Omit<JournaledRunStart, "startedAt"> & { readonly startedAt: string | number },
    history?: JournaledRun,
  ) {
    const { runId, agent, instructions, input, startedAt } = start;
    this.start = { runId, agent, instructions, input, startedAt };
    if (history === undefined) return;
    this.turns.push(...history.turns);
    for (const call of history.calls) this.calls.set(call.callId, { recorded: call });
  }

  /** A model turn as the loop used it (its tool calls named). */
  turn(index: number, response: ChatResponse): void {
    this.turns.push({ index, response });
  }

  /** A call's start, with its decision record when it has one. */
  callStarted(
    callId: string,
    start: { tool: string; arguments: unknown; idempotencyKey: string; approval?: ApprovalRecord },
  ): void {
    const held = this.calls.get(callId);
    if (held === undefined) this.calls.set(callId, { start });
    else held.start = start;
  }

  /** A call's outcome as it settled, with the key its round gave the call. */
  outcome(callId: string, outcome: ToolOutcome, key: string): void {
    const held = this.calls.get(callId);
    if (held === undefined) this.calls.set(callId, { outcome, key });
    else {
      held.outcome = outcome;
      held.key = key;
    }
  }

  /** The record as JSON: the journal a checkpoint carries (signed with it). */
  serialize(formatOutcome: (outcome: ToolOutcome) => string): JournaledRun {
    const turns: JournaledTurn[] = this.turns.map((t) => ("response" in t ? journaledTurn(t.index, t.response) : t));
    const calls: JournaledCall[] = [];
    for (const [callId, held] of this.calls) {
      const { start, recorded, outcome, key = "" } = held;
      const base: JournaledCallStart =
        start === undefined
          ? (recorded ?? {
              callId,
              tool: String(outcome?.metadata.tool ?? ""),
              arguments: null,
              idempotencyKey: key,
            })
          : {
              callId,
              tool: start.tool,
              arguments: toJsonSafe(start.arguments ?? {}),
              idempotencyKey: start.idempotencyKey,
              ...(start.approval === undefined ? {} : { approval: start.approval }),
            };
      const { outcome: _recorded, ...plain } = base as JournaledCall;
      const settled =
        outcome === undefined ? recorded?.outcome : journaledOutcome(outcome, formatOutcome(outcome), callId, key);
      calls.push(settled === undefined ? plain : { ...plain, outcome: settled });
    }
    const { startedAt } = this.start;
    return {
      ...this.start,
      startedAt: typeof startedAt === "number" ? new Date(startedAt).toISOString() : startedAt,
      turns,
      calls,
    };
  }
}
