/*
 * The pieces every route shares: a refusal with a status and a code, query and path parameters read
 * strictly, who acts, a store error as the page may read it, and whether a run's worker is gone.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { AgentStore, ManagedDeadLetterQueue, RunJournal, StoredDeadLetter } from "@needlework/durable";
import type { Context } from "hono";

/** Whether the dead-letter queue has ids and acknowledge (every built-in store's does). */
export function isManaged(queue: AgentStore["deadLetters"]): queue is ManagedDeadLetterQueue {
  return typeof (queue as Partial<ManagedDeadLetterQueue>).acknowledge === "function";
}

/** Every built-in queue claims a letter before a replay (one at a time, across processes on a shared store). */
export interface Replayable {
  replay(id: string, handler: (letter: StoredDeadLetter) => Promise<void>): Promise<boolean>;
}
export const canReplay = (queue: unknown): queue is Replayable => typeof (queue as Replayable).replay === "function";

export class HttpError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 405 | 409 | 421 | 500 | 503,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A key of this process for {@link sameSecret}'s digests (never leaves memory). */
const SECRET_DIGEST_KEY = randomBytes(32);

/**
 * Whether a token given matches the expected one, in time that tells nothing of either: both are
 * digested (HMAC-SHA-256, fixed 32 bytes) and the digests compared with `timingSafeEqual`, so a
 * token of any length takes the same path (comparing lengths first would reveal the token's length).
 */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHmac("sha256", SECRET_DIGEST_KEY).update(text, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** An integer query parameter in range, or `fallback` when absent; a bad one is a 400. */
export function integer(c: Context, name: string, fallback: number, max: number): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new HttpError(400, `'${name}' must be an integer from 0 to ${max}.`);
  return value;
}

/** A time query parameter (ISO 8601 or a date), or undefined; a bad one is a 400. */
export function time(c: Context, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return undefined;
  const value = Date.parse(raw);
  if (Number.isNaN(value)) throw new HttpError(400, `'${name}' must be a date or an ISO 8601 time.`);
  return value;
}

/** An id from the path: percent-decoded, printable, at most 500 characters; anything else is a 400. */
export function idFrom(c: Context, name: string): string {
  const raw = /^\/api\/(?:runs|dead-letters)\/([^/]+)/.exec(c.req.path)?.[1] ?? c.req.param(name) ?? "";
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, "Malformed id in the address.");
  }
  if (id === "" || id.length > 500 || /[\u0000-\u001f\u007f]/.test(id))
    throw new HttpError(400, "Malformed id in the address.");
  return id;
}

/** Store error codes that mean "the schema is not there": the page names `migrate()`. */
const NOT_MIGRATED = "STORE_NOT_MIGRATED";

/** A store or journal error as the page reads it: a fixed text and the error's code, never its message. */
export function failure(error: unknown): { status: HttpError["status"]; body: { error: string; code?: string } } {
  if (error instanceof HttpError)
    return { status: error.status, body: { error: error.message, ...(error.code ? { code: error.code } : {}) } };
  const raw = (error as { code?: unknown } | null)?.code;
  const code = typeof raw === "string" && /^[A-Z][A-Z0-9_]*$/.test(raw) ? raw : undefined;
  if (code === "INVALID_QUERY") return { status: 400, body: { error: "Invalid query.", code } };
  // A run id this store cannot name (the file store's ids are file names): the address is malformed.
  if (code === "INVALID_RUN_ID") return { status: 400, body: { error: "Malformed id in the address.", code } };
  if (code === "RUN_NOT_FOUND") return { status: 404, body: { error: "No run with this id in the store.", code } };
  if (code === NOT_MIGRATED)
    return {
      status: 503,
      body: {
        error: "The store's tables do not exist yet: run your app's `await store.migrate()` once, then reload.",
        code,
      },
    };
  return { status: 500, body: { error: "The store could not be read.", ...(code ? { code } : {}) } };
}

/** The name the page was given for who acts (control characters removed, at most 80), or "" for none. */
export function operatorName(c: Context): string {
  return (c.req.header("x-needlework-operator") ?? "")
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 80);
}

/** Who acts: the name the page was given (required before any action), and `token holder` when a token is required. */
export function actor(c: Context, tokenSet: boolean): string {
  const name = operatorName(c);
  return tokenSet ? `${name} (token holder)` : name;
}

/** A run's status for the list: `interrupted` when it has not ended and no live process holds its lease. */
export async function leaseExpired(journal: RunJournal, runId: string): Promise<boolean> {
  if (typeof journal.leaseOf !== "function") return false;
  const lease = await journal.leaseOf(runId);
  return lease === undefined || Date.parse(lease.expiresAt) <= Date.now();
}
