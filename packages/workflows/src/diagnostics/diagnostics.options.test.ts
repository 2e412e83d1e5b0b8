import { describe, expect, it } from "vitest";
import { DIAGNOSTICS_DEFAULTS, resolveDiagnosticsOptions } from "./diagnostics.options.js";

describe("usingDiagnostics options", () => {
  it("pins the defaults: 1000 records, 1024 latency samples per tool, no sink, logger or tracer", () => {
    expect(DIAGNOSTICS_DEFAULTS).toEqual({ maxRecords: 1000, latencySamples: 1024 });
    expect(Object.isFrozen(DIAGNOSTICS_DEFAULTS)).toBe(true);
    const resolved = resolveDiagnosticsOptions();
    expect(resolved).toMatchObject({
      maxRecords: 1000,
      latencySamples: 1024,
      sink: undefined,
      logger: undefined,
      tracer: undefined,
    });
    expect(resolved.clock).toBe(Date.now);
    expect(resolved.random).toBe(Math.random);
  });

  it("accepts maxRecords 0 (counters only), console as a logger and 'global' as a tracer", () => {
    expect(resolveDiagnosticsOptions({ maxRecords: 0, logger: console, tracer: "global" })).toMatchObject({
      maxRecords: 0,
      logger: console,
      tracer: "global",
    });
  });

  it("rejects bad options with a message that says what to pass", () => {
    expect(() => resolveDiagnosticsOptions({ maxRecords: -1 })).toThrow(/`maxRecords` must be an integer >= 0/);
    expect(() => resolveDiagnosticsOptions({ maxRecords: 1.5 })).toThrow(/maxRecords/);
    expect(() => resolveDiagnosticsOptions({ latencySamples: 0 })).toThrow(/`latencySamples` must be an integer >= 1/);
    expect(() => resolveDiagnosticsOptions({ sink: "file.log" as never })).toThrow(/`sink` must be a function/);
    expect(() => resolveDiagnosticsOptions({ logger: { info: () => undefined } as never })).toThrow(
      /info, warn and error methods/,
    );
    expect(() => resolveDiagnosticsOptions({ tracer: {} as never })).toThrow(/OpenTelemetry tracer/);
    expect(() => resolveDiagnosticsOptions({ maxRecord: 5 } as never)).toThrow(/unknown option 'maxRecord'/);
  });
});
