import type { JsonValue } from "@needlework/core";
import type { PayloadCodec } from "./payload-codec.js";
import type {
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
  RunJournal,
} from "./run-journal.js";

// A payload stored through a codec is `{ "$codec": "<encoded JSON>" }` where a JSON value goes, and
// that object's JSON text where a string goes. A record written before the codec was configured
// has no such wrapper and is read as it is, so turning a codec on needs no migration.

const MARK = "$codec";

/** Encodes and decodes the payloads of journal records; everything else passes as it is. @internal */
export class PayloadSealer {
  constructor(private readonly codec: PayloadCodec) {}

  async value(value: unknown): Promise<JsonValue> {
    return { [MARK]: await this.codec.encode(JSON.stringify(value ?? null)) };
  }

  async text(text: string): Promise<string> {
    return JSON.stringify(await this.value(text));
  }

  async openValue<T>(stored: unknown): Promise<T> {
    if (stored !== null && typeof stored === "object" && !Array.isArray(stored) && MARK in stored) {
      const sealed = (stored as Record<string, unknown>)[MARK];
      if (typeof sealed === "string") return JSON.parse(await this.codec.decode(sealed)) as T;
    }
    return stored as T;
  }

  async openText(stored: string): Promise<string> {
    if (!stored.startsWith(`{"${MARK}":`)) return stored;
    try {
      return String(await this.openValue(JSON.parse(stored)));
    } catch (error) {
      if (error instanceof SyntaxError) return stored;
      throw error;
    }
  }
}

/**
 * A journal whose payloads pass through `codec`: input, instructions, model messages, tool
 * arguments, outcomes (all but status, retriable, error code and metadata's tool, call id and key),
 * formatted text and results are stored encoded; run and call ids, agent and tool names, statuses,
 * error codes and times stay readable. Stores wrap their journal in it when given a `codec`.
 * @internal
 */
export function codecJournal(inner: RunJournal, codec: PayloadCodec): RunJournal {
  const seal = new PayloadSealer(codec);
  const sealOutcome = async (o: JournaledOutcome): Promise<JournaledOutcome> => {
    const { status, retriable, errorCode, metadata, ...payload } = o.outcome;
    const readable = {
      tool: metadata["tool"] ?? "",
      callId: metadata["callId"] ?? "",
      idempotencyKey: metadata["idempotencyKey"] ?? "",
    };
    const sealed = await seal.value({ ...payload, metadata });
    return {
      callId: o.callId,
      outcome: {
        status,
        retriable,
        ...(errorCode === undefined ? {} : { errorCode }),
        metadata: { ...readable, [MARK]: sealed },
      },
      formatted: await seal.text(o.formatted),
    };
  };
  const openOutcome = async (o: JournaledOutcome): Promise<JournaledOutcome> => {
    const sealed = o.outcome.metadata[MARK];
    if (sealed === undefined) return o;
    const { status, retriable, errorCode } = o.outcome;
    const payload =
      await seal.openValue<Omit<JournaledOutcome["outcome"], "status" | "retriable" | "errorCode">>(sealed);
    return {
      callId: o.callId,
      outcome: { status, retriable, ...(errorCode === undefined ? {} : { errorCode }), ...payload },
      formatted: await seal.openText(o.formatted),
    };
  };
  return {
    get leaseMs() {
      return inner.leaseMs;
    },
    async runStarted(start: JournaledRunStart, owner: string) {
      const sealed = {
        ...start,
        instructions: await seal.text(start.instructions),
        input: await seal.text(start.input),
      };
      return inner.runStarted(sealed, owner);
    },
    lease: (runId, owner) => inner.lease(runId, owner),
    release: (runId, owner) => inner.release(runId, owner),
    ...(inner.leaseOf ? { leaseOf: (runId: string) => inner.leaseOf!(runId) } : {}),
    async turn(runId: string, turn: JournaledTurn, owner: string) {
      const message = (await seal.value(turn.message)) as unknown as JournaledTurn["message"];
      return inner.turn(runId, { ...turn, message }, owner);
    },
    async callsStarted(runId: string, calls: readonly JournaledCallStart[], owner: string) {
      const sealed = await Promise.all(calls.map(async (c) => ({ ...c, arguments: await seal.value(c.arguments) })));
      return inner.callsStarted(runId, sealed, owner);
    },
    async outcomes(runId: string, outcomes: readonly JournaledOutcome[], owner: string) {
      return inner.outcomes(runId, await Promise.all(outcomes.map(sealOutcome)), owner);
    },
    async runEnded(runId: string, end: JournaledRunEnd, owner: string) {
      return inner.runEnded(runId, { ...end, result: await seal.value(end.result) }, owner);
    },
    // Summaries hold no payload: nothing to encode or decode.
    list: (query) => inner.list(query),
    async read(runId: string): Promise<JournaledRun | undefined> {
      const run = await inner.read(runId);
      if (run === undefined) return undefined;
      return {
        ...run,
        instructions: await seal.openText(run.instructions),
        input: await seal.openText(run.input),
        turns: await Promise.all(
          run.turns.map(async (t) => ({ ...t, message: await seal.openValue<JournaledTurn["message"]>(t.message) })),
        ),
        calls: await Promise.all(
          run.calls.map(async (c) => ({
            ...c,
            arguments: await seal.openValue<JsonValue>(c.arguments),
            ...(c.outcome === undefined ? {} : { outcome: await openOutcome(c.outcome) }),
          })),
        ),
        ...(run.end === undefined
          ? {}
          : { end: { ...run.end, result: await seal.openValue<JsonValue>(run.end.result) } }),
      };
    },
  };
}

/** A dead-letter entry with its payloads (arguments, outcomes, reason) sealed; the rest stays readable. @internal */
export async function sealDeadLetter<T extends { arguments: unknown; outcomes: readonly unknown[]; reason: string }>(
  seal: PayloadSealer,
  entry: T,
): Promise<T> {
  return {
    ...entry,
    arguments: await seal.value(entry.arguments),
    outcomes: [await seal.value(entry.outcomes)],
    reason: await seal.text(entry.reason),
  };
}

/** A dead-letter entry as `sealDeadLetter` was given it (an entry stored without a codec is returned as it is). @internal */
export async function openDeadLetter<T extends { arguments: unknown; outcomes: readonly unknown[]; reason: string }>(
  seal: PayloadSealer,
  entry: T,
): Promise<T> {
  const [sealedOutcomes] = entry.outcomes;
  const outcomes =
    entry.outcomes.length === 1 &&
    sealedOutcomes !== null &&
    typeof sealedOutcomes === "object" &&
    MARK in sealedOutcomes
      ? await seal.openValue<unknown[]>(sealedOutcomes)
      : entry.outcomes;
  return {
    ...entry,
    arguments: await seal.openValue(entry.arguments),
    outcomes,
    reason: typeof entry.reason === "string" ? await seal.openText(entry.reason) : entry.reason,
  };
}
