import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type * as Tsyringe from "tsyringe";
import type * as Zod from "zod";
import * as source from "../src/index.js";

// These tests exercise the BUILT package (what users install), not the sources the other tests
// import. The root `pnpm test` builds first; run `pnpm run build` before running this file alone.

type Core = typeof source;

const packageRoot = fileURLToPath(new URL("..", import.meta.url));
const esmPath = `${packageRoot}dist/index.js`;
const cjsPath = `${packageRoot}dist/index.cjs`;
/** `require` as seen from packages/core, where users' `require("@needlework/core")` would land. */
const requireFromCore = createRequire(`${packageRoot}package.json`);

function built(path: string): string {
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: these tests run against the built package. Run \`pnpm run build\` at the repository root first (\`pnpm test\` does).`,
    );
  }
  return path;
}

/**
 * Declares a tool group with the given build's decorators, resolves it through that build's
 * invoker, and checks what a user relies on. The class is compiled by swc like users' code, so
 * `design:paramtypes` is emitted and the constructor dependency needs no `@inject` token.
 */
async function exerciseBuild(core: Core, z: typeof Zod.z, tsyringe: typeof Tsyringe): Promise<void> {
  class PriceList {
    priceOf(sku: string): number | undefined {
      return sku === "SKU-1" ? 1250 : undefined;
    }
  }

  @core.AgentFunctionGroup({ groups: ["pricing"] })
  class PricingTools {
    constructor(private readonly prices: PriceList) {}

    @core.AgentFunction({
      description: "Prices a SKU in cents.",
      input: z.object({ sku: z.string().describe("Stock keeping unit.") }),
      idempotent: true,
    })
    priceSku({ sku }: { sku: string }) {
      const cents = this.prices.priceOf(sku);
      if (cents === undefined)
        return core.ToolResult.fail(`SKU '${sku}' not found`, { code: "SKU_NOT_FOUND", suggestion: "Check the SKU." });
      return core.ToolResult.ok({ sku, cents });
    }
  }

  expect(Reflect.getMetadata("design:paramtypes", PricingTools)).toEqual([PriceList]);
  expect(core.agentFunctionRegistry.get(PricingTools)?.options).toEqual({ groups: ["pricing"] });

  const container = tsyringe.container.createChildContainer();
  const invoker = core.createToolInvoker(container, { functions: [PricingTools] });
  expect(container.resolve(PricingTools)).toBeInstanceOf(PricingTools);
  expect(invoker.definitions).toEqual([
    {
      name: "priceSku",
      description: "Prices a SKU in cents.",
      parameters: {
        type: "object",
        properties: { sku: { type: "string", description: "Stock keeping unit." } },
        required: ["sku"],
        additionalProperties: false,
      },
      flags: {
        idempotent: true,
        readOnly: false,
        reads: "trusted",
        effects: "external",
        sensitive: false,
        requiresApproval: false,
        dependsOn: [],
      },
      tags: [],
    },
  ]);

  const ok = await invoker.invoke({ name: "priceSku", arguments: '{"sku":"SKU-1"}', callId: "c1" });
  expect(ok).toMatchObject({
    status: "ok",
    data: { sku: "SKU-1", cents: 1250 },
    metadata: { tool: "priceSku", callId: "c1", attempts: 1 },
  });
  const missing = await invoker.invoke({ name: "priceSku", arguments: { sku: "SKU-9" } });
  expect(core.formatToolOutcome(missing, { omitMetadata: true })).toBe(
    '{"status":"error","error_code":"SKU_NOT_FOUND","retriable":false,"message":"SKU \'SKU-9\' not found","suggestion":"Check the SKU."}',
  );
  expect((await invoker.invoke({ name: "priceSku", arguments: { sku: 1 } })).errorCode).toBe("INVALID_ARGUMENTS");
  expect((await invoker.invoke({ name: "priceSkus", arguments: {} })).errorCode).toBe("UNKNOWN_TOOL");

  // Values made by the build are recognized by the sources (and so by another installed copy).
  expect(source.isToolResult(core.ToolResult.ok(1))).toBe(true);
  expect(source.isToolOutcome(ok)).toBe(true);
  expect(source.NeedleworkError.isInstance(new core.ToolError("x"))).toBe(true);
  core.agentFunctionRegistry.delete(PricingTools);
}

describe("the built package", () => {
  it("ESM: dist/index.js resolves a decorated group with an injected dependency", async () => {
    const core = (await import(/* @vite-ignore */ pathToFileURL(built(esmPath)).href)) as Core;
    expect(core.createToolInvoker).not.toBe(source.createToolInvoker);
    await exerciseBuild(core, (await import("zod")).z, await import("tsyringe"));
  });

  it("CommonJS: dist/index.cjs resolves a decorated group with an injected dependency", async () => {
    const core = requireFromCore(built(cjsPath)) as Core;
    expect(core.createToolInvoker).not.toBe(source.createToolInvoker);
    await exerciseBuild(core, (requireFromCore("zod") as typeof Zod).z, requireFromCore("tsyringe") as typeof Tsyringe);
  });

  it("ESM and CommonJS builds share one registry", () => {
    const cjs = requireFromCore(built(cjsPath)) as Core;
    expect(cjs.agentFunctionRegistry).toBe(source.agentFunctionRegistry);
  });

  it("package.json exports send require() to dist/index.cjs", () => {
    expect(requireFromCore.resolve("@needlework/core")).toBe(built(cjsPath));
    expect(createRequire(import.meta.url).resolve("@needlework/core")).toBe(cjsPath);
  });

  it("plain Node resolves the package by name to the right build, with types first in each condition", () => {
    built(esmPath);
    const pkg = requireFromCore("./package.json") as { exports: { ".": Record<string, unknown> } };
    for (const condition of ["import", "require"])
      expect(Object.keys(pkg.exports["."][condition] as object)[0]).toBe("types");
    for (const file of ["dist/index.d.ts", "dist/index.d.cts"])
      expect(existsSync(`${packageRoot}${file}`), file).toBe(true);

    // Outside vitest: Node's own resolution and module loaders, no swc, no aliases.
    const esm = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        NODE_CHECK.replace("LOAD", 'await import("@needlework/core")').replace(
          "WHERE",
          'import.meta.resolve("@needlework/core")',
        ),
      ],
      {
        cwd: packageRoot,
        encoding: "utf8",
      },
    );
    expect(JSON.parse(esm)).toEqual({ where: pathToFileURL(esmPath).href, status: "ok", data: 42 });
    const cjs = execFileSync(
      process.execPath,
      [
        "-e",
        `(async () => { ${NODE_CHECK.replace("LOAD", 'require("@needlework/core")').replace("WHERE", 'require.resolve("@needlework/core")')} })()`,
      ],
      {
        cwd: packageRoot,
        encoding: "utf8",
      },
    );
    expect(JSON.parse(cjs)).toEqual({ where: cjsPath, status: "ok", data: 42 });
  }, 20_000);
});

/**
 * A plain-JavaScript user: decorators applied by hand and `design:paramtypes` written the way a
 * compiler emits it. Prints where the package resolved and the outcome of one call.
 */
const NODE_CHECK = `
const core = LOAD;
const { z } = await import("zod");
const { container } = await import("tsyringe");
class Answer { value() { return 42; } }
class AnswerTools {
  constructor(answer) { this.answer = answer; }
  ask() { return this.answer.value(); }
}
Reflect.defineMetadata("design:paramtypes", [Answer], AnswerTools);
core.AgentFunction({ description: "Answers.", input: z.object({}) })(AnswerTools.prototype, "ask", Object.getOwnPropertyDescriptor(AnswerTools.prototype, "ask"));
core.AgentFunctionGroup()(AnswerTools);
const outcome = await core.createToolInvoker(container.createChildContainer(), { functions: [AnswerTools] }).invoke({ name: "ask" });
process.stdout.write(JSON.stringify({ where: WHERE, status: outcome.status, data: outcome.data }));
`;
