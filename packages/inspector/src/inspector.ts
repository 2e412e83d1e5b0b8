import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { EventEmitter } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import { InvalidOptionError } from "@needlework/core";
import type {
  AgentStore,
  ArtifactStore,
  DeadLetterFilter,
  JournaledRun,
  ManagedDeadLetterQueue,
  PayloadCodec,
  RunJournal,
  RunSummary,
  StoredDeadLetter,
} from "@needlework/durable";
import { codecJournal, cursorAfter, openDeadLetter, PayloadSealer, payloadCodecOption } from "@needlework/durable";
import { parseOptions } from "@needlework/core/internal";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { type ActionLog, defaultActionLog, type NewAction, newRecord } from "./action-log.js";
import { toolHealth } from "./health.js";
import { artifactRoutes } from "./artifact-routes.js";
import type { InspectedAgent } from "./inspected-agent.js";
import { type ActionRecord, pausedRun, type RunStats, runStats, runView, UNREADABLE, unsealed } from "./run-view.js";

/**
 * Options of {@link startInspector}.
 *
 * @example
 * ```ts
 * const options: InspectorOptions = { store, port: 4600, codec: aesGcmCodec(key), agents: [support] };
 * ```
 */
export interface InspectorOptions {
  /** The store whose journal and dead letters to show: `PostgresStore`, `FileRunStore`, `InMemoryRunStore`. */
  readonly store: AgentStore;
  /** Default 4600; 0 picks a free port. */
  readonly port?: number;
  /** Default `127.0.0.1`. Any other address needs `token`. */
  readonly host?: string;
  /** The store's `PayloadCodec`: payloads are shown decoded only with it. */
  readonly codec?: PayloadCodec;
  /**
   * A secret every request must carry (`Authorization: Bearer <token>`; the printed URL carries it in
   * its fragment, which the page keeps). Required to listen on anything but loopback. At least 16
   * characters of `A-Z a-z 0-9 - . _ ~ + /` (a bearer token's alphabet).
   */
  readonly token?: string;
  /**
   * The agents whose runs the page may act on: approve or deny a paused run's calls
   * (`agent.resume`), resume an interrupted run (`agent.resumeRun`), replay a dead letter's call
   * (`agent.tools`). Matched by `agent.name`. Without them the page only reads (and acknowledges).
   */
  readonly agents?: readonly InspectedAgent[];
  /** Where actions are journaled with who and when. Default: beside the store (see {@link ActionLog}). */
  readonly actions?: ActionLog;
  /** How often the server looks at the store for changes to push to open pages, in ms. Default 1000. */
  readonly watchMs?: number;
}

/**
 * A running inspector.
 *
 * @example
 * ```ts
 * const inspector = await startInspector({ store });
 * console.log(`open ${inspector.url}`);
 * await inspector.close();
 * ```
 */
export interface Inspector {
  /** The page's address (with `#token=...` when a token is set). */
  readonly url: string;
  /** Stops listening and closes open connections; the store stays open (it is the caller's). */
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const TOKEN_ALPHABET = /^[A-Za-z0-9._~+/-]+=*$/;

const optionsSchema = z.strictObject({
  store: z.custom<AgentStore>(
    (v) =>
      typeof (v as AgentStore | null)?.journal?.read === "function" &&
      typeof (v as AgentStore).journal.list === "function" &&
      typeof (v as AgentStore).deadLetters?.list === "function",
    "must be a run store with a journal that lists runs (PostgresStore, FileRunStore, InMemoryRunStore)",
  ),
  port: z.int().min(0).max(65_535).optional(),
  host: z.string().min(1).optional(),
  codec: payloadCodecOption.optional(),
  token: z.string().optional(),
  agents: z
    .array(
      z.custom<InspectedAgent>(
        (v) =>
          typeof (v as InspectedAgent | null)?.name === "string" &&
          typeof (v as InspectedAgent).resume === "function" &&
          typeof (v as InspectedAgent).resumeRun === "function",
        "must be agents made by factory.createAgent()",
      ),
    )
    .optional(),
  actions: z
    .custom<ActionLog>(
      (v) => typeof (v as ActionLog | null)?.append === "function" && typeof (v as ActionLog).list === "function",
      "must have append(record) and list(query)",
    )
    .optional(),
  watchMs: z.int().min(10).max(60_000).optional(),
});

/** The body of an approval: a decision for every pending call (made once, at import). */
const decisionsSchema = z.strictObject({
  decisions: z.record(z.string().min(1).max(500), z.enum(["approved", "denied"])),
});

/**
 * The options' own properties only, on an object with no prototype: a polluted `Object.prototype`
 * (`Object.prototype.host = "0.0.0.0"`) must never give the inspector a host, a token or a route.
 */
function ownOptions(options: unknown): unknown {
  if (typeof options !== "object" || options === null) return options;
  const own: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(options)) own[key] = (options as Record<string, unknown>)[key];
  return own;
}

/** The page's files: `public/` of this package, beside `src/` and `dist/`. */
const publicFile = (name: string): string => fileURLToPath(new URL(`../public/${name}`, import.meta.url));

/** The only files served (a fixed list, so no path reaches the disk from a request). */
const STATIC_FILES = ["app.js", "timeline.js", "timeline.css", "style.css"] as const;

/** Addresses of the page's views, served as the page itself. */
const PAGE_PATHS = ["/", "/runs", "/runs/", "/runs/:id", "/runs/:id/", "/dead-letters", "/dead-letters/", "/health"];

const CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
};

/** Whether the dead-letter queue has ids and acknowledge (every built-in store's does). */
function isManaged(queue: AgentStore["deadLetters"]): queue is ManagedDeadLetterQueue {
  return typeof (queue as Partial<ManagedDeadLetterQueue>).acknowledge === "function";
}

/** Every built-in queue claims a letter before a replay (one at a time, across processes on a shared store). */
interface Replayable {
  replay(id: string, handler: (letter: StoredDeadLetter) => Promise<void>): Promise<boolean>;
}
const canReplay = (queue: unknown): queue is Replayable => typeof (queue as Replayable).replay === "function";

class HttpError extends Error {
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
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHmac("sha256", SECRET_DIGEST_KEY).update(text, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** An integer query parameter in range, or `fallback` when absent; a bad one is a 400. */
function integer(c: Context, name: string, fallback: number, max: number): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new HttpError(400, `'${name}' must be an integer from 0 to ${max}.`);
  return value;
}

/** A time query parameter (ISO 8601 or a date), or undefined; a bad one is a 400. */
function time(c: Context, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return undefined;
  const value = Date.parse(raw);
  if (Number.isNaN(value)) throw new HttpError(400, `'${name}' must be a date or an ISO 8601 time.`);
  return value;
}

/** An id from the path: percent-decoded, printable, at most 500 characters; anything else is a 400. */
function idFrom(c: Context, name: string): string {
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
function failure(error: unknown): { status: HttpError["status"]; body: { error: string; code?: string } } {
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

/** Who acts: the name the page was given (or `anonymous`), and `token holder` when a token is required. */
function actor(c: Context, tokenSet: boolean): string {
  const raw = c.req.header("x-needlework-operator") ?? "";
  const name =
    raw
      .replace(/[\u0000-\u001f\u007f]/g, "")
      .trim()
      .slice(0, 80) || "anonymous";
  return tokenSet ? `${name} (token holder)` : name;
}

/** A run's status for the list: `interrupted` when it has not ended and no live process holds its lease. */
async function leaseExpired(journal: RunJournal, runId: string): Promise<boolean> {
  if (typeof journal.leaseOf !== "function") return false;
  const lease = await journal.leaseOf(runId);
  return lease === undefined || Date.parse(lease.expiresAt) <= Date.now();
}

/**
 * Starts the run inspector: a page over a store's run journal and dead letters. Find runs (by id,
 * agent prefix, status, error code, time), read one (each call's latency and attempts, approvals,
 * instructions, JSON to copy or export), see each tool's health, and act: approve or deny a paused
 * run's calls, resume an interrupted run, replay or acknowledge a dead letter (with `agents`). Open
 * pages are updated by server push. It binds 127.0.0.1 unless told otherwise, and refuses another
 * address without a `token`.
 *
 * @example
 * ```ts
 * import { startInspector } from "@needlework/inspector";
 * import { PostgresStore } from "@needlework/postgres";
 *
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL });
 * const inspector = await startInspector({ store, agents: [support] });
 * console.log(`open ${inspector.url}`);
 * ```
 */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const given = ownOptions(options);
  // The token is checked here, not by the schema: a refused token is never quoted back.
  const rawToken = typeof given === "object" && given !== null ? (given as { token?: unknown }).token : undefined;
  if (
    rawToken !== undefined &&
    (typeof rawToken !== "string" || rawToken.length < 16 || !TOKEN_ALPHABET.test(rawToken))
  )
    throw new InvalidOptionError(
      "token",
      "[REDACTED:secret]",
      "startInspector: option 'token' must be a string of at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (a bearer token); the value given is not shown.",
    );
  const parsed = parseOptions("startInspector", optionsSchema, given);
  // The parsed object is an ordinary one: read its own properties only (a polluted prototype has others).
  const own = <K extends keyof typeof parsed>(key: K): (typeof parsed)[K] | undefined =>
    Object.hasOwn(parsed, key) ? parsed[key] : undefined;
  const store = parsed.store;
  const port = own("port") ?? 4600;
  const host = own("host") ?? "127.0.0.1";
  const codec = own("codec");
  const token = own("token");
  const agents = own("agents") ?? [];
  const givenActions = own("actions");
  const watchMs = own("watchMs") ?? 1000;
  if (!LOOPBACK.has(host) && token === undefined)
    throw new InvalidOptionError(
      "token",
      undefined,
      `startInspector: refusing to listen on ${host} without a token: anyone who can reach it would read every run. Pass \`token\` (--token), or keep the default host 127.0.0.1.`,
    );
  const journal: RunJournal = codec ? codecJournal(store.journal, codec) : store.journal;
  const seal = codec ? new PayloadSealer(codec) : undefined;
  const letters = store.deadLetters;
  const byName = new Map<string, InspectedAgent>();
  for (const agent of agents) byName.set(agent.name, agent);
  let actionLog: ActionLog | undefined = givenActions;
  const actionsOf = async (): Promise<ActionLog> => {
    actionLog ??= await defaultActionLog(store);
    return actionLog;
  };
  const replaying = new Set<string>();
  /** Wakes the push streams at once after this inspector changed something. */
  const changed = new EventEmitter();
  changed.setMaxListeners(0);
  let origin = "";

  const readRun = async (runId: string): Promise<JournaledRun | undefined> =>
    journal.read(runId).catch((error: unknown) => {
      // A payload this codec cannot open (another key, or no codec given): the run without its payloads.
      if ((error as { code?: unknown }).code === "PAYLOAD_UNREADABLE") return store.journal.read(runId);
      throw error;
    });

  /** One letter opened with the codec; one it cannot open is shown unreadable, never failing the list. */
  const opened = async (letter: StoredDeadLetter): Promise<StoredDeadLetter & { unreadable?: true }> => {
    // One the store's own codec could not open (listed, never failing the list).
    if (letter.unreadable) return { ...letter, arguments: UNREADABLE, outcomes: [], reason: UNREADABLE };
    if (!seal) return letter;
    try {
      return await openDeadLetter(seal, letter);
    } catch {
      return { ...letter, arguments: UNREADABLE, outcomes: [], reason: UNREADABLE, unreadable: true };
    }
  };

  const readLetters = async (filter: DeadLetterFilter): Promise<readonly StoredDeadLetter[]> => {
    let list: readonly StoredDeadLetter[];
    if (isManaged(letters)) {
      try {
        list = await letters.list(filter);
      } catch (error) {
        // A store that opens letters itself (given a codec) fails its whole page on one it cannot
        // open: read the page one letter at a time, and show that one unreadable.
        if ((error as { code?: unknown }).code !== "PAYLOAD_UNREADABLE") throw error;
        const offset = filter.offset ?? 0;
        const one: StoredDeadLetter[] = [];
        for (let i = 0; i < (filter.limit ?? 50); i++) {
          const page = await letters.list({ ...filter, offset: offset + i, limit: 1 }).catch((e: unknown) => {
            if ((e as { code?: unknown }).code !== "PAYLOAD_UNREADABLE") throw e;
            return [
              {
                id: `unreadable-${offset + i}`,
                runId: "",
                agent: "",
                tool: "",
                arguments: UNREADABLE,
                errorCode: "PAYLOAD_UNREADABLE",
                callIds: [],
                outcomes: [],
                time: new Date(0).toISOString(),
                reason: UNREADABLE,
              },
            ];
          });
          if (page.length === 0) break;
          one.push(...page);
        }
        list = one;
      }
    } else {
      // A queue of your own lists everything, with no ids and nothing acknowledged: page it here.
      const offset = filter.offset ?? 0;
      const all = filter.acknowledged === true ? [] : await letters.list();
      const matching = filter.runId === undefined ? all : all.filter((l) => l.runId === filter.runId);
      list = matching
        .slice(offset, offset + (filter.limit ?? matching.length))
        .map((l, i) => ({ ...l, id: String(offset + i + 1) }));
    }
    return Promise.all(list.map(opened));
  };

  const findLetter = async (id: string): Promise<StoredDeadLetter | undefined> => {
    // The queue's contract lists by filter, not by id: page through the open letters.
    let found: StoredDeadLetter | undefined;
    for (let offset = 0, more = true; more && found === undefined; offset += 200) {
      const page = await readLetters({ acknowledged: false, offset, limit: 200 });
      found = page.find((l) => l.id === id);
      more = page.length === 200;
    }
    return found;
  };

  const journalAction = async (action: NewAction): Promise<ActionRecord> => {
    const record = newRecord(action);
    await (await actionsOf()).append(record);
    changed.emit("change");
    return record;
  };

  const agentFor = (name: string): InspectedAgent => {
    const agent = byName.get(name);
    if (!agent)
      throw new HttpError(
        409,
        `This inspector was not given the agent '${name}': start it with startInspector({ store, agents: [...] }) to act on its runs.`,
        "AGENT_NOT_GIVEN",
      );
    return agent;
  };

  /** A row of the runs list: the summary and the run's figures. */
  // An ended run's figures do not change until it ends again (a paused run resumed gets a new end
  // time): kept by run id and end time, so a list (and each push of it) reads only the runs that changed.
  const STATS_KEPT = 10_000;
  const statsOfEnded = new Map<string, RunStats>();
  const listRow = async (summary: {
    runId: string;
    status: string;
    endedAt?: string;
  }): Promise<{ runId: string; status: string; stats?: RunStats }> => {
    const key = summary.endedAt === undefined ? undefined : `${summary.runId}\u0000${summary.endedAt}`;
    let stats = key === undefined ? undefined : statsOfEnded.get(key);
    if (stats === undefined) {
      const run = await readRun(summary.runId).catch(() => undefined);
      stats = run && runStats(run);
      if (stats && key !== undefined && run?.end) {
        if (statsOfEnded.size >= STATS_KEPT) statsOfEnded.delete(statsOfEnded.keys().next().value!);
        statsOfEnded.set(key, stats);
      }
    }
    const interrupted = summary.status === "running" && (await leaseExpired(store.journal, summary.runId));
    return {
      ...summary,
      ...(interrupted ? { status: "interrupted", interrupted: true } : {}),
      ...(stats ? { stats } : { unreadable: true }),
    };
  };

  // ---------------------------------------------------------------- the routes
  const app = new Hono();

  app.onError((error, c) => {
    if (error instanceof HTTPException)
      return error.status === 403 ? c.json({ error: "Cross-origin request refused." }, 403) : error.getResponse();
    const { status, body } = failure(error);
    return c.json(body, status);
  });
  app.notFound((c) => c.json({ error: "Not found." }, 404));

  // DNS rebinding: on loopback without a token, only requests addressed to loopback are answered.
  app.use(async (c, next) => {
    const hostHeader = (c.req.header("host") ?? "").replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
    if (token === undefined && !LOOPBACK.has(hostHeader))
      return c.json({ error: "This inspector answers only requests addressed to localhost." }, 421);
    await next();
    return undefined;
  });
  // Every answer: nothing from another origin may frame, script or read the page.
  app.use(
    secureHeaders({
      contentSecurityPolicy: CSP,
      referrerPolicy: "no-referrer",
      xContentTypeOptions: "nosniff",
      xFrameOptions: "DENY",
      crossOriginResourcePolicy: "same-origin",
    }),
  );
  app.use(async (c, next) => {
    await next();
    c.header("cache-control", "no-store");
  });
  if (token !== undefined)
    app.use(
      "/api/*",
      bearerAuth({
        verifyToken: (given) => sameSecret(given, token),
        noAuthenticationHeader: { message: { error: "A valid token is required." } },
        invalidAuthenticationHeader: { message: { error: "A valid token is required." } },
        invalidToken: { message: { error: "A valid token is required." } },
      }),
    );
  // A write: only from this page. A form (or a cross-site request) cannot set the custom header, and a
  // request that says where it comes from must come from here.
  const sameOrigin = (from: string, c: Context): boolean =>
    from === origin || from === `http://${c.req.header("host") ?? ""}`;
  // hono's CSRF check for what a browser sends (always with an Origin on a POST); a script sends none,
  // and must still carry the custom header below.
  const browserCsrf = csrf({ origin: sameOrigin });
  app.use("/api/*", (c, next) => (c.req.header("origin") === undefined ? next() : browserCsrf(c, next)));
  const pageOnly: MiddlewareHandler = async (c, next) => {
    if (c.req.header("x-needlework-inspector") !== "1") throw new HttpError(403, "Missing the inspector's header.");
    const from = c.req.header("origin");
    if (from !== undefined && !sameOrigin(from, c)) throw new HttpError(403, "Cross-origin request refused.");
    // The action log is ready before anything is done: an action that cannot be journaled is not taken.
    await actionsOf();
    await next();
  };

  // ---- find
  app.get("/api/runs", async (c) => {
    const status = c.req.query("status") || undefined;
    const agent = c.req.query("agent")?.trim().toLowerCase() || undefined;
    const code = c.req.query("code")?.trim() || undefined;
    const q = c.req.query("q")?.trim() || undefined;
    const cursor = c.req.query("cursor") || undefined;
    const limit = integer(c, "limit", 50, 500) || 50;
    const from = time(c, "from");
    const to = time(c, "to");
    if (q !== undefined) {
      // A run id: that run, whatever the other filters say.
      const run = await readRun(q.length <= 500 ? q : "").catch(() => undefined);
      if (run) {
        const row = await listRow({
          runId: run.runId,
          agent: run.agent,
          startedAt: run.startedAt,
          status: run.end?.status ?? "running",
          ...(run.end ? { endedAt: run.end.endedAt } : {}),
        } as { runId: string; status: string });
        return c.json({ runs: [row] });
      }
    }
    const simple = agent === undefined && code === undefined && q === undefined && from === undefined;
    const storeStatus = status === "interrupted" ? "running" : status;
    // The store filters by exact status and pages by cursor; agent prefix (any case), code, id and
    // time are filtered here, over at most `SCAN` summaries per request (then `next` goes on).
    const SCAN = 2_000;
    let storeCursor =
      cursor ??
      (to === undefined
        ? undefined
        : cursorAfter({ startedAt: new Date(to + 1).toISOString(), runId: "", agent: "", status: "" }));
    const rows: Awaited<ReturnType<typeof listRow>>[] = [];
    let scanned = 0;
    let next: string | undefined;
    let lastSeen: RunSummary | undefined;
    outer: while (rows.length < limit && scanned < SCAN) {
      const page = await journal.list({
        limit: simple ? limit : 200,
        ...(storeStatus ? { status: storeStatus } : {}),
        ...(storeCursor ? { cursor: storeCursor } : {}),
      });
      // The page's candidates (filters on the summary first), then their runs read a batch at a
      // time in parallel (the figures need each run), in order, until the page is full.
      const candidates: RunSummary[] = [];
      let ended = false;
      for (const summary of page.runs) {
        scanned++;
        lastSeen = summary;
        if (from !== undefined && Date.parse(summary.startedAt) < from) {
          ended = true;
          break;
        }
        if (agent !== undefined && !summary.agent.toLowerCase().startsWith(agent)) continue;
        if (q !== undefined && !summary.runId.toLowerCase().includes(q.toLowerCase())) continue;
        candidates.push(summary);
      }
      for (let at = 0; at < candidates.length; ) {
        const batch = candidates.slice(at, at + Math.max(8, limit - rows.length));
        at += batch.length;
        const read = await Promise.all(batch.map(listRow));
        for (const [i, row] of read.entries()) {
          if (status === "interrupted" && row.status !== "interrupted") continue;
          if (code !== undefined && !(row.stats?.codes ?? []).includes(code)) continue;
          rows.push(row);
          if (rows.length === limit) {
            next = cursorAfter(batch[i]!);
            break outer;
          }
        }
      }
      if (ended) {
        next = undefined;
        break;
      }
      if (!page.next) {
        next = undefined;
        break;
      }
      storeCursor = page.next;
      next = page.next;
    }
    if (rows.length < limit && scanned >= SCAN && lastSeen) next = cursorAfter(lastSeen);
    return c.json({ runs: rows, ...(next ? { next } : {}) });
  });

  // ---- read
  app.get("/api/runs/:id", async (c) => {
    const runId = idFrom(c, "id");
    const run = await readRun(runId);
    if (!run) throw new HttpError(404, "No run with this id in the store.");
    const interrupted = !run.end && (await leaseExpired(store.journal, runId));
    const view = runView(run, { interrupted });
    const [records, deadLetters] = await Promise.all([
      (await actionsOf()).list({ runId }).catch(() => []),
      run.end?.status === "dead_lettered" ? readLetters({ runId, limit: 20 }).catch(() => []) : [],
    ]);
    return c.json({
      ...view,
      actions: records,
      actable: byName.has(run.agent),
      ...(deadLetters.length > 0
        ? { deadLetters: deadLetters.map((l) => ({ id: l.id, tool: l.tool, errorCode: l.errorCode })) }
        : {}),
    });
  });

  app.get("/api/runs/:id/export", async (c) => {
    const runId = idFrom(c, "id");
    const run = await readRun(runId);
    if (!run) throw new HttpError(404, "No run with this id in the store.");
    const view = runView(run);
    const body = JSON.stringify(
      {
        run: view.run,
        stats: view.stats,
        turns: run.turns.map((t) => ({ index: t.index, message: unsealed(t.message), usage: t.usage })),
        calls: run.calls.map((call) => ({
          callId: call.callId,
          tool: call.tool,
          arguments: unsealed(call.arguments),
          ...(call.outcome
            ? {
                outcome: {
                  status: call.outcome.outcome.status,
                  errorCode: call.outcome.outcome.errorCode,
                  message: unsealed(call.outcome.outcome.message),
                  suggestion: unsealed(call.outcome.outcome.suggestion),
                  data: unsealed(call.outcome.outcome.data),
                  metadata: call.outcome.outcome.metadata,
                },
                formatted: unsealed(call.outcome.formatted),
              }
            : {}),
        })),
        actions: await (await actionsOf()).list({ runId }).catch(() => []),
      },
      null,
      2,
    );
    c.header("content-disposition", `attachment; filename="run-${runId.replace(/[^A-Za-z0-9._-]/g, "_")}.json"`);
    return c.body(body, 200, { "content-type": "application/json; charset=utf-8" });
  });

  // ---- a run's artifacts: sizes, a first page, a download (the store's own artifacts)
  artifactRoutes(app, (store as { artifacts?: ArtifactStore }).artifacts);

  // ---- act: approve or deny, resume
  app.post("/api/runs/:id/decisions", pageOnly, async (c) => {
    const runId = idFrom(c, "id");
    const parsed = decisionsSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success)
      throw new HttpError(400, "Send { decisions: { <callId>: 'approved' | 'denied' } } for every pending call.");
    const run = await readRun(runId);
    if (!run) throw new HttpError(404, "No run with this id in the store.");
    const paused = pausedRun(run);
    if (!paused) throw new HttpError(409, "This run is not waiting for approval.", "NOT_PAUSED");
    const agent = agentFor(run.agent);
    const decisions = new Map(Object.entries(parsed.data.decisions));
    const pendingIds = new Set(paused.pending.map((p) => p.callId));
    if (decisions.size !== pendingIds.size || [...decisions.keys()].some((id) => !pendingIds.has(id)))
      throw new HttpError(400, "Decide every pending call of this run, and only those.");
    const by = actor(c, token !== undefined);
    let status: string;
    try {
      // The agent's own resume: the checkpoint's signature, and that its pause is still open in the journal, are checked there.
      const result = await agent.resume(
        paused.checkpoint as Parameters<InspectedAgent["resume"]>[0],
        Object.fromEntries(decisions),
      );
      status = result.status;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const shown = typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : "RESUME_FAILED";
      for (const [callId, decision] of decisions)
        await journalAction({ action: decision === "approved" ? "approve" : "deny", runId, callId, by, result: shown });
      throw new HttpError(409, "The run could not be resumed with these decisions.", shown);
    }
    for (const [callId, decision] of decisions)
      await journalAction({ action: decision === "approved" ? "approve" : "deny", runId, callId, by, result: "done" });
    return c.json({ status });
  });

  app.post("/api/runs/:id/resume", pageOnly, async (c) => {
    const runId = idFrom(c, "id");
    const run = await store.journal.read(runId);
    if (!run) throw new HttpError(404, "No run with this id in the store.");
    if (run.end) throw new HttpError(409, "This run has ended; there is nothing to resume.", "RUN_ENDED");
    const agent = agentFor(run.agent);
    const by = actor(c, token !== undefined);
    try {
      const result = await agent.resumeRun(runId);
      await journalAction({ action: "resume", runId, by, result: "done" });
      return c.json({ status: result.status });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const shown = typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : "RESUME_FAILED";
      await journalAction({ action: "resume", runId, by, result: shown });
      throw new HttpError(
        409,
        shown === "RUN_BUSY" ? "Another process holds this run's lease." : "The run could not be resumed.",
        shown,
      );
    }
  });

  // ---- dead letters
  app.get("/api/dead-letters", async (c) => {
    const acknowledged = c.req.query("acknowledged");
    const runId = c.req.query("run") || undefined;
    const offset = integer(c, "offset", 0, 10_000_000);
    const limit = integer(c, "limit", 50, 500) || 50;
    const filter: DeadLetterFilter = {
      ...(acknowledged === "true" || acknowledged === "false" ? { acknowledged: acknowledged === "true" } : {}),
      ...(runId ? { runId } : {}),
      offset,
      limit: limit + 1,
    };
    const page = await readLetters(filter);
    return c.json({
      acknowledgeable: isManaged(letters),
      letters: page.slice(0, limit).map((l) => ({
        ...(unsealed(l) as object),
        replayable: isManaged(letters) && byName.has(l.agent) && !l.acknowledgedAt,
      })),
      ...(page.length > limit ? { next: offset + limit } : {}),
    });
  });

  app.post("/api/dead-letters/:id/acknowledge", pageOnly, async (c) => {
    const id = idFrom(c, "id");
    if (!isManaged(letters)) throw new HttpError(405, "This store's dead letters cannot be acknowledged.");
    const acknowledged = await letters.acknowledge(id);
    if (acknowledged)
      await journalAction({ action: "acknowledge", letterId: id, by: actor(c, token !== undefined), result: "done" });
    return c.json({ acknowledged });
  });

  app.post("/api/dead-letters/:id/replay", pageOnly, async (c) => {
    const id = idFrom(c, "id");
    if (!isManaged(letters)) throw new HttpError(405, "This store's dead letters cannot be replayed.");
    // One replay of a letter at a time in this process, from the lookup on (the queue's claim also
    // holds across processes); a second click meanwhile is refused, one after finds the letter closed.
    if (replaying.has(id)) throw new HttpError(409, "This letter is being replayed.", "REPLAY_IN_PROGRESS");
    replaying.add(id);
    try {
      return await replay(c, id, letters);
    } finally {
      replaying.delete(id);
    }
  });

  const replay = async (c: Context, id: string, queue: ManagedDeadLetterQueue): Promise<Response> => {
    const letter = await findLetter(id);
    if (!letter) throw new HttpError(404, "No open dead letter with this id.");
    if (letter.unreadable === true)
      throw new HttpError(409, "This letter cannot be opened with the store's codec.", "PAYLOAD_UNREADABLE");
    const agent = agentFor(letter.agent);
    const tool = agent.tools.get(letter.tool);
    if (!tool) throw new HttpError(409, `The agent '${agent.name}' has no tool '${letter.tool}'.`, "TOOL_NOT_FOUND");
    // Every way to run a gated call is gated: the tool's own `requiresApproval` and the agent's
    // `approvalPolicy` (asked through the agent; one that cannot say, or fails, counts as gated).
    const gated =
      tool.options.requiresApproval === true ||
      typeof agent.needsApproval !== "function" ||
      (await agent.needsApproval({ tool: letter.tool, arguments: letter.arguments }).catch(() => true));
    if (gated)
      throw new HttpError(
        409,
        "This tool needs approval: replay it through the agent, not from the page.",
        "APPROVAL_REQUIRED",
      );
    const by = actor(c, token !== undefined);
    let outcome: { status: string; errorCode?: string } | undefined;
    const handler = async (claimed: StoredDeadLetter): Promise<void> => {
      const result = await agent.tools.invoke({ name: claimed.tool, arguments: claimed.arguments });
      outcome = { status: result.status, ...(result.errorCode ? { errorCode: result.errorCode } : {}) };
      // A failed replay leaves the letter open (PostgreSQL releases its claim).
      if (result.status !== "ok" && result.status !== "partial") throw new HttpError(409, "replay failed");
    };
    let replayed: boolean;
    try {
      if (canReplay(queue)) replayed = await queue.replay(id, handler);
      else {
        await handler(letter);
        replayed = true;
        await queue.acknowledge(id);
      }
    } catch (error) {
      if (!(error instanceof HttpError) || outcome === undefined) throw error;
      replayed = false;
    }
    const result = replayed ? "done" : (outcome?.errorCode ?? (outcome ? outcome.status : "NOT_CLAIMED"));
    await journalAction({ action: "replay", letterId: id, runId: letter.runId, by, result });
    return c.json({ replayed, ...(outcome ? { outcome } : {}) }, replayed ? 200 : 409);
  };

  // ---- health
  app.get("/api/health", async (c) => {
    const windowMinutes = integer(c, "minutes", 60, 60 * 24 * 30) || 60;
    const since = Date.now() - windowMinutes * 60_000;
    const runs: JournaledRun[] = [];
    let cursor: string | undefined;
    // Newest first, until the window's start (at most 2,000 runs read).
    scan: for (let pages = 0; pages < 10; pages++) {
      const page = await journal.list({ limit: 200, ...(cursor ? { cursor } : {}) });
      for (const summary of page.runs) {
        if (Date.parse(summary.startedAt) < since) break scan;
        const run = await readRun(summary.runId).catch(() => undefined);
        if (run) runs.push(run);
      }
      if (!page.next) break;
      cursor = page.next;
    }
    return c.json({ windowMinutes, runs: runs.length, tools: toolHealth(runs) });
  });

  // ---- live: server push
  app.get("/api/events", (c) => {
    const runId = c.req.query("run") || undefined;
    if (runId !== undefined && (runId.length > 500 || /[\u0000-\u001f]/.test(runId)))
      throw new HttpError(400, "Malformed id in the address.");
    const listQuery = c.req.query("list") ?? "";
    return streamSSE(c, async (stream) => {
      let wake: () => void = () => undefined;
      const onChange = (): void => wake();
      changed.on("change", onChange);
      stream.onAbort(() => {
        changed.off("change", onChange);
        wake();
      });
      let last = "";
      while (!stream.aborted) {
        try {
          if (runId !== undefined) {
            const run = await readRun(runId);
            // A fingerprint read from the run's counts: the view is rebuilt only when it changed.
            const settled = run ? run.calls.reduce((n, call) => n + (call.outcome ? 1 : 0), 0) : 0;
            // A run whose worker died turns interrupted when its lease expires: that is a change too.
            const lost = run && !run.end ? await leaseExpired(store.journal, runId) : false;
            const print = run
              ? `${run.turns.length}|${run.calls.length}|${settled}|${run.end?.status ?? ""}|${run.end?.endedAt ?? ""}|${lost}`
              : "none";
            if (print !== last) {
              last = print;
              await stream.writeSSE({ event: "run", data: print });
            }
          } else {
            const params = new URLSearchParams(listQuery);
            const status = params.get("status") === "interrupted" ? "running" : params.get("status") || undefined;
            const page = await journal.list({ limit: 50, ...(status ? { status } : {}) });
            const states = await Promise.all(
              page.runs.map(async (r) =>
                r.endedAt === undefined && (await leaseExpired(store.journal, r.runId)) ? "interrupted" : r.status,
              ),
            );
            const print = page.runs.map((r, i) => `${r.runId}:${states[i]}:${r.endedAt ?? ""}`).join(",");
            if (print !== last) {
              last = print;
              await stream.writeSSE({ event: "list", data: String(page.runs.length) });
            }
          }
        } catch (error) {
          await stream.writeSSE({ event: "problem", data: JSON.stringify(failure(error).body) });
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, watchMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    });
  });

  app.all("/api/*", (c) => c.json({ error: "Not found." }, 404));

  // ---- the page's files: a fixed list; the views' addresses serve the page itself
  app.get("/favicon.ico", (c) => c.body(null, 204)); // no icon, and no 404 in the browser's console
  for (const name of STATIC_FILES) app.get(`/${name}`, serveStatic({ path: publicFile(name) }));
  const page = serveStatic({ path: publicFile("index.html") });
  for (const path of PAGE_PATHS) app.get(path, page);

  const server = await new Promise<Server>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, port, hostname: host }) as Server;
    started.once("error", reject);
    started.once("listening", () => {
      started.off("error", reject);
      resolve(started);
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  origin = `http://${shownHost}:${address.port}`;
  return {
    url: `${origin}/${token === undefined ? "" : `#token=${encodeURIComponent(token)}`}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
