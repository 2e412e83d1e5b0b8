import { afterEach, describe, expect, it, vi } from "vitest";
import { HttpError, untilAborted } from "../../test/agent-fixtures.js";
import { diagnosticsHarness } from "../../test/diagnostics-fixtures.js";
import { ScriptedChatClient } from "../agent/index.js";
import type { DiagnosticsLogger } from "./diagnostics-logger.js";

/** pino's LogFn overloads: (obj, msg?, ...args) and (msg, ...args). */
interface PinoLogFn {
  <T extends object>(obj: T, msg?: string, ...args: unknown[]): void;
  (obj: unknown, msg?: string, ...args: unknown[]): void;
  (msg: string, ...args: unknown[]): void;
}

/** A pino-shaped logger whose methods need `this`, as pino's do. */
class FakePino {
  readonly lines: { level: string; obj: Record<string, unknown>; msg: string | undefined }[] = [];
  readonly debug: PinoLogFn = this.method("debug");
  readonly info: PinoLogFn = this.method("info");
  readonly warn: PinoLogFn = this.method("warn");
  readonly error: PinoLogFn = this.method("error");

  private method(level: string): PinoLogFn {
    return function (this: FakePino, obj: unknown, msg?: string) {
      if (!(this instanceof FakePino)) throw new TypeError("called without its logger as `this`");
      this.lines.push({ level, obj: obj as Record<string, unknown>, msg });
    } as PinoLogFn;
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the logger hook", () => {
  it("fits pino: (obj, msg) at debug for ok calls, warn for envelopes, error for escaped exceptions, info for cancellations", async () => {
    const pino = new FakePino();
    const logger: DiagnosticsLogger = pino;
    const { world, factory } = diagnosticsHarness((b) =>
      b.usingToolResultMiddleware().usingRedaction().usingDiagnostics({ logger }),
    );
    world.on("updateContact", ({ contactId }) => {
      if (contactId === "c2") throw new HttpError(404, "row for jane.doe@example.com missing");
      return { updated: contactId };
    });
    world.on("createAccount", (_args, ctx) => untilAborted(ctx.signal));
    await factory.tools.invoke({ name: "updateContact", arguments: { contactId: "c1" }, callId: "call_ok" });
    await factory.tools.invoke({ name: "updateContact", arguments: { contactId: "c2" }, callId: "call_404" });
    const controller = new AbortController();
    const cancelled = factory.tools.invoke(
      { name: "createAccount", arguments: { name: "Acme" }, callId: "call_cancel" },
      { signal: controller.signal },
    );
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ name: "AbortError" });

    expect(pino.lines.map((l) => [l.level, l.msg])).toEqual([
      ["debug", expect.stringMatching(/^tool updateContact ok \(1 attempt, \d+ ms\)$/)],
      ["warn", expect.stringMatching(/^tool updateContact error NOT_FOUND \(1 attempt, \d+ ms\)$/)],
      ["info", expect.stringMatching(/^tool createAccount cancelled CANCELLED/)],
    ]);
    const warn = pino.lines[1]!.obj;
    expect(warn).toMatchObject({
      tool: "updateContact",
      callId: "call_404",
      status: "error",
      errorCode: "NOT_FOUND",
      error: { type: "HttpError" },
    });
    expect(warn).not.toHaveProperty("exception");
    expect(JSON.stringify(pino.lines)).not.toContain("jane.doe@example.com");

    const { world: bare, factory: unwrapped } = diagnosticsHarness((b) => b.usingDiagnostics({ logger }));
    bare.on("postNote", () => {
      throw new TypeError("kaput");
    });
    await expect(unwrapped.tools.invoke({ name: "postNote", arguments: { note: "x" } })).rejects.toThrow("kaput");
    expect(pino.lines.at(-1)).toMatchObject({
      level: "error",
      obj: { thrown: true, errorCode: "UNHANDLED_ERROR", error: { type: "TypeError", message: "kaput" } },
    });
  });

  it("logs how agent runs end: info when settled, warn when escalated", async () => {
    const pino = new FakePino();
    const { world, factory } = diagnosticsHarness((b) =>
      b.usingToolResultMiddleware().usingDiagnostics({ logger: pino }),
    );
    world.on("updateContact", () => {
      throw new HttpError(403, "denied");
    });
    const ok = factory.createAgent({
      name: "helper",
      instructions: "",
      chatClient: new ScriptedChatClient([{ text: "Hello." }]),
    });
    await ok.run("hi", { runId: "run_ok" });
    expect(pino.lines.at(-1)).toMatchObject({
      level: "info",
      msg: "agent helper run run_ok ended completed",
      obj: { agent: "helper", runId: "run_ok", status: "completed", iterations: 1 },
    });

    const liar = factory.createAgent({
      name: "crm-sync",
      instructions: "",
      chatClient: new ScriptedChatClient([
        { toolCalls: [{ name: "updateContact", arguments: { contactId: "c1" } }] },
        { text: "Sync complete." },
        { text: "All done, sync complete." },
      ]),
    });
    const result = await liar.run("sync", { runId: "run_bad" });
    expect(result.status).toBe("escalated");
    expect(pino.lines.at(-1)).toMatchObject({
      level: "warn",
      msg: "agent crm-sync run run_bad ended escalated",
      obj: { status: "escalated", reason: expect.stringContaining("After one correction turn") },
    });
  });

  it("fits console: (obj, msg); without a debug method, successful calls are not logged; a throwing logger changes nothing", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const debug = vi.spyOn(console, "debug").mockImplementation(() => undefined);
    const { world, factory } = diagnosticsHarness((b) =>
      b.usingToolResultMiddleware().usingDiagnostics({ logger: console }),
    );
    world.on("postNote", () => {
      throw new HttpError(409, "conflict");
    });
    await factory.tools.invoke({ name: "postNote", arguments: { note: "x" } });
    await factory.tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ tool: "postNote", errorCode: "CONFLICT" }),
      expect.stringMatching(/^tool postNote error CONFLICT/),
    );
    expect(debug).toHaveBeenCalledTimes(1);

    const quiet = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const { factory: noDebug } = diagnosticsHarness((b) =>
      b.usingToolResultMiddleware().usingDiagnostics({ logger: quiet }),
    );
    await noDebug.tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } });
    expect([quiet.info, quiet.warn, quiet.error].every((fn) => fn.mock.calls.length === 0)).toBe(true);

    const broken = {
      info: () => {},
      warn: () => {},
      error: () => {},
      debug: () => {
        throw new Error("disk full");
      },
    };
    const { factory: withBroken } = diagnosticsHarness((b) =>
      b.usingToolResultMiddleware().usingDiagnostics({ logger: broken }),
    );
    await expect(
      withBroken.tools.invoke({ name: "updateContact", arguments: { contactId: "c1" } }),
    ).resolves.toMatchObject({ status: "ok" });
  });
});
