import "reflect-metadata";
import { mkdtempSync, rmSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentFunction, AgentFunctionGroup, createToolOutcome } from "@needlework/core";
import { PostgresStore } from "@needlework/postgres";
import { type ArtifactStore, FileArtifactStore, InMemoryArtifactStore } from "@needlework/workflows/durable";
import { usingAgentFramework } from "@needlework/workflows";
import { storeAsArtifact } from "@needlework/workflows/shaping";
import { z } from "zod";
import { defineBenchmark, type Measurement } from "./lib/benchmark.js";
import { DATABASE_URL, dropSchemas, postgresUp } from "./lib/postgres.js";

// Huge results as artifacts (issue 52): storing a 1 MB and a 10 MB result (JSON, sha256, the schema
// and the preview, the store's write) and reading one page of it back cold (the store's read, the
// parse, the page within its token budget), on each store. No TypeScript peer offloads results, so
// the floor is the plain work: JSON.stringify and the same write; the same read, JSON.parse and a
// slice of 100 items.

const SIZES = [
  { label: "1 MB", rows: 9_000 },
  { label: "10 MB", rows: 90_000 },
] as const;

function rowsOf(count: number) {
  return Array.from({ length: count }, (_, id) => ({
    id,
    customer: `customer-${id % 997}`,
    email: `c${id % 997}@example.com`,
    total: Math.round(id * 13.7) / 10,
    note: "paid on delivery, no issues reported",
  }));
}

@AgentFunctionGroup()
class NoTools {
  @AgentFunction({ description: "Nothing.", input: z.object({}), readOnly: true })
  nothing() {
    return null;
  }
}

/** The median of `runs` timings of `fn`, in ms (one untimed run first). */
async function medianMs(runs: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  await fn(-1);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const began = performance.now();
    await fn(i);
    times.push(performance.now() - began);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

interface Place {
  readonly name: string;
  readonly store: ArtifactStore;
  /** The floor's write and read of the same text. */
  write(key: string, text: string): Promise<void>;
  read(key: string): Promise<string>;
  close(): Promise<void>;
}

async function places(): Promise<Place[]> {
  const memory = new Map<string, string>();
  const dir = mkdtempSync(join(tmpdir(), "needlework-bench-artifacts-"));
  const out: Place[] = [
    {
      name: "memory",
      store: new InMemoryArtifactStore(),
      write: async (key, text) => void memory.set(key, text),
      read: async (key) => memory.get(key) ?? "",
      close: async () => undefined,
    },
    {
      name: "file",
      store: new FileArtifactStore(join(dir, "artifacts")),
      async write(key, text) {
        const handle = await open(join(dir, `${key}.json`), "w");
        await handle.writeFile(text);
        await handle.sync();
        await handle.close();
      },
      read: (key) => readFile(join(dir, `${key}.json`), "utf8"),
      close: async () => rmSync(dir, { recursive: true, force: true }),
    },
  ];
  if (await postgresUp()) {
    const schema = `bench_artifacts_${process.pid}`;
    await dropSchemas(schema);
    const store = new PostgresStore({ connectionString: DATABASE_URL, schema, maxConnections: 2 });
    await store.migrate();
    await store.pool.query(`CREATE TABLE "${schema}".floor (key text PRIMARY KEY, content text NOT NULL)`);
    out.push({
      name: "PostgreSQL",
      store: store.artifacts,
      write: async (key, text) =>
        void (await store.pool.query(`INSERT INTO "${schema}".floor VALUES ($1, $2)`, [key, text])),
      read: async (key) =>
        (await store.pool.query<{ content: string }>(`SELECT content FROM "${schema}".floor WHERE key = $1`, [key]))
          .rows[0]!.content,
      async close() {
        await store.close();
        await dropSchemas(schema);
      },
    });
  }
  return out;
}

const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

export default defineBenchmark({
  name: "artifacts",
  description:
    "Storing a 1 MB and a 10 MB tool result as an artifact (storeAsArtifact: JSON, sha256, schema, preview, the store's write) and reading one page back cold (read_artifact through a factory whose cache is empty), on each store; floors: JSON.stringify + the same write, the same read + JSON.parse + a slice of 100 items.",
  cases: () => [],
  async measure() {
    const out: Measurement[] = [];
    for (const place of await places()) {
      for (const size of SIZES) {
        const value = rowsOf(size.rows);
        const bytes = Buffer.byteLength(JSON.stringify(value));
        const runs = size.rows > 10_000 ? 5 : 11;
        const floorWrite = await medianMs(runs, (i) => place.write(`w${size.label}${i}`, JSON.stringify(value)));
        let id = "";
        const outcome = createToolOutcome({ status: "ok", data: value }); // what the pipeline hands over
        const offload = await medianMs(runs, async (i) => {
          const stored = await storeAsArtifact(outcome, {
            store: place.store,
            runId: `run_${i + 1}`,
          });
          id = stored.artifact!.id;
        });
        await place.write(`page${size.label}`, JSON.stringify(value));
        const floorRead = await medianMs(runs, async () =>
          (JSON.parse(await place.read(`page${size.label}`)) as unknown[]).slice(0, 100),
        );
        // A fresh factory per read: its reader has nothing cached, so each page reads the store.
        const factories = Array.from({ length: runs + 1 }, () =>
          usingAgentFramework()
            .addAgentFunctions(NoTools)
            .usingToolResultMiddleware()
            .usingArtifacts({ store: place.store })
            .buildAgentFactory({ printDiagnostics: false }),
        );
        const page = await medianMs(runs, async (i) => {
          const outcome = await factories[i + 1]!.tools.invoke(
            { name: "read_artifact", arguments: { id, offset: 1000, limit: 100 } },
            { runId: "run_1" },
          );
          if (outcome.status !== "ok") throw new Error(`read_artifact answered ${outcome.errorCode}`);
        });
        // The next page of the same artifact: the reader keeps it parsed.
        const warm = await medianMs(runs, () =>
          factories[0]!.tools.invoke(
            { name: "read_artifact", arguments: { id, offset: 2000, limit: 100 } },
            { runId: "run_1" },
          ),
        );
        out.push({
          name: `${place.name}, ${size.label} (${round(bytes / 1_000_000, 2)} MB, ${size.rows} rows)`,
          "floor write ms": round(floorWrite),
          "offload ms": round(offload),
          "offload × floor": round(offload / floorWrite, 2),
          "floor read ms": round(floorRead),
          "page (cold) ms": round(page),
          "page × floor": round(page / floorRead, 2),
          "next page ms": round(warm, 2),
        });
      }
      await place.close();
    }
    return out;
  },
});
