// The inspector's API over the embedded stores, the way its page (and an attacker) calls it.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileRunStore, InMemoryRunStore } from "@needlework/workflows";
import {
  aesGcmCodec,
  type AgentStore,
  type DeadLetterEntry,
  type DeadLetterQueue,
  type JournaledCall,
  type JournaledRun,
  type JournaledTurn,
} from "@needlework/durable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Inspector, startInspector } from "../src/index.js";
import { ENCODED, runView, UNREADABLE } from "../src/run-view.js";
import { HOSTILE, type WrittenRuns, writeRuns } from "./runs.js";

const opened: Inspector[] = [];
afterAll(async () => {
  for (const inspector of opened) await inspector.close();
});

async function start(options: Parameters<typeof startInspector>[0]): Promise<Inspector> {
  const inspector = await startInspector({ port: 0, ...options });
  opened.push(inspector);
  return inspector;
}

/** A JSON answer, read the way a test reads it: any path may be absent (an assertion then fails). */
// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, asserted field by field below
type Json = any;

async function get(inspector: Inspector, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(new URL(path, inspector.url), { headers });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

describe("startInspector over an in-memory store", () => {
  const store = new InMemoryRunStore();
  let runs: WrittenRuns;
  let inspector: Inspector;
  beforeAll(async () => {
    runs = await writeRuns(store);
    inspector = await start({ store });
  });

  it("binds 127.0.0.1 and lists runs newest first, filtered by status and agent, paged", async () => {
    expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const all = await get(inspector, "/api/runs");
    expect(all.body.runs.map((r: { runId: string }) => r.runId)).toEqual([
      runs.running,
      runs.poisoned,
      runs.hostile,
      runs.paused,
      runs.failed,
    ]);
    const failed = await get(inspector, "/api/runs?status=completed_with_failures&agent=crm-sync");
    expect(failed.body.runs).toEqual([
      expect.objectContaining({ runId: runs.failed, status: "completed_with_failures" }),
    ]);
    const first = await get(inspector, "/api/runs?limit=2");
    const second = await get(inspector, `/api/runs?limit=2&cursor=${first.body.next}`);
    expect(second.body.runs.map((r: { runId: string }) => r.runId)).toEqual([runs.hostile, runs.paused]);
    expect((await get(inspector, "/api/runs?cursor=forged")).status).toBe(400);
    expect((await get(inspector, "/api/runs?limit=-1")).status).toBe(400);
  });

  it("shows a failed run: the refused call's code, the retried call's attempts, run_health, the correction, the answer", async () => {
    const { status, body } = await get(inspector, `/api/runs/${runs.failed}`);
    expect(status).toBe(200);
    expect(body.run).toMatchObject({ runId: runs.failed, agent: "crm-sync", status: "completed_with_failures" });
    const events = body.events as { type: string; [key: string]: Json }[];
    expect(events.find((e) => e.type === "tool-result" && e.callId === "w1")).toMatchObject({
      outcome: { status: "error", errorCode: "FORBIDDEN" },
      formatted: expect.stringContaining('"error_code":"FORBIDDEN"'),
    });
    expect(events.find((e) => e.type === "tool-result" && e.callId === "w2")?.outcome).toMatchObject({
      status: "ok",
      attempts: 2,
      attemptErrors: [expect.stringMatching(/^[A-Z][A-Z0-9_]+$/)], // the first attempt's code
    });
    expect(events.find((e) => e.type === "run-health")?.health).toMatchObject({ tools_ok: 1, tools_failed: 1 });
    expect(events.find((e) => e.type === "correction")?.reason).toMatch(/claims success/);
    expect(events.at(-1)).toMatchObject({
      type: "run-end",
      status: "completed_with_failures",
      text: expect.stringMatching(/FORBIDDEN/),
    });
  });

  it("shows a paused run's pending tool, and never its checkpoint (a signed capability to resume)", async () => {
    const { body } = await get(inspector, `/api/runs/${runs.paused}`);
    const pending = body.events.find((e: { type: string }) => e.type === "approval-required");
    expect(pending.pending).toEqual([{ callId: "r1", tool: "refund", arguments: { orderId: "ORD-9" } }]);
    expect(JSON.stringify(body)).not.toMatch(/checkpoint|signature/i);
  });

  it("finds runs by interrupted status, time range, agent prefix in any case, error code and id", async () => {
    const ids = async (query: string) =>
      (await get(inspector, `/api/runs?${query}`)).body.runs.map((r: { runId: string }) => r.runId);
    expect(await ids("status=interrupted")).toEqual([runs.running]);
    expect(await ids("agent=SUPP")).toEqual([runs.paused]);
    expect(await ids("code=CONFLICT")).toEqual([runs.poisoned]);
    expect(await ids(`q=${runs.failed}`)).toEqual([runs.failed]);
    expect(await ids("to=2000-01-01T00:00:00Z")).toEqual([]);
    expect(await ids("from=2999-01-01T00:00:00Z")).toEqual([]);
    expect((await ids("from=2000-01-01T00:00:00Z&limit=2")).length).toBe(2);
    expect((await get(inspector, "/api/runs?from=yesterday-ish")).status).toBe(400);
    const failed = (await get(inspector, "/api/runs?agent=crm")).body.runs.find(
      (r: { runId: string }) => r.runId === runs.failed,
    );
    expect(failed.stats).toMatchObject({ turns: 3, calls: 2, failures: 1, codes: ["FORBIDDEN"] });
  });

  it("shows each tool's health over a window: calls, failures by code, p50 and p95 latency", async () => {
    const { body } = await get(inspector, "/api/health?minutes=60");
    // Every call of every run of the window counted (see scale.test.ts).
    expect(body).toMatchObject({ windowMinutes: 60, complete: true });
    expect(body.oldestRead).toBeUndefined();
    const merge = body.tools.find((t: { tool: string }) => t.tool === "mergeContacts");
    expect(merge).toMatchObject({ calls: 2, failures: 2, byCode: { CONFLICT: 2 } });
    expect(typeof merge.p50Ms).toBe("number");
    expect(merge.p95Ms).toBeGreaterThanOrEqual(merge.p50Ms);
  });

  it("answers 404 for a run it does not have", async () => {
    expect((await get(inspector, "/api/runs/run_nope")).status).toBe(404);
  });

  it("lists dead letters and acknowledges one only from its own page", async () => {
    const open = await get(inspector, "/api/dead-letters?acknowledged=false");
    expect(open.body.acknowledgeable).toBe(true);
    expect(open.body.letters).toEqual([
      expect.objectContaining({ runId: runs.poisoned, tool: "mergeContacts", errorCode: "CONFLICT" }),
    ]);
    const id = open.body.letters[0].id as string;
    const ack = (headers: Record<string, string>) =>
      fetch(new URL(`/api/dead-letters/${id}/acknowledge`, inspector.url), { method: "POST", headers });
    expect((await ack({})).status).toBe(403); // a form post from anywhere carries no custom header
    expect((await ack({ "x-needlework-inspector": "1", origin: "https://evil.example" })).status).toBe(403);
    expect(await (await ack({ "x-needlework-inspector": "1", "x-needlework-operator": "Ada" })).json()).toEqual({
      acknowledged: true,
    });
    expect(await (await ack({ "x-needlework-inspector": "1", "x-needlework-operator": "Ada" })).json()).toEqual({
      acknowledged: false,
    });
    expect((await get(inspector, "/api/dead-letters?acknowledged=false")).body.letters).toEqual([]);
    expect((await get(inspector, "/api/dead-letters?acknowledged=true")).body.letters[0]).toMatchObject({
      id,
      acknowledgedAt: expect.any(String),
    });
  });

  it("sends the page with a policy that runs only its own scripts, and answers only requests addressed to localhost", async () => {
    const page = await fetch(inspector.url);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await page.text()).toContain("needlework inspector");
    // The views' addresses as paths serve the same page (it routes by path or by hash).
    for (const path of ["/runs", "/runs/run_x", "/dead-letters"]) {
      const view = await fetch(new URL(path, inspector.url));
      expect(view.status, path).toBe(200);
      expect(view.headers.get("content-type")).toContain("text/html");
    }
    expect((await fetch(new URL("/runs/a/b", inspector.url))).status).toBe(404);
    // DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host.
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL("/api/runs", inspector.url);
      request({ host: url.hostname, port: url.port, path: url.pathname, headers: { host: "evil.example" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on("error", reject)
        .end();
    });
    expect(status).toBe(421);
  });

  it("keeps hostile tool data as data: the API returns it as strings for the page to set as text", async () => {
    const { body } = await get(inspector, `/api/runs/${runs.hostile}`);
    expect(body.run.agent).toBe(`notes-${HOSTILE}`);
    expect(body.events.find((e: { type: string }) => e.type === "tool-result").formatted).toContain("onerror");
  });
});

describe("startInspector's safety rules", () => {
  const store = new InMemoryRunStore();

  it("refuses another host without a token, and a short token", async () => {
    await expect(startInspector({ store, host: "0.0.0.0", port: 0 })).rejects.toMatchObject({
      code: "INVALID_OPTION",
      message: expect.stringMatching(/without a token/),
    });
    await expect(startInspector({ store, port: 0, token: "short" })).rejects.toMatchObject({ code: "INVALID_OPTION" });
    await expect(startInspector({ store: {} as AgentStore, port: 0 })).rejects.toMatchObject({
      code: "INVALID_OPTION",
    });
  });

  it("with a token (on any host), every API request must carry it; the printed URL carries it in its fragment", async () => {
    const token = randomBytes(18).toString("base64url");
    const inspector = await start({ store, host: "0.0.0.0", token });
    expect(inspector.url).toMatch(new RegExp(`^http://0\\.0\\.0\\.0:\\d+/#token=${token}$`));
    const local = inspector.url.replace("0.0.0.0", "127.0.0.1");
    const api = (headers: Record<string, string>) => fetch(new URL("/api/runs", local), { headers });
    expect((await api({})).status).toBe(401);
    expect((await api({ authorization: "Bearer wrong-token-wrong-token" })).status).toBe(401);
    expect((await api({ authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it("pages the dead letters of a queue of the user's own (append and list only), which cannot acknowledge", async () => {
    const entries: DeadLetterEntry[] = ["a", "b", "c"].map((tool) => ({
      runId: `run_${tool}`,
      agent: "crm-sync",
      tool,
      arguments: {},
      errorCode: "CONFLICT",
      callIds: [],
      outcomes: [],
      time: "2026-11-01T00:00:00.000Z",
      reason: "Failed 3 times.",
    }));
    const own: DeadLetterQueue = { append: async () => undefined, list: async () => entries };
    const inspector = await start({ store: { ...store, deadLetters: own } });
    const first = await get(inspector, "/api/dead-letters?limit=2");
    expect(first.body).toMatchObject({ acknowledgeable: false, next: 2 });
    expect(first.body.letters.map((l: { tool: string; id: string }) => [l.id, l.tool])).toEqual([
      ["1", "a"],
      ["2", "b"],
    ]);
    const second = await get(inspector, "/api/dead-letters?limit=2&offset=2");
    expect(second.body.letters.map((l: { tool: string; id: string }) => [l.id, l.tool])).toEqual([["3", "c"]]);
    expect(second.body.next).toBeUndefined();
    expect((await get(inspector, "/api/dead-letters?acknowledged=true")).body.letters).toEqual([]);
    const ack = await fetch(new URL("/api/dead-letters/1/acknowledge", inspector.url), {
      method: "POST",
      headers: { "x-needlework-inspector": "1", "x-needlework-operator": "Ada" },
    });
    expect(ack.status).toBe(405);
  });

  it("answers a store failure with a fixed text and the error's code, never its message", async () => {
    const journal = Object.assign(Object.create(store.journal) as AgentStore["journal"], {
      list: async () => {
        throw Object.assign(new Error("connect to postgres://admin:hunter2@db failed"), { code: "STORE_FAILED" });
      },
    });
    const broken: AgentStore = { ...store, journal };
    const inspector = await start({ store: broken });
    const { status, body } = await get(inspector, "/api/runs");
    expect(status).toBe(500);
    expect(body).toEqual({ error: "The store could not be read.", code: "STORE_FAILED" });
  });
});

describe("startInspector over a FileRunStore that encodes its payloads", () => {
  let directory = "";
  const codec = aesGcmCodec({ current: "k1", keys: { k1: randomBytes(32) } });
  let runs: WrittenRuns;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "nw-inspector-"));
    runs = await writeRuns(new FileRunStore(directory, { codec }));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it("shows payloads encoded without the codec, and decoded with it; ids, statuses and codes either way", async () => {
    const plain = await start({ store: new FileRunStore(directory) });
    const sealed = await get(plain, `/api/runs/${runs.failed}`);
    expect(sealed.body.run.input).toBe(ENCODED);
    // Call ids are the model's: with a codec they are stored as their place in the turn, not in clear.
    const call = sealed.body.events.find(
      (e: { type: string; callId?: string }) => e.type === "tool-result" && e.callId === "t0c0",
    );
    expect(JSON.stringify(sealed.body)).not.toContain('"w1"');
    expect(call.outcome).toMatchObject({ status: "error", errorCode: "FORBIDDEN" });
    expect(call.formatted).toBe(ENCODED);
    expect(JSON.stringify(sealed.body)).not.toContain("HubSpot refused");
    const letters = await get(plain, "/api/dead-letters");
    expect(letters.body.letters[0]).toMatchObject({ errorCode: "CONFLICT", arguments: ENCODED });

    const decoding = await start({ store: new FileRunStore(directory), codec });
    const open = await get(decoding, `/api/runs/${runs.failed}`);
    expect(open.body.run.input).toBe("Sync contact 24290 to HubSpot and Salesforce.");
    expect(JSON.stringify(open.body)).toContain("HubSpot refused");
    expect(
      open.body.events.some((e: { type: string; callId?: string }) => e.type === "tool-result" && e.callId === "w1"),
    ).toBe(true);
    expect((await get(decoding, "/api/dead-letters")).body.letters[0].arguments).toEqual({ contactId: "C-7" });
    const listed = await get(decoding, "/api/runs?status=awaiting_approval");
    expect(listed.body.runs.map((r: { runId: string }) => r.runId)).toEqual([runs.paused]);
  });
});

describe("startInspector's answers to bad input (issue 34)", () => {
  it("answers 400 for a malformed run id and 404 for an unknown one, never 500", async () => {
    const inspector = await start({ store: new InMemoryRunStore() });
    for (const path of ["/api/runs/%E0%A4%A", "/api/runs/a%00b", `/api/runs/${"x".repeat(501)}`])
      expect((await get(inspector, path)).status, path).toBe(400);
    expect((await get(inspector, "/api/runs/run_unknown")).status).toBe(404);
    expect((await get(inspector, "/api/runs/run_unknown/export")).status).toBe(404);
    const post = await fetch(new URL("/api/runs/%E0%A4%A/resume", inspector.url), {
      method: "POST",
      headers: { "x-needlework-inspector": "1" },
    });
    expect(post.status).toBe(400);
  });

  it("never quotes a refused token back, in the message or the error's value", async () => {
    const secret = "short-secret-1";
    const error = await startInspector({ store: new InMemoryRunStore(), port: 0, token: secret }).catch((e) => e);
    expect(error).toMatchObject({ code: "INVALID_OPTION", option: "token" });
    expect(`${error.message} ${JSON.stringify(error)} ${String(error.value)}`).not.toContain(secret);
  });

  it("reads its options' own properties only: a polluted Object.prototype gives it no host, token or route", async () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.host = "0.0.0.0";
    proto.token = "polluted-token-polluted-token";
    try {
      const inspector = await start({ store: new InMemoryRunStore() });
      expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect((await fetch(new URL("/api/runs", inspector.url))).status).toBe(200); // no token asked
    } finally {
      delete proto.host;
      delete proto.token;
    }
    // The old static table was a Record: an inherited key was a route to any file.
    proto["/etc/passwd"] = { file: "../../../../../etc/passwd", type: "text/plain" };
    try {
      const inspector = await start({ store: new InMemoryRunStore() });
      const passwd = await fetch(new URL("/etc/passwd", inspector.url));
      expect(passwd.status).not.toBe(200);
      expect(await passwd.text()).not.toContain("root:");
    } finally {
      delete proto["/etc/passwd"];
    }
  });

  it("shows a dead letter its codec cannot open as unreadable, and the rest of the list as usual", async () => {
    const directory = await mkdtemp(join(tmpdir(), "nw-inspector-bad-"));
    try {
      const codec = aesGcmCodec({ current: "k1", keys: { k1: randomBytes(32) } });
      const sealed = new FileRunStore(directory, { codec });
      await writeRuns(sealed);
      const letter: DeadLetterEntry = {
        runId: "run_corrupt",
        agent: "crm-sync",
        tool: "mergeContacts",
        arguments: { $codec: "v1:k1:not-a-sealed-value" },
        errorCode: "CONFLICT",
        callIds: [],
        outcomes: [],
        time: new Date().toISOString(),
        reason: "Failed 3 times.",
      };
      await new FileRunStore(directory).deadLetters.append(letter); // written around the codec: corrupt
      const inspector = await start({ store: new FileRunStore(directory), codec });
      const { status, body } = await get(inspector, "/api/dead-letters");
      expect(status).toBe(200);
      expect(body.letters.map((l: { arguments: unknown }) => l.arguments)).toEqual([{ contactId: "C-7" }, UNREADABLE]);
      // Another key altogether: every letter unreadable, the list still answers, with ids and codes.
      const wrong = aesGcmCodec({ current: "k1", keys: { k1: randomBytes(32) } });
      const other = await start({ store: new FileRunStore(directory), codec: wrong });
      const listed = await get(other, "/api/dead-letters");
      expect(listed.status).toBe(200);
      expect(listed.body.letters[0]).toMatchObject({ errorCode: "CONFLICT", arguments: UNREADABLE });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("builds the whole view of a 20,000-call run (every call and turn counted)", () => {
    const big = (calls: number): JournaledRun => {
      const turns: JournaledTurn[] = [];
      const journaled: JournaledCall[] = [];
      for (let t = 0; t < calls / 10; t++) {
        const toolCalls = Array.from({ length: 10 }, (_, i) => ({
          id: `c${t}_${i}`,
          name: "lookup",
          arguments: { n: i },
        }));
        turns.push({ index: t, message: { role: "assistant", content: "", toolCalls } });
        for (const call of toolCalls)
          journaled.push({
            callId: call.id,
            tool: "lookup",
            arguments: call.arguments,
            idempotencyKey: call.id,
            outcome: {
              callId: call.id,
              outcome: { status: "ok", retriable: false, metadata: { attempts: 1, latencyMs: 2 } },
              formatted: "{}",
            },
          });
      }
      return {
        runId: "run_big",
        agent: "a",
        instructions: "",
        input: "",
        startedAt: new Date().toISOString(),
        turns,
        calls: journaled,
      };
    };
    // Its speed (linear in the calls) is measured in bench/src/inspector.bench.ts, not timed here.
    const view = runView(big(20_000));
    expect(view.stats).toMatchObject({ calls: 20_000, turns: 2_000, failures: 0 });
    expect(view.events.filter((e) => e.type === "tool-result")).toHaveLength(20_000);
  });
});

describe("startInspector's actions through the API", () => {
  const store = new InMemoryRunStore();
  let runs: WrittenRuns;
  let inspector: Inspector;
  const act = (path: string, body: unknown = {}) =>
    fetch(new URL(path, inspector.url), {
      method: "POST",
      headers: { "x-needlework-inspector": "1", "x-needlework-operator": "Ada", "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  beforeAll(async () => {
    runs = await writeRuns(store, { denial: true });
    inspector = await start({ store, agents: runs.agents });
  });

  it("refuses an action by nobody named (OPERATOR_REQUIRED), and journals nothing", async () => {
    for (const operator of [undefined, "", "   "]) {
      const response = await fetch(new URL(`/api/runs/${runs.failed}/resume`, inspector.url), {
        method: "POST",
        headers: {
          "x-needlework-inspector": "1",
          "content-type": "application/json",
          ...(operator === undefined ? {} : { "x-needlework-operator": operator }),
        },
        body: "{}",
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: "OPERATOR_REQUIRED",
        error: expect.stringContaining("name"),
      });
    }
    expect((await get(inspector, `/api/runs/${runs.failed}`)).body.actions).toEqual([]);
  });

  it("refuses decisions that do not cover the pending calls, and a run that is not paused", async () => {
    expect((await act(`/api/runs/${runs.paused}/decisions`, { decisions: {} })).status).toBe(400);
    expect((await act(`/api/runs/${runs.paused}/decisions`, { decisions: { r1: "maybe" } })).status).toBe(400);
    const notPaused = await act(`/api/runs/${runs.failed}/decisions`, { decisions: { w1: "approved" } });
    expect(notPaused.status).toBe(409);
    expect(await notPaused.json()).toMatchObject({ code: "NOT_PAUSED" });
    const ended = await act(`/api/runs/${runs.failed}/resume`);
    expect(await ended.json()).toMatchObject({ code: "RUN_ENDED" });
    expect(runs.world.refunds).toEqual([]);
  });

  it("answers AGENT_NOT_GIVEN when it was not given the run's agent, and runs nothing", async () => {
    const readOnly = await start({ store });
    const response = await fetch(new URL(`/api/runs/${runs.pausedToDeny}/decisions`, readOnly.url), {
      method: "POST",
      headers: { "x-needlework-inspector": "1", "x-needlework-operator": "Ada", "content-type": "application/json" },
      body: JSON.stringify({ decisions: { r2: "approved" } }),
    });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ code: "AGENT_NOT_GIVEN" });
    expect(runs.world.refunds).toEqual([]);
  });

  it("a replay that fails again leaves the letter open; two at once run the call once", async () => {
    const { body } = await get(inspector, "/api/dead-letters?acknowledged=false");
    const id = body.letters[0].id as string;
    const failed = await act(`/api/dead-letters/${id}/replay`);
    expect(failed.status).toBe(409);
    expect(await failed.json()).toEqual({
      replayed: false,
      outcome: { status: "error", errorCode: "CONFLICT" },
      code: "REPLAY_FAILED",
      error: "The call failed again with CONFLICT; the letter stays open.",
    });
    expect((await get(inspector, "/api/dead-letters?acknowledged=false")).body.letters).toHaveLength(1);
    runs.world.locked = false;
    const both = await Promise.all([act(`/api/dead-letters/${id}/replay`), act(`/api/dead-letters/${id}/replay`)]);
    // One runs it; the other is refused while it runs (409) or finds the letter closed after (404).
    const statuses = both.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([404, 409]).toContain(statuses[1]);
    expect(runs.world.merges).toBe(1);
    expect((await get(inspector, "/api/dead-letters?acknowledged=false")).body.letters).toEqual([]);
  });
});
