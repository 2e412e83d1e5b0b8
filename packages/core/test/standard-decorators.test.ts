import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INJECT_AND_AGENT, MISUSE, NEITHER, QUICK_START, TYPES } from "./standard-decorators.fixtures.js";

// A user's app compiled with standard (TC39) decorators, as tsx, esbuild, Vite and Bun do by
// default: no `experimentalDecorators`, no `design:paramtypes`. It runs under tsx against the BUILT
// packages (run `pnpm build` first; the root `pnpm test` does).

const packages = fileURLToPath(new URL("../..", import.meta.url));
const tsx = join(packages, "core/node_modules/.bin/tsx");
let app = "";

function built(): void {
  for (const file of ["core/dist/index.js", "core/dist/internal.js", "workflows/dist/index.js"]) {
    if (!existsSync(join(packages, file)))
      throw new Error(
        `packages/${file} is missing: run \`pnpm build\` at the repository root first (\`pnpm test\` does).`,
      );
  }
}

/** A temp app whose node_modules link the built packages and the peers they share. */
function createApp(): string {
  const dir = mkdtempSync(join(tmpdir(), "needlework-standard-decorators-"));
  mkdirSync(join(dir, "node_modules/@needlework"), { recursive: true });
  const link = (name: string, target: string) =>
    symlinkSync(realpathSync(target), join(dir, "node_modules", name), "dir");
  link("@needlework/core", join(packages, "core"));
  link("@needlework/workflows", join(packages, "workflows"));
  for (const peer of ["zod", "tsyringe", "reflect-metadata"])
    link(peer, join(packages, "workflows/node_modules", peer));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "standard-decorators-app", private: true, type: "module" }),
  );
  // What `tsc --init` and Vite templates give: standard decorators, no metadata.
  const compilerOptions = {
    target: "es2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    skipLibCheck: true,
    experimentalDecorators: false,
    emitDecoratorMetadata: false,
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions }));
  return dir;
}

/** Runs a program under tsx in the app and returns its stdout lines. */
function runWithTsx(name: string, source: string): string[] {
  writeFileSync(join(app, name), source);
  const out = execFileSync(tsx, ["--tsconfig", join(app, "tsconfig.json"), join(app, name)], {
    cwd: app,
    encoding: "utf8",
    timeout: 60_000,
  });
  return out.trim().split("\n");
}

beforeAll(() => {
  built();
  app = createApp();
});
afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

describe("standard decorators (tsx), against the built packages", () => {
  it("the README quick start with `inject` resolves, calls and runs an agent end to end", () => {
    const lines = runWithTsx("quick-start.ts", QUICK_START);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      status: "error",
      error_code: "ORDER_NOT_FOUND",
      retriable: false,
      message: "Order 'ORD-2' not found",
    });
    expect(lines[1]).toBe('"shipped"');
    expect(JSON.parse(lines[2]!)).toMatchObject({ readOnly: true, requiresApproval: false });
    expect(lines[3]).toBe("completed Order ORD-1 has shipped.");
  }, 90_000);

  it("`inject` covers inherited tools, token order, transient groups and @Agent", () => {
    expect(runWithTsx("inject-and-agent.ts", INJECT_AND_AGENT)).toEqual([
      '["today","greet"]',
      '"Hello, Ada (2026-01-01)"',
      "completed",
    ]);
  }, 90_000);

  it("a group with constructor parameters and neither metadata nor `inject` is refused at registration, naming the class and both fixes", () => {
    const lines = runWithTsx("neither.ts", NEITHER);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const error = JSON.parse(line) as { name: string; code: string; message: string };
      expect(error.name).toBe("ToolRegistrationError");
      expect(error.message).toContain("Class OrderTools takes 1 constructor parameter(s)");
      expect(error.message).toContain("@AgentFunctionGroup({ inject: [...] }) on");
      expect(error.message).toContain("one tsyringe token per constructor parameter");
      expect(error.message).toContain("`emitDecoratorMetadata`");
    }
  }, 90_000);

  it("refuses static and private tool methods and a short `inject` list at import, with clear errors", () => {
    expect(runWithTsx("misuse.ts", MISUSE)).toEqual([
      "@AgentFunction on static method 's': static methods cannot be tools; make it an instance method.",
      "@AgentFunction on method '#p': private (#) methods cannot be tools; make it a public method.",
      "@AgentFunctionGroup on C: the constructor takes 2 parameter(s) but `inject` names 1. Name one token per parameter, in order.",
    ]);
  }, 90_000);

  it("type-checks the method against its zod schema with experimentalDecorators off", () => {
    const file = join(app, "types.ts");
    writeFileSync(file, TYPES);
    const { options, errors } = ts.convertCompilerOptionsFromJson(
      {
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        types: [],
      },
      app,
    );
    expect(errors).toEqual([]);
    const program = ts.createProgram([file], { ...options, experimentalDecorators: false });
    const messages = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file?.fileName.endsWith("types.ts") ? "types.ts" : d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      );
    // Every @ts-expect-error is needed (an unused one is an error), and nothing else fails.
    expect(messages).toEqual([]);
  }, 90_000);
});
