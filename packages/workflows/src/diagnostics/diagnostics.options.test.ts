import { describe, expect, it } from "vitest";
import { invalidOption } from "../../test/invalid-option.js";
import { DIAGNOSTICS_DEFAULTS, type DiagnosticsOptions, resolveDiagnosticsOptions } from "./diagnostics.options.js";

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
    const refused = (options: unknown) => invalidOption(() => resolveDiagnosticsOptions(options as DiagnosticsOptions));
    expect(refused({ maxRecords: -1 })).toMatchObject({ code: "INVALID_OPTION", option: "maxRecords", value: -1 });
    expect(refused({ maxRecords: -1 }).message).toBe(
      "usingDiagnostics: option 'maxRecords' must be an integer of at least 0 (got -1).",
    );
    expect(refused({ maxRecords: 1.5 })).toMatchObject({ option: "maxRecords", value: 1.5 });
    expect(refused({ latencySamples: 0 }).message).toMatch(/option 'latencySamples' must be an integer of at least 1/);
    expect(refused({ sink: "file.log" }).message).toBe(
      "usingDiagnostics: option 'sink' must be a function (got \"file.log\").",
    );
    expect(refused({ logger: { info: () => undefined } })).toMatchObject({ option: "logger" });
    expect(refused({ logger: { info: () => undefined } }).message).toMatch(/info, warn and error methods/);
    expect(refused({ logger: { ...console, debug: "on" } }).message).toMatch(/optionally debug/);
    expect(refused({ tracer: {} }).message).toMatch(
      /option 'tracer' must be an OpenTelemetry tracer .* \(got an object\)/,
    );
    expect(refused({ tracer: "globl" })).toMatchObject({ option: "tracer", value: "globl" });
    expect(refused({ clock: 5 })).toMatchObject({ option: "clock", value: 5 });
    expect(refused({ random: 0.5 })).toMatchObject({ option: "random", value: 0.5 });
    expect(refused({ maxRecord: 5 }).message).toMatch(
      /^usingDiagnostics: unknown option 'maxRecord'\. Known options: sink, /,
    );
    expect(refused(5).message).toMatch(/^usingDiagnostics: options must be an object/);
  });
});
