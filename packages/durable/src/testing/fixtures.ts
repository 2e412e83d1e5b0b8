import { callIdempotencyKey } from "@needlework/core/kit";
import type {
  AgentStore,
  JournaledCallStart,
  JournaledOutcome,
  JournaledRunStart,
  JournaledTurn,
} from "../run-journal.js";

/**
 * Opens handles on one fresh, empty store whose leases last `leaseMs`: `first` and `second` act as
 * two processes sharing it (two pools on one database, two objects on one directory; for an
 * in-memory store, the same object twice). Called once per test; close what it opened in your own
 * `afterEach`.
 *
 * @example
 * ```ts
 * const open: OpenStores = async ({ leaseMs }) => {
 *   const store = new InMemoryRunStore({ leaseMs });
 *   return { first: store, second: store };
 * };
 * ```
 */
export type OpenStores = (options: {
  readonly leaseMs: number;
}) => Promise<{ readonly first: AgentStore; readonly second: AgentStore }>;

/** A lease long enough that no test outlives it by accident. */
export const LONG_LEASE_MS = 60_000;
/** A lease short enough that a test waits for it to expire. */
export const SHORT_LEASE_MS = 100;

let sequence = 0;
/** A run id unique in this process (stores are fresh per test; ids are unique anyway). */
export function runIdFor(label: string): string {
  sequence += 1;
  return `contract_${label}_${process.pid}_${sequence}`;
}

/** The start of a run, `minutesAgo` minutes before a fixed instant (so order is known). */
export function startOf(runId: string, agent = "contract-agent", minutesAgo = 0): JournaledRunStart {
  const startedAt = new Date(Date.UTC(2026, 0, 1, 12, 0, 0) - minutesAgo * 60_000).toISOString();
  return { runId, agent, instructions: "Sync the contact.", input: "Sync c1 — “now” \u{1F600}", startedAt };
}

/** A model turn asking for `callIds` (ids the calls started afterwards use). */
export function turnOf(index: number, callIds: readonly string[] = [], content?: string): JournaledTurn {
  return {
    index,
    message: {
      role: "assistant",
      ...(content === undefined ? {} : { content }),
      ...(callIds.length === 0
        ? {}
        : { toolCalls: callIds.map((id) => ({ id, name: "crm_upsert", arguments: { id, note: "a\u0000b ü" } })) }),
    },
    usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
    finishReason: callIds.length === 0 ? "stop" : "tool_calls",
  };
}

/** The start of a call a turn asked for. */
export function callOf(runId: string, callId: string): JournaledCallStart {
  return {
    callId,
    tool: "crm_upsert",
    // U+E000 and four hex digits: what PostgresStore's own escape looks like, kept as written.
    arguments: { id: callId, note: "a\u0000b ü \uE0000041", nested: { list: [1, 2.5, null, true, "x"] } },
    idempotencyKey: callIdempotencyKey(runId, callId),
  };
}

/** A settled outcome of a call, with the key {@link callOf} gives it. */
export function outcomeOf(runId: string, callId: string): JournaledOutcome {
  return {
    callId,
    idempotencyKey: callIdempotencyKey(runId, callId),
    outcome: {
      status: "ok",
      retriable: false,
      data: { id: callId, saved: true, text: "line\nbreak \u0000 \u{1F600}" },
      metadata: { tool: "crm_upsert", callId, attempts: 1, latencyMs: 3 },
    },
    formatted: `{"status":"ok","data":{"id":"${callId}"}}`,
  };
}

/**
 * Resolves once `owner` takes the run: a lease that is still live is asked again after a wait of
 * its length, so the test waits for the store's own clock (a database's), never for a guessed time.
 */
export async function takeWhenFree(take: () => Promise<boolean>, leaseMs: number, attempts = 200): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    try {
      if (await take()) return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "RUN_BUSY") throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, leaseMs));
  }
  throw new Error(`The run's lease never expired after ${attempts} waits of ${leaseMs} ms.`);
}
