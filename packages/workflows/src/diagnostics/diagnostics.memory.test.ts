import { describe, expect, it } from "vitest";
import { diagnosticsHarness } from "../../test/diagnostics-fixtures.js";
import type { DiagnosticsCollector } from "./diagnostics-metrics.js";
import { diagnosticsPlugin } from "./diagnostics.plugin.js";

describe("diagnostics memory", () => {
  it("stays bounded over 100,000 calls: the buffer never grows past maxRecords, the latency reservoir past its size", async () => {
    let sinkCalls = 0;
    const plugin = diagnosticsPlugin({
      maxRecords: 250,
      latencySamples: 64,
      random: () => 0.5,
      sink: () => void sinkCalls++,
    });
    const { world, factory } = diagnosticsHarness((b) => b.usingToolResultMiddleware().usingPlugin(plugin));
    // `{ ok: false }` would be a returned failure now: a business flag of the note varies instead.
    world.on("postNote", ({ note }) => (Number(note) % 10 === 0 ? { saved: false } : { saved: true }));
    const collector = plugin.metrics as DiagnosticsCollector;
    let peak = 0;
    for (let i = 0; i < 100_000; i++) {
      // Every 100th call names an unknown tool with a fresh name: it must not grow the table.
      const name = i % 100 === 99 ? `madeUp_${i}` : "postNote";
      await factory.tools.invoke({ name, arguments: { note: String(i) } });
      if (collector.size > peak) peak = collector.size;
    }
    expect(peak).toBe(250);
    expect(collector.records()).toHaveLength(250);
    expect(collector.recorded).toBe(100_000);
    expect(collector.records().at(-1)).toMatchObject({ tool: "madeUp_99999", errorCode: "UNKNOWN_TOOL" });
    expect(collector.latencySamplesHeld).toBeLessThanOrEqual(64);
    expect(collector.tools().map((t) => t.tool)).toEqual(["(unknown tool)", "postNote"]);
    expect(collector.tool("postNote")).toMatchObject({ calls: 99_000, ok: 99_000 });
    expect(collector.tool("postNote")!.latencyMs.samples).toBe(64);
    expect(sinkCalls).toBe(100_000);
  }, 60_000);
});
