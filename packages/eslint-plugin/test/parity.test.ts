// The rules that mirror a build diagnostic must agree with it: each input schema below is declared
// twice, once as source for ESLint and once as a live class for `buildAgentFactory()`, and the
// fields the rules report are compared with the diagnostics the factory reports (NW003, NW004,
// NW009). A schema the two judge differently is a rule that lies in the editor.
import "reflect-metadata";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";
import * as tsParser from "@typescript-eslint/parser";
import { Linter } from "eslint";
import { container } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import needlework from "../src/index.js";

/** Input schemas users write, as source: every one is an object of fields. */
const SCHEMAS: readonly string[] = [
  `z.object({ orderId: z.string().describe("Order id.") })`,
  `z.object({ orderId: z.string() })`,
  `z.object({ orderId: z.string().describe("") })`,
  `z.object({ note: z.string().optional().describe("A note.") })`,
  `z.object({ note: z.string().nullable().describe("A note, or null.") })`,
  `z.object({ note: z.string().nullish().describe("A note.") })`,
  `z.object({ page: z.number().int().default(1).describe("Page.") })`,
  `z.object({ when: z.date().describe("When.") })`,
  `z.object({ when: z.iso.datetime().describe("When.") })`,
  `z.object({ day: z.iso.date().describe("Day.") })`,
  `z.object({ site: z.url().describe("Site.") })`,
  `z.object({ email: z.email().describe("Email.") })`,
  `z.object({ id: z.uuid().describe("Id.") })`,
  `z.object({ name: z.string().min(1).describe("Name.") })`,
  `z.object({ name: z.string().max(80).describe("Name.") })`,
  `z.object({ amount: z.number().min(0).max(100).describe("Amount.") })`,
  `z.object({ count: z.int().positive().describe("Count.") })`,
  `z.object({ ids: z.array(z.string()).min(1).max(10).describe("Ids.") })`,
  `z.object({ pair: z.tuple([z.string(), z.number()]).describe("A pair.") })`,
  `z.object({ tags: z.record(z.string(), z.string()).describe("Tags.") })`,
  `z.object({ kind: z.enum(["a", "b"]).describe("Kind.") })`,
  `z.object({ kind: z.literal("a").describe("Kind.") })`,
  `z.object({ value: z.union([z.string(), z.number()]).describe("Value.") })`,
  `z.object({ anything: z.any().describe("Anything.") })`,
  `z.object({ anything: z.unknown().describe("Anything.") })`,
  `z.object({ flag: z.boolean().describe("Flag.") })`,
  `z.object({ payload: z.string().describe("The payload as a JSON string.") })`,
  `z.object({ payload: z.string().describe("Raw JSON of the order.") })`,
  `z.object({ payload: z.object({ id: z.string().describe("Id.") }).describe("The order, as JSON.") })`,
  `z.object({ address: z.object({ city: z.string().describe("City."), zip: z.string() }).describe("Address.") })`,
  `z.object({ address: z.object({ city: z.string().optional().describe("City.") }).describe("Address.") })`,
  `z.object({ address: z.looseObject({ city: z.string().describe("City.") }).describe("Address.") })`,
  `z.object({ address: z.strictObject({ city: z.string().describe("City.") }).describe("Address.") })`,
  `z.object({ lines: z.array(z.object({ sku: z.string().describe("Sku.") })).describe("Lines.") })`,
  `z.object({ lines: z.array(z.object({ sku: z.string().optional().describe("Sku.") })).describe("Lines.") })`,
  `z.object({ lines: z.array(z.object({ sku: z.string() })).describe("Lines.") })`,
  `z.object({ both: z.object({ a: z.string().describe("A.") }).and(z.object({ b: z.string().describe("B.") })).describe("Both.") })`,
  `z.object({ lines: z.object({ sku: z.string() }).array().describe("Lines.") })`,
  `z.object({ lines: z.object({ sku: z.string().optional().describe("Sku.") }).array().describe("Lines.") })`,
  `z.object({ both: z.intersection(z.object({ a: z.string().describe("A.") }), z.object({ b: z.string().describe("B.") })).describe("Both.") })`,
  `z.object({ note: z.optional(z.string().describe("A note.")) })`,
  `z.object({ note: z.string().readonly().describe("A note.") })`,
  `z.object({ code: z.string().regex(/^[A-Z]+$/).describe("Code.") })`,
  `z.object({ token: z.jwt().describe("A token.") })`,
];

/** Tool names: the method's, or `@AgentFunction({ name })`. */
const NAMES: readonly string[] = [
  "getOrder",
  "get_order-v2",
  "orders.get",
  "get order",
  "x".repeat(64),
  "x".repeat(65),
  "überprüfen",
];

const NW_OF_RULE: Readonly<Record<string, string>> = {
  "needlework/tool-name": "NW002",
  "needlework/tool-description": "NW003",
  "needlework/no-json-string-parameter": "NW004",
  "needlework/strict-schema": "NW009",
};

const linter = new Linter({ configType: "flat" });
const config: Linter.Config[] = [
  {
    files: ["**/*.ts"],
    languageOptions: { parser: tsParser as Linter.Parser },
    plugins: { needlework: needlework as unknown as NonNullable<Linter.Config["plugins"]>[string] },
    rules: Object.fromEntries(Object.keys(NW_OF_RULE).map((rule) => [rule, "warn"])),
  },
];

/** The NW codes the rules report for a schema written as source. */
function lintCodes(schema: string, name = "tool"): string[] {
  const source = `import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { z } from "zod";
@AgentFunctionGroup()
export class Tools {
  @AgentFunction({ description: "A tool.", name: ${JSON.stringify(name)}, input: ${schema} })
  tool(input: unknown) { return input; }
}
`;
  const messages = linter.verify(source, config, "tools.ts");
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(`${schema}: ${fatal.message}`);
  return [...new Set(messages.map((m) => NW_OF_RULE[m.ruleId ?? ""] ?? `unexpected ${m.ruleId}`))].sort();
}

/** The NW codes `buildAgentFactory()` reports for the same schema, declared on a live class. */
function buildCodes(schema: string, name = "tool"): string[] {
  const input = new Function("z", `return ${schema};`)(z) as z.ZodObject;
  class Tools {
    tool(value: unknown) {
      return value;
    }
  }
  const descriptor = Object.getOwnPropertyDescriptor(Tools.prototype, "tool")!;
  (AgentFunction({ description: "A tool.", name, input }) as (t: object, k: string, d: PropertyDescriptor) => void)(
    Tools.prototype,
    "tool",
    descriptor,
  );
  (AgentFunctionGroup() as (target: typeof Tools) => void)(Tools);
  const factory = usingAgentFramework(container.createChildContainer()).addAgentFunctions(Tools).buildAgentFactory();
  const wanted = new Set(Object.values(NW_OF_RULE));
  return [...new Set(factory.diagnostics.map((d) => d.id).filter((id) => wanted.has(id)))].sort();
}

describe("the rules that mirror build diagnostics agree with buildAgentFactory()", () => {
  it.each(SCHEMAS)("%s", (schema) => {
    expect(lintCodes(schema)).toEqual(buildCodes(schema));
  });

  it.each(NAMES)("tool name %s", (name) => {
    const schema = `z.object({ id: z.string().describe("Id.") })`;
    expect(lintCodes(schema, name)).toEqual(buildCodes(schema, name));
  });
});

// The rules whose defect needlework refuses must agree with the refusal: a blank tool name throws
// when `@AgentFunction` decorates, two tools with one name throw at `buildAgentFactory()`.
const refusalConfig: Linter.Config[] = [
  {
    files: ["**/*.ts"],
    languageOptions: { parser: tsParser as Linter.Parser },
    plugins: { needlework: needlework as unknown as NonNullable<Linter.Config["plugins"]>[string] },
    rules: { "needlework/no-blank-tool-name": "error", "needlework/unique-tool-name": "error" },
  },
];

/** Two tools, methods `first` and `second`, each with an optional `name`. */
interface TwoTools {
  readonly first: string;
  readonly second: string;
  readonly firstName?: string;
  readonly secondName?: string;
}

const TOOL_PAIRS: readonly TwoTools[] = [
  { first: "getOrder", second: "findOrder" },
  { first: "getOrder", second: "findOrder", secondName: "getOrder" },
  { first: "getOrder", second: "findOrder", firstName: "find", secondName: "find" },
  { first: "getOrder", second: "findOrder", firstName: "findOrder" },
  { first: "getOrder", second: "findOrder", firstName: "a", secondName: "b" },
  { first: "getOrder", second: "findOrder", firstName: "getOrder", secondName: "getorder" },
  { first: "getOrder", second: "findOrder", secondName: "" },
  { first: "getOrder", second: "findOrder", firstName: "  " },
  { first: "getOrder", second: "findOrder", firstName: "\t" },
];

const nameOption = (name: string | undefined) => (name === undefined ? "" : `name: ${JSON.stringify(name)}, `);

/** The rules (of the two) that report on the pair, written as source. */
function lintRefusals(pair: TwoTools): string[] {
  const source = `import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { z } from "zod";
@AgentFunctionGroup()
export class Tools {
  @AgentFunction({ ${nameOption(pair.firstName)}description: "A.", input: z.object({}) })
  ${pair.first}() { return 1; }
  @AgentFunction({ ${nameOption(pair.secondName)}description: "B.", input: z.object({}) })
  ${pair.second}() { return 2; }
}
`;
  const messages = linter.verify(source, refusalConfig, "tools.ts");
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(fatal.message);
  return [...new Set(messages.map((m) => m.ruleId ?? ""))].sort();
}

/** The same rules' ids for what needlework refuses when the same class is declared and registered live. */
function refusals(pair: TwoTools): string[] {
  class Tools {}
  const decorate = (method: string, name: string | undefined): void => {
    const descriptor = { value: () => 1, writable: true, enumerable: false, configurable: true };
    Object.defineProperty(Tools.prototype, method, descriptor);
    const options = { description: "A.", input: z.object({}), ...(name === undefined ? {} : { name }) };
    (AgentFunction(options) as (t: object, k: string, d: PropertyDescriptor) => void)(
      Tools.prototype,
      method,
      descriptor,
    );
  };
  try {
    decorate(pair.first, pair.firstName);
    decorate(pair.second, pair.secondName);
  } catch {
    return ["needlework/no-blank-tool-name"];
  }
  try {
    // Two tools of one class with one name are refused by the group decorator already.
    (AgentFunctionGroup() as (target: typeof Tools) => void)(Tools);
    usingAgentFramework(container.createChildContainer()).addAgentFunctions(Tools).buildAgentFactory();
  } catch {
    return ["needlework/unique-tool-name"];
  }
  return [];
}

describe("the rules whose defect needlework refuses report exactly what it refuses", () => {
  it.each(TOOL_PAIRS)("%o", (pair) => {
    expect(lintRefusals(pair)).toEqual(refusals(pair));
  });
});
