import { container as rootContainer } from "tsyringe";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OrderTools } from "../test/fixtures.js";
import {
  createToolInvoker,
  defineTool,
  isDefinedTool,
  toolDefinitionOf,
  ToolDefinitionError,
  ToolRegistrationError,
} from "./index.js";

const invoker = (...tools: ReturnType<typeof defineTool>[]) =>
  createToolInvoker(rootContainer.createChildContainer(), { functions: [], tools });

const orderSchema = {
  type: "object",
  properties: {
    id: { type: "integer", description: "The order id." },
    note: { type: "string", minLength: 2, description: "A note." },
    when: { type: "string", format: "date-time", description: "When." },
  },
  required: ["id"],
  additionalProperties: false,
} as const;

describe("defineTool with a zod input", () => {
  const lookup = defineTool({
    name: "lookup",
    description: "Looks up an order.",
    input: z.object({ orderId: z.string().describe("Order id.") }),
    readOnly: true,
    execute: ({ orderId }, ctx) => ({ orderId, attempt: ctx.attempt, run: ctx.runId }),
  });

  it("runs through the invoker with validated arguments and the call's context", async () => {
    expect(isDefinedTool(lookup)).toBe(true);
    const outcome = await invoker(lookup).invoke({ name: "lookup", arguments: '{"orderId":"A-1"}' }, { runId: "r1" });
    expect(outcome).toMatchObject({ status: "ok", data: { orderId: "A-1", attempt: 1, run: "r1" } });
    expect(outcome.metadata).toMatchObject({ tool: "lookup", attempts: 1 });
  });

  it("refuses invalid arguments before the body runs", async () => {
    const outcome = await invoker(lookup).invoke({ name: "lookup", arguments: { orderId: 5, extra: 1 } });
    expect(outcome.errorCode).toBe("INVALID_ARGUMENTS");
    expect(outcome.message).toContain("orderId");
    expect(outcome.message).toContain("unknown field 'extra'");
  });

  it("publishes a definition like a decorated method's, flags included", () => {
    const definition = toolDefinitionOf(lookup.descriptor);
    expect(definition.parameters).toMatchObject({ type: "object", required: ["orderId"], additionalProperties: false });
    expect(definition.flags).toMatchObject({ readOnly: true, effects: "none", requiresApproval: false });
  });
});

describe("defineTool with a JSON Schema input (ajv)", () => {
  const seen: unknown[] = [];
  const get = defineTool({
    name: "get_order",
    description: "Gets an order.",
    inputSchema: orderSchema,
    approval: true,
    server: "shop",
    execute: (args) => (seen.push(args), { ok: true }),
  });

  it("publishes the schema as given and takes `approval` as requiresApproval", () => {
    const definition = toolDefinitionOf(get.descriptor);
    expect(definition.parameters).toEqual(orderSchema);
    expect(definition.parameters).not.toBe(orderSchema);
    expect(definition.flags.requiresApproval).toBe(true);
  });

  it("validates every keyword with ajv: types, required, formats, lengths and unknown fields", async () => {
    const tools = invoker(get);
    const problems = async (args: unknown) => (await tools.invoke({ name: "get_order", arguments: args })).message;
    expect(await problems({ id: "x" })).toContain("id: must be integer");
    expect(await problems({})).toContain("id: required");
    expect(await problems({ id: 1, when: "yesterday" })).toContain('when: must match format "date-time"');
    expect(await problems({ id: 1, note: "a" })).toContain("note: must NOT have fewer than 2 characters");
    expect(await problems({ id: 1, extra: true })).toContain("(root): unknown field 'extra' (remove it)");
    expect(seen).toEqual([]);
    const ok = await tools.invoke({ name: "get_order", arguments: { id: 7, when: "2026-01-02T03:04:05Z" } });
    expect(ok).toMatchObject({ status: "ok", metadata: { server: "shop" } });
    expect(seen).toEqual([{ id: 7, when: "2026-01-02T03:04:05Z" }]);
  });

  it("follows conditionals zod's JSON Schema import refuses, and older drafts by their $schema", async () => {
    const conditional = defineTool({
      name: "ship",
      description: "Ships.",
      inputSchema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { express: { type: "boolean" }, phone: { type: "string" } },
        if: { properties: { express: { const: true } }, required: ["express"] },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own keyword, never awaited
        then: { required: ["phone"] },
      },
      execute: () => "shipped",
    });
    const tools = invoker(conditional);
    expect((await tools.invoke({ name: "ship", arguments: { express: true } })).message).toContain("phone: required");
    expect((await tools.invoke({ name: "ship", arguments: { express: false } })).status).toBe("ok");
  });

  it("checks the data against `outputSchema`: a mismatch is OUTPUT_INVALID, never data", async () => {
    const sum = defineTool({
      name: "sum",
      description: "Adds.",
      inputSchema: { type: "object", properties: { bad: { type: "boolean" } } },
      outputSchema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
      execute: ({ bad }) => (bad === true ? { total: "many" } : { total: 3 }),
    });
    const tools = invoker(sum);
    expect((await tools.invoke({ name: "sum", arguments: {} })).data).toEqual({ total: 3 });
    const invalid = await tools.invoke({ name: "sum", arguments: { bad: true } });
    expect(invalid).toMatchObject({ status: "error", errorCode: "OUTPUT_INVALID" });
    expect(JSON.stringify(invalid.data ?? null)).not.toContain("many");
    expect(toolDefinitionOf(sum.descriptor).outputSchema).toMatchObject({ required: ["total"] });
  });
});

describe("defineTool refuses options that cannot work, naming the tool", () => {
  const base = { name: "t", description: "A tool.", input: z.object({}), execute: () => 1 };
  const refuse = (options: object, text: string) =>
    expect(() => defineTool(options as typeof base)).toThrow(new ToolDefinitionError(`defineTool 't': ${text}`));

  it("names unknown options with the closest known one", () =>
    refuse({ ...base, readonly: true }, "unknown option 'readonly'. Did you mean 'readOnly'?"));
  it("wants exactly one input", () => {
    refuse(
      { ...base, inputSchema: { type: "object" } },
      "give exactly one of `input` (a zod object schema) and `inputSchema` (a JSON Schema).",
    );
    const { input: _, ...noInput } = base;
    refuse(noInput, "give exactly one of `input` (a zod object schema) and `inputSchema` (a JSON Schema).");
  });
  it("wants a body", () => refuse({ ...base, execute: "run" }, "`execute` must be a function (args, ctx) => result."));
  it("refuses a schema ajv cannot compile", () => {
    const { input: _, ...rest } = base;
    expect(() =>
      defineTool({ ...rest, inputSchema: { type: "object", properties: { a: { type: "nonsense" } } } }),
    ).toThrow(/defineTool 't': the JSON Schema is invalid/);
  });
  it("refuses conflicting approval options and the checks @AgentFunction makes", () => {
    refuse(
      { ...base, approval: true, requiresApproval: false },
      "`approval` and `requiresApproval` are one option: give one of them.",
    );
    refuse(
      { ...base, readOnly: true, effects: "external" },
      '`readOnly: true` says the tool changes nothing, but `effects` is "external": drop one of them.',
    );
  });
  it("reads own properties only: a polluted prototype sets no option", () => {
    const options = Object.create({ approval: true, readOnly: true }) as typeof base;
    Object.assign(options, base);
    const tool = defineTool(options);
    expect(tool.descriptor.options.requiresApproval).toBeUndefined();
    expect(tool.descriptor.options.readOnly).toBeUndefined();
  });
});

describe("defined tools beside decorated classes", () => {
  it("run side by side, and two tools with one name are refused naming both", async () => {
    const container = rootContainer.createChildContainer();
    const ping = defineTool({ name: "ping", description: "Pong.", input: z.object({}), execute: () => "pong" });
    const tools = createToolInvoker(container, { functions: [OrderTools], tools: [ping] });
    expect(tools.tools.map((t) => t.name).at(-1)).toBe("ping");
    expect(tools.tools.map((t) => t.name)).toContain("getOrderStatus");
    expect((await tools.invoke({ name: "ping" })).data).toBe("pong");
    const clash = defineTool({ name: "getOrderStatus", description: "Clash.", input: z.object({}), execute: () => 1 });
    expect(() => createToolInvoker(container, { functions: [OrderTools], tools: [clash] })).toThrow(
      new ToolRegistrationError(
        "Two tools are named 'getOrderStatus': OrderTools.getOrderStatus and defineTool(). Rename one.",
        {
          toolName: "getOrderStatus",
        },
      ),
    );
  });
});
