import { randomUUID } from "node:crypto";
import type { JsonValue } from "@needlework/core";
import { callIdempotencyKey } from "@needlework/core/kit";
import type { PayloadCodec, PayloadContext } from "./payload-codec.js";
import { RunStoreError } from "./run-store-error.js";
import { withoutPayload } from "./codec-unsealed-members.js";
import { placedIn, type StoreIdentity, storeIdentityOf } from "./store-identity.js";
import type {
  JournaledCall,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRun,
  JournaledRunEnd,
  JournaledRunStart,
  JournaledTurn,
  JournalCommit,
  RunJournal,
} from "./run-journal.js";

// A payload stored through a codec is `{ "$codec": "<encoded JSON>" }` (as JSON text where a string
// goes), encoded with its place (PayloadContext: run, field, call id or turn index), so a codec that
// binds values to their place (aesGcmCodec) refuses one moved elsewhere. With a codec, a payload
// stored without that wrapper (in clear) is refused with PAYLOAD_UNSEALED, never read as it is.

const MARK = "$codec";

/** The journal's store area (`PayloadContext.namespace`). */
export const JOURNAL_NAMESPACE = "journal";

function unsealedPayload(context: PayloadContext | undefined): RunStoreError {
  const where = context === undefined ? "a payload" : `the ${context.kind} of run '${context.runId}'`;
  return new RunStoreError(
    "PAYLOAD_UNSEALED",
    `The store has a codec, but ${where} is stored in clear, where a sealed value belongs: it was ` +
      "written without the codec, or by someone without the key. It is not read.",
  );
}

/**
 * Encodes and decodes payloads with a {@link PayloadCodec}, marking each sealed value so a payload
 * stored in clear where a sealed one belongs is refused (`PAYLOAD_UNSEALED`). What
 * {@link sealDeadLetter} and {@link openDeadLetter} use; a store with its own dead-letter table
 * keeps one per store.
 *
 * @example
 * ```ts
 * const seal = new PayloadSealer(aesGcmCodec(key));
 * await queue.add(await sealDeadLetter(seal, entry));
 * ```
 */
export class PayloadSealer {
  private readonly store: () => Promise<string | undefined>;

  /** `store`: the store's identity, added to every context (a value sealed elsewhere does not open). */
  constructor(
    private readonly codec: PayloadCodec,
    store?: StoreIdentity,
  ) {
    this.store = storeIdentityOf(store);
  }

  async value(value: unknown, context?: PayloadContext): Promise<JsonValue> {
    return { [MARK]: await this.codec.encode(JSON.stringify(value ?? null), await placedIn(context, this.store)) };
  }

  async text(text: string, context?: PayloadContext): Promise<string> {
    return JSON.stringify(await this.value(text, context));
  }

  /** The value `value()` sealed; `PAYLOAD_UNSEALED` for anything else. */
  async openValue<T>(stored: unknown, context?: PayloadContext): Promise<T> {
    if (stored !== null && typeof stored === "object" && !Array.isArray(stored) && Object.hasOwn(stored, MARK)) {
      const sealed = (stored as Record<string, unknown>)[MARK];
      if (typeof sealed === "string" && Object.keys(stored).length === 1) {
        const plain = await this.codec.decode(sealed, await placedIn(context, this.store));
        try {
          return JSON.parse(plain) as T;
        } catch {
          throw new RunStoreError("PAYLOAD_UNREADABLE", "A stored payload decoded to text that is not JSON.");
        }
      }
    }
    throw unsealedPayload(context);
  }

  /** The text `text()` sealed; `PAYLOAD_UNSEALED` for anything else. */
  async openText(stored: string, context?: PayloadContext): Promise<string> {
    let parsed: unknown;
    try {
      parsed = typeof stored === "string" && stored.startsWith(`{"${MARK}":`) ? JSON.parse(stored) : undefined;
    } catch {
      parsed = undefined;
    }
    const text = await this.openValue<unknown>(parsed, context);
    if (typeof text !== "string") throw unsealedPayload(context);
    return text;
  }
}

/** Options of {@link codecJournal}. */
export interface CodecJournalOptions {
  /** The store area (`PayloadContext.namespace`). Default `journal`. */
  readonly namespace?: string;
  /** The store's identity (`PayloadContext.store`): a value sealed in another store does not open. */
  readonly store?: StoreIdentity;
}

/**
 * A journal whose payloads pass through `codec`: input, instructions, model messages, tool
 * arguments, outcomes (all but status, retriable, error code and metadata's tool, call id and key),
 * formatted text and results are stored encoded; run and call ids, agent and tool names, statuses,
 * error codes and times stay readable. Stores wrap their journal in it when given a `codec`: a
 * third-party store gets encryption at rest by wrapping its journal the same way, naming its
 * identity (`store`) so its values do not open in another store that shares the key.
 *
 * @example
 * ```ts
 * const journal = codec === undefined ? inner : codecJournal(inner, codec, { store: "postgres:needlework" });
 * ```
 */
export function codecJournal(
  inner: RunJournal,
  codec: PayloadCodec,
  options: string | CodecJournalOptions = {},
): RunJournal {
  const { namespace = JOURNAL_NAMESPACE, store } = typeof options === "string" ? { namespace: options } : options;
  const seal = new PayloadSealer(codec, store);
  // Call ids are the model's (or its provider's) to choose, so with a codec they never reach a clear
  // column: a call is stored as `t<turn>c<position>`, its place in the (sealed) turn that asked for
  // it, which any process holding the key derives again from the turns. A call no recorded turn
  // names gets a random name; its own id is then kept in its sealed outcome.
  const pseudonyms = new Map<string, Map<string, string>>();
  const namesOf = (runId: string): Map<string, string> => {
    let names = pseudonyms.get(runId);
    if (names === undefined) pseudonyms.set(runId, (names = new Map()));
    return names;
  };
  const learn = (runId: string, turn: JournaledTurn): void => {
    const names = namesOf(runId);
    for (const [i, call] of (turn.message.toolCalls ?? []).entries())
      if (typeof call.id === "string") names.set(call.id, `t${turn.index}c${i}`);
  };
  const pseudonym = (runId: string, callId: string): string => {
    const names = namesOf(runId);
    let name = names.get(callId);
    if (name === undefined) names.set(callId, (name = `x${randomUUID()}`));
    return name;
  };
  const clearKey = (runId: string, name: string): string => `${runId}:${name}`;
  const at = (runId: string, kind: string, ref?: string | number): PayloadContext => ({
    namespace,
    runId,
    kind,
    ...(ref === undefined ? {} : { ref: String(ref) }),
  });
  const sealOutcome = async (runId: string, o: JournaledOutcome): Promise<JournaledOutcome> => {
    const { status, retriable, errorCode, metadata, ...payload } = o.outcome;
    const name = pseudonym(runId, o.callId);
    const readable = {
      // A tool the agent does not know: its name is the model's, kept sealed only.
      tool: errorCode === "UNKNOWN_TOOL" ? "" : (metadata["tool"] ?? ""),
      callId: name,
      idempotencyKey: clearKey(runId, name),
    };
    const sealed = await seal.value(
      { ...payload, metadata, callId: o.callId, idempotencyKey: o.idempotencyKey },
      at(runId, "outcome", name),
    );
    return {
      callId: name,
      idempotencyKey: clearKey(runId, name),
      outcome: {
        status,
        retriable,
        ...(errorCode === undefined ? {} : { errorCode }),
        metadata: { ...readable, [MARK]: sealed },
      },
      formatted: await seal.text(o.formatted, at(runId, "formatted", name)),
    };
  };
  /** An outcome as sealOutcome was given it; `callId` is the call's own id when its payload names it. */
  const openOutcome = async (runId: string, o: JournaledOutcome, callId: string): Promise<JournaledOutcome> => {
    const { status, retriable, errorCode } = o.outcome;
    const {
      callId: own,
      idempotencyKey: key,
      ...payload
    } = await seal.openValue<
      Omit<JournaledOutcome["outcome"], "status" | "retriable" | "errorCode"> & {
        callId?: string;
        idempotencyKey?: string;
      }
    >(Object.hasOwn(o.outcome.metadata, MARK) ? o.outcome.metadata[MARK] : undefined, at(runId, "outcome", o.callId));
    const outcome = { status, retriable, ...(errorCode === undefined ? {} : { errorCode }), ...payload };
    return {
      callId: typeof own === "string" ? own : callId,
      // Sealed with the outcome; an outcome sealed before the key was kept has it in its metadata.
      idempotencyKey: key ?? String(payload.metadata["idempotencyKey"] ?? ""),
      outcome,
      formatted: await seal.openText(o.formatted, at(runId, "formatted", o.callId)),
    };
  };
  const sealStart = async (start: JournaledRunStart): Promise<JournaledRunStart> => ({
    ...start,
    instructions: await seal.text(start.instructions, at(start.runId, "instructions")),
    input: await seal.text(start.input, at(start.runId, "input")),
  });
  const sealTurn = async (runId: string, turn: JournaledTurn): Promise<JournaledTurn> => {
    learn(runId, turn);
    const message = (await seal.value(
      turn.message,
      at(runId, "turn", turn.index),
    )) as unknown as JournaledTurn["message"];
    return { ...turn, message };
  };
  /**
   * A call's key as its start sealed it. A start sealed before keys were (its key its pseudonym's)
   * reads the key its outcome recorded; one in flight then had the key of its own id (repeats kept
   * no key of their own in that format).
   */
  const openKey = async (runId: string, c: JournaledCall, outcome: JournaledOutcome | undefined, callId: string) => {
    if (c.idempotencyKey.startsWith(`{"${MARK}":`)) return seal.openText(c.idempotencyKey, at(runId, "key", c.callId));
    if (c.idempotencyKey !== clearKey(runId, c.callId)) return c.idempotencyKey;
    return outcome?.idempotencyKey || callIdempotencyKey(runId, callId);
  };
  const sealCalls = (runId: string, calls: readonly JournaledCallStart[]): Promise<JournaledCallStart[]> =>
    Promise.all(
      calls.map(async (c) => {
        const name = pseudonym(runId, c.callId);
        const args = await seal.value(c.arguments, at(runId, "arguments", name));
        // The key is the call's own (a repeat keeps its first call's): sealed, so it names no call id.
        const idempotencyKey = await seal.text(c.idempotencyKey, at(runId, "key", name));
        return { ...c, callId: name, idempotencyKey, arguments: args };
      }),
    );
  return {
    get leaseMs() {
      return inner.leaseMs;
    },
    async runStarted(start: JournaledRunStart, owner: string) {
      return inner.runStarted(await sealStart(start), owner);
    },
    lease: (runId, owner) => inner.lease(runId, owner),
    renew: (runId, owner) => inner.renew(runId, owner),
    release: (runId, owner) => inner.release(runId, owner),
    ...withoutPayload(inner),
    async turn(runId: string, turn: JournaledTurn, owner: string) {
      return inner.turn(runId, await sealTurn(runId, turn), owner);
    },
    async callsStarted(runId: string, calls: readonly JournaledCallStart[], owner: string) {
      return inner.callsStarted(runId, await sealCalls(runId, calls), owner);
    },
    async outcomes(runId: string, outcomes: readonly JournaledOutcome[], owner: string) {
      return inner.outcomes(runId, await Promise.all(outcomes.map((o) => sealOutcome(runId, o))), owner);
    },
    async runEnded(runId: string, end: JournaledRunEnd, owner: string) {
      await inner.runEnded(runId, { ...end, result: await seal.value(end.result, at(runId, "result")) }, owner);
      pseudonyms.delete(runId); // a continuation reads the run again, and learns its names from the turns
    },
    // Summaries hold no payload: nothing to encode or decode.
    list: (query) => inner.list(query),
    read: async (runId: string) => open(runId, await inner.read(runId)),
    ...(inner.commit === undefined
      ? {}
      : {
          async commit(runId: string, records: JournalCommit, owner: string) {
            // Turns are sealed first: a turn teaches the names its calls are stored under.
            const start = records.start === undefined ? undefined : await sealStart(records.start);
            const turns =
              records.turns === undefined ? undefined : await Promise.all(records.turns.map((t) => sealTurn(runId, t)));
            const outcomes =
              records.outcomes === undefined
                ? undefined
                : await Promise.all(records.outcomes.map((o) => sealOutcome(runId, o)));
            const calls = records.calls === undefined ? undefined : await sealCalls(runId, records.calls);
            const end =
              records.end === undefined
                ? undefined
                : { ...records.end, result: await seal.value(records.end.result, at(runId, "result")) };
            const done = await inner.commit!(
              runId,
              {
                ...(start === undefined ? {} : { start }),
                ...(outcomes === undefined ? {} : { outcomes }),
                ...(turns === undefined ? {} : { turns }),
                ...(calls === undefined ? {} : { calls }),
                ...(end === undefined ? {} : { end }),
                ...(records.release === true ? { release: true } : {}),
              },
              owner,
            );
            if (end !== undefined) pseudonyms.delete(runId);
            return done;
          },
        }),
    ...(inner.takeAndRead === undefined
      ? {}
      : {
          takeAndRead: async (runId: string, owner: string, agent: string) =>
            open(runId, await inner.takeAndRead!(runId, owner, agent)),
        }),
  };
  async function open(runId: string, run: JournaledRun | undefined): Promise<JournaledRun | undefined> {
    if (run === undefined) return undefined;
    const turns = await Promise.all(
      run.turns.map(async (t) => ({
        ...t,
        message: await seal.openValue<JournaledTurn["message"]>(t.message, at(runId, "turn", t.index)),
      })),
    );
    for (const turn of turns) learn(runId, turn);
    const ownIds = new Map([...namesOf(runId)].map(([own, name]) => [name, own]));
    return {
      ...run,
      instructions: await seal.openText(run.instructions, at(runId, "instructions")),
      input: await seal.openText(run.input, at(runId, "input")),
      turns,
      calls: await Promise.all(
        run.calls.map(async (c): Promise<JournaledCall> => {
          const outcome = c.outcome === undefined ? undefined : await openOutcome(runId, c.outcome, c.callId);
          const callId = ownIds.get(c.callId) ?? outcome?.callId ?? c.callId;
          if (callId !== c.callId) namesOf(runId).set(callId, c.callId);
          const idempotencyKey = await openKey(runId, c, outcome, callId);
          return {
            ...c,
            callId,
            idempotencyKey,
            // A call known by its outcome only (no start record) has no arguments.
            arguments:
              c.arguments === null
                ? null
                : await seal.openValue<JsonValue>(c.arguments, at(runId, "arguments", c.callId)),
            tool: c.tool === "" && outcome !== undefined ? String(outcome.outcome.metadata["tool"] ?? "") : c.tool,
            ...(outcome === undefined ? {} : { outcome: { ...outcome, callId } }),
          };
        }),
      ),
      ...(run.end === undefined
        ? {}
        : { end: { ...run.end, result: await seal.openValue<JsonValue>(run.end.result, at(runId, "result")) } }),
    };
  }
}
