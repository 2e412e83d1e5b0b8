import "reflect-metadata";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  AgentFunction,
  AgentFunctionGroup,
  formatToolOutcome,
  type ToolContext,
  type ToolOutcome,
  type ToolRetryReport,
} from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import { container } from "tsyringe";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";

// Real HTTP clients against a local server, through the documented stack: what the model reads
// (code, retriable, the wait) when axios, ky, got, Stripe... throw their own errors.

/** One answer of the local server: a status (headers, body), a hang until the client gives up, or a reset. */
export type Reply =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: unknown }
  | "hang"
  | "reset";

/** A local HTTP server on 127.0.0.1 answering the replies queued, then 200 `{ "ok": true }`. */
export class LocalServer {
  private readonly queue: Reply[] = [];
  private readonly server: Server;
  private readonly hanging = new Set<ServerResponse>();
  /** Requests received. */
  requests = 0;
  url = "";
  port = 0;
  /** Turns a status into the body and headers the client's service would send (Stripe, AWS...). */
  shape: (status: number) => { body: unknown; headers?: Record<string, string> } = (status) => ({
    body: { error: { message: `upstream said sk-live-secret (${status})` } },
  });

  constructor() {
    this.server = createServer((request, response) => this.answer(request, response));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
  }

  reply(...replies: Reply[]): this {
    this.queue.length = 0;
    this.queue.push(...replies);
    this.requests = 0;
    return this;
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    request.resume();
    request.on("end", () => {
      // A request whose client already gave up (an earlier test's timeout) takes no reply.
      if (request.socket.destroyed || response.writableEnded) return;
      this.requests++;
      const reply = this.queue.shift();
      if (reply === "hang") {
        this.hanging.add(response);
        return;
      }
      if (reply === "reset") {
        request.socket.destroy();
        return;
      }
      const status = reply?.status ?? 200;
      const shaped = status >= 400 ? this.shape(status) : { body: { ok: true } };
      const body = reply?.body ?? shaped.body;
      response.writeHead(status, { "content-type": "application/json", ...shaped.headers, ...reply?.headers });
      response.end(JSON.stringify(body));
    });
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What a tool body does: calls the client under test (which throws its own error on failure). */
export type ClientCall = (signal: AbortSignal) => Promise<unknown>;

let body: ClientCall = async () => ({ ok: true });

@AgentFunctionGroup()
class ClientTools {
  @AgentFunction({ description: "Creates a record upstream (a write, not idempotent).", input: z.object({}) })
  async write(_input: Record<string, never>, ctx: ToolContext): Promise<unknown> {
    await body(ctx.signal);
    return { written: true };
  }

  @AgentFunction({ description: "Reads a record upstream.", input: z.object({}), readOnly: true })
  async read(_input: Record<string, never>, ctx: ToolContext): Promise<unknown> {
    await body(ctx.signal);
    return { read: true };
  }
}

/** The documented stack over {@link ClientTools}, fresh per call (each its own breaker). */
function documentedStack() {
  const factory = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(ClientTools)
    .usingResilience()
    .usingToolResultMiddleware()
    .buildAgentFactory();
  // Retries reach the call's own context (`InvokeOptions.report`), as they reach a run.
  const retries: ToolRetryReport[] = [];
  const report = (event: ToolRetryReport) => retries.push(event);
  return { factory, retries, report };
}

/** Real time, read where `performance` and `Date` are faked. */
const realNow = (): number => Number(process.hrtime.bigint() / 1_000_000n);

/** Lets real I/O run (setImmediate is never faked here) until `done()` or 5 s of real time. */
async function until(done: () => boolean): Promise<void> {
  const start = realNow();
  while (!done()) {
    if (realNow() - start > 5_000) throw new Error("gave up waiting for the client");
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The outcome of one call, with the waits resilience scheduled between attempts (each advanced on a fake clock). */
export interface Invoked {
  readonly outcome: ToolOutcome;
  readonly waits: readonly number[];
}

/**
 * Invokes `tool` through the documented stack with `call` as its body, on fake timers for the waits
 * between attempts (`setTimeout`, `Date`, `performance`; I/O stays real): each retry's wait is
 * advanced exactly, after checking that no attempt starts a millisecond early.
 */
export async function invokeWithClient(
  server: LocalServer | undefined,
  call: ClientCall,
  tool: "write" | "read" = "write",
): Promise<Invoked> {
  body = call;
  const { factory, retries, report } = documentedStack();
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
  try {
    let settled: ToolOutcome | undefined;
    let failed: unknown;
    const pending = factory.tools.invoke({ name: tool, arguments: {} }, { report }).then(
      (outcome) => (settled = outcome),
      (error: unknown) => (failed = error ?? new Error("rejected")),
    );
    let seen = 0;
    for (;;) {
      await until(() => settled !== undefined || failed !== undefined || retries.length > seen);
      if (settled !== undefined || failed !== undefined) break;
      const wait = retries[seen++]!.delayMs;
      const before = server?.requests ?? 0;
      // Backoff waits are fractional (jitter): the fake clock moves in whole milliseconds.
      const early = Math.ceil(wait) - 1;
      if (early > 0) await vi.advanceTimersByTimeAsync(early);
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      if (server) expect(server.requests, "no attempt before the wait is over").toBe(before);
      await vi.advanceTimersByTimeAsync(2);
    }
    await pending;
    if (failed !== undefined) throw failed;
    return { outcome: settled!, waits: retries.map((r) => r.delayMs) };
  } finally {
    vi.useRealTimers();
  }
}

/** Invokes with real timers: a client's own timeout must fire (a hang). */
export async function invokeRealTime(call: ClientCall, tool: "write" | "read" = "write"): Promise<Invoked> {
  body = call;
  const { factory, retries, report } = documentedStack();
  const outcome = await factory.tools.invoke({ name: tool, arguments: {} }, { report });
  return { outcome, waits: retries.map((r) => r.delayMs) };
}

/**
 * The clients' own timeout in the hang tests: short, yet long enough on a loaded machine for the
 * request to reach the server first (the point: a write that may have landed).
 */
export const CLIENT_TIMEOUT_MS = 250;

/** Fixed instant (a whole second) the fake clock starts from, so an HTTP-date Retry-After is exact. */
export const CLOCK_START = Date.UTC(2026, 0, 5, 12, 0, 0);

/** What the contract checks of one client. */
export interface ClientContract {
  readonly name: string;
  /** A POST (a write) to `url` with the client, throwing what the client throws on failure. */
  readonly send: (url: string, signal: AbortSignal) => Promise<unknown>;
  /** The same call with the client's own timeout set to {@link CLIENT_TIMEOUT_MS} (absent: the client has none). */
  readonly sendWithTimeout?: (url: string, signal: AbortSignal) => Promise<unknown>;
  /** The body and headers the client's service sends with a failing status. */
  readonly shape?: LocalServer["shape"];
  /** Resets the client retries by itself before it throws (Stripe retries one reset of a kept-alive socket). */
  readonly ownResetRetries?: number;
  /** Statuses the client's service cannot answer as plain HTTP (skipped). */
  readonly skipStatuses?: readonly number[];
}

const SECRET = "sk-live-secret";

/** The status table every recognized client must meet: code, retriable, and attempts at the defaults. */
const STATUSES: ReadonlyArray<readonly [number, string, boolean]> = [
  [400, "INVALID_REQUEST", false],
  [401, "UNAUTHORIZED", false],
  [403, "FORBIDDEN", false],
  [404, "NOT_FOUND", false],
  [409, "CONFLICT", false],
  [422, "INVALID_REQUEST", false],
  [500, "UPSTREAM_ERROR", true],
];

/**
 * Declares the tests of one real client against a local server: each status of the table, 429 with
 * `Retry-After` in seconds and as an HTTP date (waited, then retried even for a write: a 429 proves
 * nothing was applied), a `Retry-After` longer than the call's deadline (told, not waited), 503
 * (retried with backoff), a hang until the client's timeout and a reset (`OUTCOME_UNKNOWN` for a
 * write), and a refused connection (retried for any tool).
 */
export function describeClient(contract: ClientContract): void {
  describe(`${contract.name} through the documented stack`, () => {
    const server = new LocalServer();
    const send = (signal: AbortSignal) => contract.send(server.url, signal);
    beforeAll(async () => {
      await server.start();
      if (contract.shape) server.shape = contract.shape;
    });
    afterAll(() => server.stop());
    afterEach(() => vi.useRealTimers());

    for (const [status, code, retriable] of STATUSES) {
      if (contract.skipStatuses?.includes(status)) continue;
      it(`HTTP ${status} is ${code}, retriable ${retriable}, one attempt for a write`, async () => {
        server.reply({ status });
        const { outcome, waits } = await invokeWithClient(server, send);
        expect(outcome).toMatchObject({ status: "error", errorCode: code, retriable, metadata: { attempts: 1 } });
        expect(outcome.message).toContain(`(HTTP ${status})`);
        // What the model reads: never the body (the exception stays on the outcome, for logs).
        expect(formatToolOutcome(outcome)).not.toContain(SECRET);
        expect(formatToolOutcome(outcome)).toContain(code);
        expect(waits).toEqual([]);
        expect(server.requests).toBe(1);
      });
    }

    it("HTTP 429 with Retry-After: 1 waits exactly 1 s, then the write is retried and lands", async () => {
      server.reply({ status: 429, headers: { "Retry-After": "1" } }, { status: 200 });
      const { outcome, waits } = await invokeWithClient(server, send);
      expect(waits).toEqual([1_000]);
      expect(outcome).toMatchObject({ status: "ok", metadata: { attempts: 2 } });
      expect(server.requests).toBe(2);
    });

    it("HTTP 429 with Retry-After as an HTTP date waits until that date", async () => {
      const at = new Date(CLOCK_START + 2_000).toUTCString();
      server.reply({ status: 429, headers: { "retry-after": at } }, { status: 200 });
      const { outcome, waits } = await invokeWithClient(server, async (signal) => {
        vi.setSystemTime(CLOCK_START); // the clock the date is measured against (faked from here on)
        return send(signal);
      });
      expect(waits).toEqual([2_000]);
      expect(outcome).toMatchObject({ status: "ok", metadata: { attempts: 2 } });
    });

    it("HTTP 429 asking for longer than the call's deadline is told to the model, not waited", async () => {
      server.reply({ status: 429, headers: { "retry-after": "600" } });
      const { outcome, waits } = await invokeWithClient(server, send);
      expect(waits).toEqual([]);
      expect(outcome).toMatchObject({
        status: "error",
        errorCode: "RATE_LIMITED",
        retriable: true,
        message: "Rate limited by the upstream service (HTTP 429). Retry after 600 seconds.",
        metadata: { attempts: 1, retryAfterMs: 600_000 },
      });
    });

    if (!contract.skipStatuses?.includes(503))
      it("HTTP 503 without Retry-After is retried with backoff (nothing was applied); still failing, UPSTREAM_UNAVAILABLE", async () => {
        server.reply({ status: 503 }, { status: 503 }, { status: 503 });
        const { outcome, waits } = await invokeWithClient(server, send);
        expect(waits).toHaveLength(2);
        expect(waits[0]).toBeGreaterThanOrEqual(100);
        expect(waits[0]).toBeLessThanOrEqual(200);
        expect(outcome).toMatchObject({
          status: "error",
          errorCode: "UPSTREAM_UNAVAILABLE",
          retriable: true,
          metadata: { attempts: 3 },
        });
        expect(outcome.message).toContain("(HTTP 503)");
        expect(server.requests).toBe(3);
      });

    const withTimeout = contract.sendWithTimeout;
    if (withTimeout) {
      it("a hang until the client's timeout: a write's outcome is unknown, never retried", async () => {
        server.reply("hang");
        const { outcome, waits } = await invokeRealTime((signal) => withTimeout(server.url, signal));
        expect(waits).toEqual([]);
        expect(outcome).toMatchObject({ status: "error", errorCode: "OUTCOME_UNKNOWN", retriable: false });
        expect(outcome.message).toContain("(TIMEOUT)");
        expect(server.requests).toBe(1);
      });

      it("a hang until the client's timeout: a read is TIMEOUT, retriable", async () => {
        server.reply("hang");
        const { outcome } = await invokeRealTime((signal) => withTimeout(server.url, signal), "read");
        expect(outcome).toMatchObject({ status: "timeout", errorCode: "TIMEOUT", retriable: true });
      });
    }

    it("a connection reset after the request was sent: a write's outcome is unknown, never retried", async () => {
      const resets = 1 + (contract.ownResetRetries ?? 0);
      server.reply(...Array.from({ length: resets }, (): Reply => "reset"));
      // Real timers: some clients (Stripe) settle a socket error through a timer of their own.
      const { outcome, waits } = await invokeRealTime((signal) => contract.send(server.url, signal));
      expect(waits).toEqual([]);
      expect(outcome).toMatchObject({ status: "error", errorCode: "OUTCOME_UNKNOWN", retriable: false });
      expect(server.requests).toBe(resets);
    });

    it("a refused connection (nothing sent) is retried even for a write, then NETWORK_ERROR", async () => {
      const port = await closedPort();
      const { outcome, waits } = await invokeWithClient(undefined, (signal) =>
        contract.send(`http://127.0.0.1:${port}`, signal),
      );
      expect(waits).toHaveLength(2);
      expect(outcome).toMatchObject({
        status: "error",
        errorCode: "NETWORK_ERROR",
        retriable: true,
        message: "Could not reach the upstream service (ECONNREFUSED); the request was not sent.",
        metadata: { attempts: 3 },
      });
    });
  });
}
