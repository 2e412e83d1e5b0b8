// `needlework/injection-policy` mirrors build diagnostic NW010: each set of tools below is declared twice,
// once as source for ESLint and once as a live class registered with `buildAgentFactory()`, with and
// without `usingInjectionPolicy()`, and the two must agree on whether the agent combines untrusted reads,
// sensitive reads and external effects with no policy.
import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import * as tsParser from "@typescript-eslint/parser";
import { Linter } from "eslint";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import needlework from "../src/index.js";

/** One tool's declarations, as @AgentFunction options (omitted keys are undeclared). */
interface Declared {
  readonly reads?: "trusted" | "untrusted";
  readonly effects?: "none" | "internal" | "external";
  readonly sensitive?: boolean;
  readonly readOnly?: boolean;
}

const untrusted: Declared = { reads: "untrusted", effects: "none" };
const sensitive: Declared = { sensitive: true, effects: "none" };
const pays: Declared = { effects: "external" };

const TOOL_SETS: readonly (readonly Declared[])[] = [
  [untrusted, sensitive, pays],
  [untrusted, sensitive, {}], // undeclared effects count as external
  [untrusted, sensitive, { effects: "internal" }],
  [untrusted, sensitive, { readOnly: true }],
  [untrusted, pays],
  [sensitive, pays],
  [{ reads: "untrusted", sensitive: true, effects: "external" }], // one tool holding all three
  [{ reads: "trusted", sensitive: true, effects: "external" }, untrusted],
  [untrusted, { sensitive: true }], // the sensitive tool's own undeclared effects are external
  [{ reads: "untrusted" }, sensitive], // so are the untrusted reader's
];

const optionsText = (d: Declared): string =>
  Object.entries(d)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}, `)
    .join("");

const linter = new Linter({ configType: "flat" });
const config: Linter.Config[] = [
  {
    files: ["**/*.ts"],
    languageOptions: { parser: tsParser as Linter.Parser },
    plugins: { needlework: needlework as unknown as NonNullable<Linter.Config["plugins"]>[string] },
    rules: { "needlework/injection-policy": "warn" },
  },
];

/** Whether the rule reports the tools, written as source, with or without a policy. */
function lintReports(tools: readonly Declared[], policy: boolean): boolean {
  const methods = tools
    .map(
      (d, i) => `  @AgentFunction({ ${optionsText(d)}description: "Tool ${i}.", input: z.object({}) })
  tool${i}() { return ${i}; }`,
    )
    .join("\n");
  const source = `import "reflect-metadata";
import { container } from "tsyringe";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import { z } from "zod";
@AgentFunctionGroup()
export class Tools {
${methods}
}
export const factory = usingAgentFramework(container)
  .addAgentFunctions(Tools)
  .usingResilience()
  .usingToolResultMiddleware()${policy ? `\n  .usingInjectionPolicy({ afterUntrusted: "arguments" })` : ""}
  .buildAgentFactory();
`;
  const messages = linter.verify(source, config, "tools.ts");
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(fatal.message);
  return messages.some((m) => m.ruleId === "needlework/injection-policy");
}

/** Whether `buildAgentFactory()` reports NW010 for the same tools on a live class. */
function buildReports(tools: readonly Declared[], policy: boolean): boolean {
  class Tools {}
  tools.forEach((d, i) => {
    const descriptor = { value: () => i, writable: true, enumerable: false, configurable: true };
    Object.defineProperty(Tools.prototype, `tool${i}`, descriptor);
    (
      AgentFunction({ ...d, description: `Tool ${i}.`, input: z.object({}) }) as (
        t: object,
        k: string,
        d: PropertyDescriptor,
      ) => void
    )(Tools.prototype, `tool${i}`, descriptor);
  });
  (AgentFunctionGroup() as (target: typeof Tools) => void)(Tools);
  let builder = usingAgentFramework(container.createChildContainer())
    .addAgentFunctions(Tools)
    .usingResilience()
    .usingToolResultMiddleware();
  if (policy) builder = builder.usingInjectionPolicy({ afterUntrusted: "arguments" });
  const factory = builder.buildAgentFactory({ printDiagnostics: false });
  return factory.diagnostics.some((d) => d.id === "NW010");
}

describe("needlework/injection-policy agrees with buildAgentFactory()'s NW010", () => {
  it.each(TOOL_SETS)("%o", (...tools) => {
    for (const policy of [false, true]) {
      expect(lintReports(tools, policy), `policy ${policy}`).toBe(buildReports(tools, policy));
    }
  });

  it("reports the combination without a policy and nothing with one (the parity above is not vacuous)", () => {
    expect(buildReports(TOOL_SETS[0]!, false)).toBe(true);
    expect(buildReports(TOOL_SETS[0]!, true)).toBe(false);
    expect(buildReports(TOOL_SETS[4]!, false)).toBe(false);
  });
});
