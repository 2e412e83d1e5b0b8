import { formatToolOutcome, ToolError, ToolResult } from "@needlework/core";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { type DiagnosticsLogger, usingAgentFramework } from "../../src/index.js";
import { StoreTools, World } from "./reliability-fixtures.js";

// Failure texts and log lines pass the default secret detectors without usingRedaction().
const PASSWORD = "hunter2";
const AWS_KEY = "AKIAIOSFODNN7EXAMPLE";
const GITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
const SECRETS = [PASSWORD, AWS_KEY, GITHUB_TOKEN];

function captureLogger(): DiagnosticsLogger & { readonly lines: string[] } {
  const lines: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string): void => {
    lines.push(`${msg ?? ""} ${JSON.stringify(obj)}`);
  };
  return { lines, debug: log, info: log, warn: log, error: log };
}

function build(world: World, middleware: boolean, logger: DiagnosticsLogger) {
  const child = container.createChildContainer();
  child.register(World, { useValue: world });
  let builder = usingAgentFramework(child).addAgentFunctions(StoreTools);
  if (middleware) builder = builder.usingToolResultMiddleware();
  return builder.usingDiagnostics({ logger }).buildAgentFactory();
}

describe("secrets in failures without usingRedaction()", () => {
  for (const middleware of [true, false]) {
    const where = middleware ? "with the tool-result middleware" : "without the tool-result middleware";

    it(`ToolResult.fail's message and suggestion never show a password or an AWS key ${where}`, async () => {
      const world = new World().on("lookup", () =>
        ToolResult.fail(`login failed: password=${PASSWORD} ${AWS_KEY}`, {
          code: "LOGIN_FAILED",
          suggestion: `Rotate ${GITHUB_TOKEN}.`,
        }),
      );
      const logger = captureLogger();
      const factory = build(world, middleware, logger);
      const outcome = await factory.tools.invoke({ name: "lookup", arguments: { id: "a" } });
      const text = formatToolOutcome(outcome);
      expect(outcome.errorCode).toBe("LOGIN_FAILED");
      expect(text).toContain("login failed: password=[REDACTED:secret] [REDACTED:api_key]");
      expect(logger.lines.length).toBeGreaterThan(0);
      for (const secret of SECRETS) {
        expect(text).not.toContain(secret);
        expect(logger.lines.join("\n")).not.toContain(secret);
      }
    });

    it(`a thrown ToolError with a GitHub token never shows it ${where}`, async () => {
      const world = new World().on("lookup", () => {
        throw new ToolError(`GitHub rejected token ${GITHUB_TOKEN}`, { code: "GITHUB_REJECTED" });
      });
      const logger = captureLogger();
      const factory = build(world, middleware, logger);
      const outcome = await factory.tools
        .invoke({ name: "lookup", arguments: { id: "a" } })
        .catch((error: unknown) => ToolResult.unhandledFailure(error));
      const text = middleware ? formatToolOutcome(outcome as never) : JSON.stringify(outcome);
      if (middleware) expect(text).toContain("GitHub rejected token [REDACTED:api_key]");
      expect(logger.lines.length).toBeGreaterThan(0);
      expect(text).not.toContain(GITHUB_TOKEN);
      expect(logger.lines.join("\n")).not.toContain(GITHUB_TOKEN);
    });
  }
});
