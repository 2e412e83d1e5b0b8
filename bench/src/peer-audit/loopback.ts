// The CRM as a real HTTP server on 127.0.0.1: the audit's clients (axios, got, node-fetch, fetch,
// ky, @octokit/request, Stripe, a generated SDK) send real requests to it and meet its faults as
// those clients really report them (statuses, `Retry-After`, a connection reset before the write, a
// response lost after it). One server serves every run: a run's tool authenticates with the token
// its CRM was registered under (`Authorization: Bearer <token>`), and the server answers by that
// CRM's fault plan. The server reads the write's contact from the path and the key from the
// `Idempotency-Key` header. Stripe's client is answered in Stripe's error shape (`{ error: {...} }`).
//
// Virtual time (clock.ts) must not move while a request is on the wire: {@link requestsInFlight}
// counts the requests every client has started and not finished (Node's `http.client.*` and undici's
// `undici:request:*` diagnostics channels, which every client here goes through).
import { subscribe } from "node:diagnostics_channel";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeCrm } from "./world.js";

let inFlight = 0;
const counted = new WeakSet<object>();
let onIdle: (() => void)[] = [];

function started(request: object): (() => void) | undefined {
  if (counted.has(request)) return undefined;
  counted.add(request);
  inFlight++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    inFlight--;
    if (inFlight === 0) {
      const waiting = onIdle;
      onIdle = [];
      for (const resolve of waiting) resolve();
    }
  };
}

type Emitter = { once(event: string, listener: (...args: unknown[]) => void): unknown };

subscribe("http.client.request.start", (message) => {
  const request = (message as { request: Emitter }).request;
  const end = started(request);
  if (end === undefined) return;
  request.once("error", end);
  request.once("close", end);
  request.once("response", (response) => {
    const res = response as Emitter & { readableFlowing: boolean | null };
    res.once("end", end);
    res.once("close", end);
    res.once("error", end);
    // A client that never reads the body (Stripe, before it retries a 503) leaves it on the socket:
    // nothing more is on the wire for it.
    setImmediate(() => {
      if (res.readableFlowing === null) end();
    });
  });
});
const undiciEnds = new WeakMap<object, () => void>();
subscribe("undici:request:create", (message) => {
  const request = (message as { request: object }).request;
  const end = started(request);
  if (end !== undefined) undiciEnds.set(request, end);
});
for (const channel of ["undici:request:trailers", "undici:request:error"])
  subscribe(channel, (message) => undiciEnds.get((message as { request: object }).request)?.());

/** Requests some client started and has not finished (its answer, or its failure, still on the wire). */
export function requestsInFlight(): number {
  return inFlight;
}

/** Resolves when no request is in flight. */
export function noRequestInFlight(): Promise<void> {
  return inFlight === 0 ? Promise.resolve() : new Promise((resolve) => onIdle.push(resolve));
}

const crms = new Map<string, FakeCrm>();
const tokens = new WeakMap<FakeCrm, string>();
let nextToken = 0;
let server: Promise<{ server: Server; base: string }> | undefined;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const STRIPE_TYPE = (status: number): string =>
  status === 429 ? "rate_limit_error" : status >= 500 ? "api_error" : "invalid_request_error";

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  await readBody(req);
  const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
  const crm = token === undefined ? undefined : crms.get(token);
  const path = new URL(req.url ?? "/", "http://crm").pathname;
  const contactId = /^\/(?:crm\/contacts|v1\/customers)\/([^/]+)/.exec(path)?.[1];
  const write = crm?.plan.writes.find((w) => w.contactId === decodeURIComponent(contactId ?? ""));
  const key = req.headers["idempotency-key"];
  if (crm === undefined || write === undefined || typeof key !== "string") {
    res.writeHead(401, { "content-type": "application/json" }).end('{"message":"unknown run"}');
    return;
  }
  const answer = crm.sync(write, key);
  // The connection drops: before the write reached the CRM (a reset) or after it was applied (the
  // response is lost).
  if (answer.transport === "reset") return void req.socket.resetAndDestroy();
  if (answer.transport === "lost") return void req.socket.destroy();
  const stripe = path.startsWith("/v1/");
  let body = answer.body;
  if (stripe && answer.status >= 400) {
    const { message, code } = (answer.body ?? {}) as { message?: string; code?: string };
    body = { error: { type: STRIPE_TYPE(answer.status), message: message ?? answer.statusText, code } };
  }
  const text = typeof body === "string" ? body : JSON.stringify(body ?? null);
  res.writeHead(answer.status, answer.statusText, { ...answer.headers, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The server's base URL (started on first use, on an ephemeral port of 127.0.0.1).
 *
 * @example
 * ```ts
 * const base = await loopbackBase(); // "http://127.0.0.1:41234"
 * ```
 */
export function loopbackBase(): Promise<string> {
  server ??= new Promise((resolve, reject) => {
    const s = createServer((req, res) => {
      handle(req, res).catch(() => req.socket.destroy());
    });
    // No server-side idle timeout (a real timer): an idle keep-alive socket is closed by its client.
    s.keepAliveTimeout = 0;
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo;
      resolve({ server: s, base: `http://127.0.0.1:${port}` });
    });
  });
  return server.then((s) => s.base);
}

/** The token a run's tool sends for `crm` (registered on first use). */
export function tokenFor(crm: FakeCrm): string {
  let token = tokens.get(crm);
  if (token === undefined) {
    token = `sk_test_audit${++nextToken}`;
    tokens.set(crm, token);
    crms.set(token, crm);
  }
  return token;
}

/** Forgets a run's CRM once its run has ended. */
export function forget(crm: FakeCrm): void {
  const token = tokens.get(crm);
  if (token !== undefined) crms.delete(token);
}

/** Stops the server and drops its connections (the audit's end). */
export async function closeLoopback(): Promise<void> {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  const { server: s } = await running;
  s.closeAllConnections();
  await new Promise<void>((resolve) => s.close(() => resolve()));
}
