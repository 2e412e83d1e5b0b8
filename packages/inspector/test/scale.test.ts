// The inspector at scale, on small data (the speed is bench/src/inspector-scale.bench.ts): tool health
// counts every call of its window, never a sample; a search that scans in pages says how far it has
// looked and goes on from there; PostgreSQL's answers (in SQL, through its indexes) are the ones the
// inspector computes itself from every run read (the in-memory store), figure for figure.
import { randomBytes } from "node:crypto";
import type { AgentStore, JournalCommit, JournaledOutcome } from "@needlework/durable";
import { PostgresStore } from "@needlework/postgres";
import { InMemoryRunStore } from "@needlework/workflows";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL, describePostgres } from "../../postgres/src/test-database.js";
import { type Inspector, startInspector } from "../src/index.js";

const RUNS = 300;
const CALLS = 10;
const TOOLS = ["crm_upsert", "send_email", "refund"];
const now = Date.now();
/** The run id only the oldest run's contains. */
const NEEDLE = "needle";

const runId = (n: number): string => `run_${String(n).padStart(3, "0")}${n === RUNS - 1 ? `_${NEEDLE}` : ""}`;

/** Run `n`: ten settled calls (some failed, some denied, latencies spread), newest first by `n`. */
function commits(n: number): { first: JournalCommit; second: JournalCommit } {
  const id = runId(n);
  const startedAt = new Date(now - 60_000 - n * 1_000).toISOString();
  const calls = Array.from({ length: CALLS }, (_, i) => ({
    callId: `c${i}`,
    tool: TOOLS[(n + i) % TOOLS.length]!,
    arguments: { n, i },
    idempotencyKey: `${id}:c${i}`,
  }));
  const outcomes = calls.map((c, i): JournaledOutcome => {
    const metadata = { tool: c.tool, callId: c.callId, attempts: 1, latencyMs: (n * 7 + i * 13) % 250 };
    const code = (n + i) % 17 === 0 ? "TIMEOUT" : (n + i) % 23 === 0 ? "APPROVAL_DENIED" : undefined;
    return {
      callId: c.callId,
      idempotencyKey: c.idempotencyKey,
      outcome: code
        ? { status: "error", retriable: false, errorCode: code, metadata }
        : { status: "ok", retriable: false, data: { ok: true }, metadata },
      formatted: "",
    };
  });
  const failed = outcomes.some((o) => o.outcome.status !== "ok");
  return {
    first: {
      start: { runId: id, agent: n % 3 === 0 ? "CRM-sync" : "support", instructions: "i", input: "x", startedAt },
      turns: [{ index: 0, message: { role: "assistant", content: "" } }],
      calls,
    },
    second: {
      outcomes,
      end: {
        status: failed ? "completed_with_failures" : "completed",
        endedAt: new Date(Date.parse(startedAt) + 500).toISOString(),
        result: null,
      },
    },
  };
}

/** Through `commit` where the journal has it, else record by record (the in-memory journal). */
async function fill(store: AgentStore): Promise<void> {
  const j = store.journal;
  for (let n = 0; n < RUNS; n++) {
    const id = runId(n);
    const { first, second } = commits(n);
    if (j.commit) {
      await j.commit(id, first, "test");
      await j.commit(id, second, "test");
      continue;
    }
    await j.runStarted(first.start!, "test");
    await j.turn(id, first.turns![0]!, "test");
    await j.callsStarted(id, first.calls!, "test");
    await j.outcomes(id, second.outcomes!, "test");
    await j.runEnded(id, second.end!, "test");
  }
}

async function api(inspector: Inspector, path: string): Promise<Record<string, unknown>> {
  const response = await fetch(new URL(path, inspector.url));
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Every run of a search, following `next`; the pages' `scanned` figures too. */
async function allPages(inspector: Inspector, query: string): Promise<{ ids: string[]; scanned: number[] }> {
  const ids: string[] = [];
  const scanned: number[] = [];
  let next: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await api(inspector, `/api/runs?${query}${next ? `&cursor=${next}` : ""}`);
    ids.push(...(page["runs"] as { runId: string }[]).map((r) => r.runId));
    if (page["scanned"] !== undefined) scanned.push(page["scanned"] as number);
    next = page["next"] as string | undefined;
    if (!next) break;
  }
  return { ids, scanned };
}

/** What both stores must answer the same: health over the window, searches by each field, figures. */
const QUERIES = [
  "limit=500",
  "agent=crm&limit=500",
  "code=TIMEOUT&limit=500",
  "code=APPROVAL_DENIED&agent=SUPPORT&limit=37",
  "status=completed_with_failures&limit=40",
  `from=${new Date(now - 60_000 - 100_000).toISOString()}&to=${new Date(now - 60_000 - 50_000).toISOString()}`,
];

function describeScale(name: string, open: () => Promise<{ store: AgentStore; close?: () => Promise<void> }>): void {
  describe(name, () => {
    let inspector: Inspector;
    let close: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      const opened = await open();
      close = opened.close;
      await fill(opened.store);
      inspector = await startInspector({ store: opened.store, port: 0 });
    }, 120_000);
    afterAll(async () => {
      await inspector?.close();
      await close?.();
    });

    it("health counts every call of its window, never a sample", async () => {
      const health = await api(inspector, "/api/health?minutes=60");
      const tools = health["tools"] as { tool: string; calls: number; failures: number }[];
      expect(health).toMatchObject({ runs: RUNS, calls: RUNS * CALLS, complete: true });
      expect(tools.reduce((sum, t) => sum + t.calls, 0)).toBe(RUNS * CALLS);
      expect(tools.map((t) => t.tool).sort()).toEqual([...TOOLS].sort());
      results.set(`${name}:health`, health["tools"]);
    });

    it("a search for a part of a run id says how far it has looked, and goes on from there", async () => {
      const first = await api(inspector, `/api/runs?q=${NEEDLE}&scan=100`);
      expect(first["runs"]).toEqual([]);
      expect(first["scanned"]).toBe(100);
      expect(first["scannedThrough"]).toBe(new Date(now - 60_000 - 99 * 1_000).toISOString());
      expect(first["next"]).toEqual(expect.any(String));
      const all = await allPages(inspector, `q=${NEEDLE}&scan=100`);
      expect(all.ids).toEqual([runId(RUNS - 1)]);
      // Each page stopped at its bound said so (the last may too: it cannot know that nothing is older).
      expect(all.scanned.length).toBeGreaterThanOrEqual(2);
      expect(all.scanned.every((n) => n === 100)).toBe(true);
    });

    it("finds by each field with the figures run_health counts", async () => {
      for (const query of QUERIES) {
        const pages = await allPages(inspector, query);
        results.set(`${name}:${query}`, pages.ids);
      }
      const page = await api(inspector, "/api/runs?limit=500");
      const rows = page["runs"] as { runId: string; stats: Record<string, unknown> }[];
      expect(rows).toHaveLength(RUNS);
      results.set(
        `${name}:figures`,
        rows.map((r) => ({ ...r.stats, durationMs: undefined })),
      );
    });
  });
}

const results = new Map<string, unknown>();

describeScale("in memory (the inspector reads every run)", async () => ({ store: new InMemoryRunStore() }));
describePostgres("PostgreSQL (in SQL, through its indexes)", () => {
  describeScale("postgres", async () => {
    // Its own schema, dropped after the file's tests (not after each, as freshSchema's are).
    const schema = `ops_scale_${randomBytes(6).toString("hex")}`;
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema });
    await store.migrate();
    return {
      store,
      close: async () => {
        await store.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await store.close();
      },
    };
  });
  it("answers as the inspector computes it from every run: health, each search and each run's figures", () => {
    const keys = ["health", "figures", ...QUERIES];
    for (const key of keys) {
      const memory = results.get(`in memory (the inspector reads every run):${key}`);
      expect(memory, key).toBeDefined();
      expect(results.get(`postgres:${key}`), key).toEqual(memory);
    }
    expect((results.get("postgres:agent=crm&limit=500") as string[]).length).toBe(RUNS / 3);
  });
});
