import { timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { InvalidOptionError } from "@needlework/core";
import type {
  AgentStore,
  DeadLetterFilter,
  ManagedDeadLetterQueue,
  PayloadCodec,
  RunJournal,
  StoredDeadLetter,
} from "@needlework/workflows/durable";
import {
  codecJournal,
  openDeadLetter,
  PayloadSealer,
  parseOptions,
  payloadCodecOption,
} from "@needlework/workflows/internal";
import { z } from "zod";
import { runView, unsealed } from "./run-view.js";

/**
 * Options of {@link startInspector}.
 *
 * @example
 * ```ts
 * const options: InspectorOptions = { store, port: 4600, codec: aesGcmCodec(key) };
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
   * its fragment, which the page keeps). Required to listen on anything but loopback. At least 16 characters.
   */
  readonly token?: string;
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
  token: z.string().min(16, "must be at least 16 characters").optional(),
});

const STATIC: Readonly<Record<string, { file: string; type: string }>> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/timeline.js": { file: "timeline.js", type: "text/javascript; charset=utf-8" },
  "/timeline.css": { file: "timeline.css", type: "text/css; charset=utf-8" },
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
};

/** Addresses of the page's views, served as the page itself. */
const PAGE_PATH = /^\/(runs(\/[^/]+)?|dead-letters)\/?$/;

/** Every answer: nothing from another origin may frame, script or read the page. */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
} as const;

/** The page's files: `public/` of this package, beside `src/` and `dist/`. */
const publicFile = (name: string): string => fileURLToPath(new URL(`../public/${name}`, import.meta.url));

/** Whether the dead-letter queue has ids and acknowledge (every built-in store's does). */
function isManaged(queue: AgentStore["deadLetters"]): queue is ManagedDeadLetterQueue {
  return typeof (queue as Partial<ManagedDeadLetterQueue>).acknowledge === "function";
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" });
  response.end(JSON.stringify(body));
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An integer query parameter in range, or `fallback` when absent; a bad one is a 400. */
function integer(params: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = params.get(name);
  if (raw === null || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new HttpError(400, `'${name}' must be an integer from 0 to ${max}.`);
  return value;
}

/**
 * Starts the run inspector: a page over a store's run journal (runs newest first, filtered by status
 * and agent, paged; one run's timeline, updating while it runs) and its dead letters (with
 * acknowledge, the one write it makes). It binds 127.0.0.1 unless told otherwise, and refuses
 * another address without a `token`.
 *
 * @example
 * ```ts
 * import { startInspector } from "@needlework/inspector";
 * import { PostgresStore } from "@needlework/postgres";
 *
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL });
 * const inspector = await startInspector({ store });
 * console.log(`open ${inspector.url}`);
 * ```
 */
export async function startInspector(options: InspectorOptions): Promise<Inspector> {
  const {
    store,
    port = 4600,
    host = "127.0.0.1",
    codec,
    token,
  } = parseOptions("startInspector", optionsSchema, options);
  if (!LOOPBACK.has(host) && token === undefined)
    throw new InvalidOptionError(
      "token",
      undefined,
      `startInspector: refusing to listen on ${host} without a token: anyone who can reach it would read every run. Pass \`token\` (--token), or keep the default host 127.0.0.1.`,
    );
  const journal: RunJournal = codec ? codecJournal(store.journal, codec) : store.journal;
  const seal = codec ? new PayloadSealer(codec) : undefined;
  const letters = store.deadLetters;
  let origin = "";

  const readLetters = async (filter: DeadLetterFilter): Promise<readonly StoredDeadLetter[]> => {
    let list: readonly StoredDeadLetter[];
    if (isManaged(letters)) list = await letters.list(filter);
    else {
      // A queue of your own lists everything, with no ids and nothing acknowledged: page it here.
      const offset = filter.offset ?? 0;
      const all = filter.acknowledged === true ? [] : await letters.list();
      list = all
        .slice(offset, offset + (filter.limit ?? all.length))
        .map((l, i) => ({ ...l, id: String(offset + i + 1) }));
    }
    return Promise.all(list.map(async (l) => (seal ? openDeadLetter(seal, l) : l)));
  };

  async function api(request: IncomingMessage, url: URL): Promise<unknown> {
    const path = url.pathname;
    if (request.method === "GET" && path === "/api/runs") {
      const status = url.searchParams.get("status") || undefined;
      const agent = url.searchParams.get("agent") || undefined;
      const cursor = url.searchParams.get("cursor") || undefined;
      const limit = integer(url.searchParams, "limit", 50, 500) || 50;
      return journal.list({
        limit,
        ...(status ? { status } : {}),
        ...(agent ? { agent } : {}),
        ...(cursor ? { cursor } : {}),
      });
    }
    const runMatch = /^\/api\/runs\/([^/]+)$/.exec(path);
    if (request.method === "GET" && runMatch) {
      const runId = decodeURIComponent(runMatch[1]!);
      const run = await journal.read(runId).catch((error: unknown) => {
        // A payload this codec cannot open (another key, or no codec given): the run without its payloads.
        if ((error as { code?: unknown }).code === "PAYLOAD_UNREADABLE") return store.journal.read(runId);
        throw error;
      });
      if (!run) throw new HttpError(404, "No run with this id in the store.");
      return runView(run);
    }
    if (request.method === "GET" && path === "/api/dead-letters") {
      const acknowledged = url.searchParams.get("acknowledged");
      const offset = integer(url.searchParams, "offset", 0, 10_000_000);
      const limit = integer(url.searchParams, "limit", 50, 500) || 50;
      const filter: DeadLetterFilter = {
        ...(acknowledged === "true" || acknowledged === "false" ? { acknowledged: acknowledged === "true" } : {}),
        offset,
        limit: limit + 1,
      };
      const page = await readLetters(filter);
      return {
        acknowledgeable: isManaged(letters),
        letters: page.slice(0, limit).map((l) => unsealed(l)),
        ...(page.length > limit ? { next: offset + limit } : {}),
      };
    }
    const ackMatch = /^\/api\/dead-letters\/([^/]+)\/acknowledge$/.exec(path);
    if (request.method === "POST" && ackMatch) {
      // A write: only from this page (a custom header no form or cross-site request can set unasked).
      if (request.headers["x-needlework-inspector"] !== "1")
        throw new HttpError(403, "Missing the inspector's header.");
      const from = request.headers.origin;
      if (from !== undefined && from !== origin && from !== `http://${request.headers.host}`)
        throw new HttpError(403, "Cross-origin request refused.");
      if (!isManaged(letters)) throw new HttpError(405, "This store's dead letters cannot be acknowledged.");
      return { acknowledged: await letters.acknowledge(decodeURIComponent(ackMatch[1]!)) };
    }
    throw new HttpError(404, "Not found.");
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://inspector.invalid");
    // DNS rebinding: on loopback without a token, only requests addressed to loopback are answered.
    const hostHeader = (request.headers.host ?? "").replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
    if (token === undefined && !LOOPBACK.has(hostHeader)) {
      send(response, 421, { error: "This inspector answers only requests addressed to localhost." });
      return;
    }
    if (url.pathname.startsWith("/api/")) {
      const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
      if (token !== undefined && (bearer === undefined || !sameSecret(bearer, token))) {
        send(response, 401, { error: "A valid token is required." });
        return;
      }
      api(request, url).then(
        (body) => send(response, 200, body),
        (error: unknown) => {
          if (error instanceof HttpError) send(response, error.status, { error: error.message });
          else if ((error as { code?: unknown }).code === "INVALID_QUERY")
            send(response, 400, { error: "Invalid query." });
          else {
            // Never the exception's message (it may hold a connection string or a payload): its code only.
            const code = (error as { code?: unknown }).code;
            send(response, 500, {
              error: "The store could not be read.",
              ...(typeof code === "string" && /^[A-Z][A-Z0-9_]*$/.test(code) ? { code } : {}),
            });
          }
        },
      );
      return;
    }
    if (url.pathname === "/favicon.ico") {
      response.writeHead(204, SECURITY_HEADERS).end(); // no icon, and no 404 in the browser's console
      return;
    }
    // The page's addresses as paths (/runs/<id>, /dead-letters) serve the page, which reads them.
    const file = PAGE_PATH.test(url.pathname) ? "/" : url.pathname;
    const page = request.method === "GET" ? STATIC[file] : undefined;
    if (!page) {
      send(response, 404, { error: "Not found." });
      return;
    }
    readFile(publicFile(page.file)).then(
      (body) => response.writeHead(200, { ...SECURITY_HEADERS, "content-type": page.type }).end(body),
      () => send(response, 500, { error: "The page's files are missing from the package." }),
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
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
