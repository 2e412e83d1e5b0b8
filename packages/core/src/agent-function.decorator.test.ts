import { container as rootContainer } from "tsyringe";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentFunction,
  AgentFunctionGroup,
  agentFunctionRegistry,
  NeedleworkError,
  ToolDefinitionError,
  type AgentFunctionOptions,
  type ToolClass,
  type ToolMiddleware,
} from "./index.js";

const declared: ToolClass[] = [];
afterEach(() => {
  for (const c of declared.splice(0)) agentFunctionRegistry.delete(c);
});

/** The ToolDefinitionError `fn` throws, or a failed expectation. */
function definitionError(fn: () => unknown): ToolDefinitionError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(NeedleworkError.isInstance(error)).toBe(true);
    expect((error as ToolDefinitionError).code).toBe("TOOL_DEFINITION_ERROR");
    return error as ToolDefinitionError;
  }
  throw new Error("expected a ToolDefinitionError");
}

/** Applies `@AgentFunction(options)` to `BillingTools.refund` the way the compiler does, so options TypeScript would reject can be tried. */
function decorateRefund(options: unknown): void {
  class BillingTools {
    refund(): void {}
  }
  AgentFunction(options as AgentFunctionOptions)(
    BillingTools.prototype,
    "refund",
    Object.getOwnPropertyDescriptor(BillingTools.prototype, "refund")!,
  );
}

const input = z.object({ orderId: z.string() });

describe("@AgentFunction", () => {
  it("names the tool after the method unless `name` overrides it", () => {
    @AgentFunctionGroup()
    class OrderTools {
      @AgentFunction({ description: "Looks up an order.", input })
      getOrderStatus(): void {}

      @AgentFunction({ name: "cancel_order", description: "Cancels an order.", input })
      cancel(): void {}
    }
    declared.push(OrderTools);
    const functions = agentFunctionRegistry.get(OrderTools)!.functions;
    expect(functions.map((f) => [f.name, f.methodName])).toEqual([
      ["getOrderStatus", "getOrderStatus"],
      ["cancel_order", "cancel"],
    ]);
    expect(functions[0]!.target).toBe(OrderTools);
    expect(functions[0]!.input).toBe(input);
  });

  it("accepts every option and records it on the descriptor as given", () => {
    const middleware: ToolMiddleware = async (_call, next) => next();
    const output = z.object({ refundId: z.string() });
    const undo = (args: Record<string, unknown>, data: unknown) => ({
      refundId: (data as { refundId: string }).refundId,
      orderId: args.orderId,
    });
    const rules = [{ match: { status: 402 }, code: "QUOTA_EXCEEDED", message: "Quota used up." }];
    @AgentFunctionGroup()
    class BillingTools {
      @AgentFunction({
        name: "refund_order",
        description: "Refunds an order.",
        input,
        output,
        middleware: [middleware],
        idempotent: true,
        requiresApproval: true,
        compensate: { tool: "charge_order", arguments: undo },
        dependsOn: ["getOrderStatus"],
        timeoutMs: 2_500,
        maxResultTokens: 800,
        tags: ["billing", "write"],
        errors: rules,
      })
      refund(): void {}

      @AgentFunction({ description: "Charges an order.", input, compensate: "refund_order" })
      charge_order(): void {}
    }
    declared.push(BillingTools);
    const [refund, charge] = agentFunctionRegistry.get(BillingTools)!.functions;
    expect(refund!.options).toEqual({
      name: "refund_order",
      description: "Refunds an order.",
      input,
      output,
      middleware: [middleware],
      idempotent: true,
      requiresApproval: true,
      compensate: { tool: "charge_order", arguments: undo },
      dependsOn: ["getOrderStatus"],
      timeoutMs: 2_500,
      maxResultTokens: 800,
      tags: ["billing", "write"],
      errors: rules,
    });
    expect(refund!.description).toBe("Refunds an order.");
    expect(charge!.options.compensate).toBe("refund_order");
  });

  it("rejects a missing or blank description, naming the class and method", () => {
    expect(definitionError(() => decorateRefund({ input })).message).toBe(
      "@AgentFunction on BillingTools.refund: `description` must be a non-empty string: the model reads it to choose the tool.",
    );
    expect(definitionError(() => decorateRefund({ description: "   ", input })).message).toContain(
      "BillingTools.refund",
    );
  });

  it("rejects options that are not an object", () => {
    expect(definitionError(() => decorateRefund(undefined)).message).toMatch(
      /^@AgentFunction on BillingTools\.refund: options must be an object/,
    );
  });

  it.each([
    ["no input", undefined],
    ["a plain JSON Schema", { type: "object", properties: {} }],
    ["a zod string", z.string()],
    ["a zod array", z.array(z.object({ id: z.string() }))],
  ])("rejects an input that is not a zod object schema (%s)", (_label, badInput) => {
    expect(definitionError(() => decorateRefund({ description: "Refunds.", input: badInput })).message).toBe(
      "@AgentFunction on BillingTools.refund: `input` must be a zod object schema, e.g. `z.object({ orderId: z.string() })`.",
    );
  });

  it("rejects an unknown option and suggests the one meant", () => {
    expect(definitionError(() => decorateRefund({ description: "Refunds.", input, timeoutMS: 100 })).message).toBe(
      "@AgentFunction on BillingTools.refund: unknown option 'timeoutMS'. Did you mean 'timeoutMs'?",
    );
    expect(
      definitionError(() => decorateRefund({ description: "Refunds.", input, idempotant: true })).message,
    ).toContain("Did you mean 'idempotent'?");
    expect(definitionError(() => decorateRefund({ description: "Refunds.", input, colour: "red" })).message).toBe(
      "@AgentFunction on BillingTools.refund: unknown option 'colour'.",
    );
  });

  it.each([
    [{ timeoutMs: 0 }, "`timeoutMs` must be a positive, finite number of milliseconds."],
    [{ timeoutMs: -5 }, "`timeoutMs` must be a positive, finite number of milliseconds."],
    [{ timeoutMs: Infinity }, "`timeoutMs` must be a positive, finite number of milliseconds."],
    [{ timeoutMs: "100" }, "`timeoutMs` must be a positive, finite number of milliseconds."],
    [{ maxResultTokens: 0 }, "`maxResultTokens` must be a positive integer."],
    [{ maxResultTokens: 12.5 }, "`maxResultTokens` must be a positive integer."],
    [
      { failures: "on" },
      '`failures` must be "detect", "off", "jsend", "graphql" or a function (value) => failure | undefined.',
    ],
    [
      { failures: true },
      '`failures` must be "detect", "off", "jsend", "graphql" or a function (value) => failure | undefined.',
    ],
    [{ compensate: "" }, "`compensate` must be a tool name or `{ tool, arguments?: (input, data) => args }`."],
    [{ compensate: 42 }, "`compensate` must be a tool name or `{ tool, arguments?: (input, data) => args }`."],
    [
      { compensate: { tool: "" } },
      "`compensate` must be a tool name or `{ tool, arguments?: (input, data) => args }`.",
    ],
    [
      { compensate: { tool: "undo", arguments: { id: 1 } } },
      "`compensate` must be a tool name or `{ tool, arguments?: (input, data) => args }`.",
    ],
    [{ dependsOn: "getOrderStatus" }, "`dependsOn` must be an array of non-empty strings."],
    [{ dependsOn: [""] }, "`dependsOn` must be an array of non-empty strings."],
    [{ tags: [1] }, "`tags` must be an array of non-empty strings."],
    [{ idempotent: "yes" }, "`idempotent` must be a boolean."],
    [{ requiresApproval: 1 }, "`requiresApproval` must be a boolean."],
    [{ readOnly: "true" }, "`readOnly` must be a boolean."],
    [{ readonly: true }, "unknown option 'readonly'. Did you mean 'readOnly'?"],
    [{ name: "" }, "`name` must be a non-empty string."],
    [{ output: { type: "string" } }, "`output` must be a zod schema."],
    [{ middleware: [42] }, "`middleware` must be an array of middleware functions."],
    [{ errors: [{ code: "X" }] }, "`errors` must be an array of `{ match, code, message }` rules."],
  ])("rejects %o", (bad, problem) => {
    expect(definitionError(() => decorateRefund({ description: "Refunds.", input, ...bad })).message).toBe(
      `@AgentFunction on BillingTools.refund: ${problem}`,
    );
  });

  it("throws while the class is being defined, not later", () => {
    const define = () => {
      @AgentFunctionGroup()
      class CrmTools {
        // The cast stands in for a JavaScript caller: TypeScript already rejects this option.
        @AgentFunction({ description: "Syncs a contact.", input, timeoutMs: -1 } as AgentFunctionOptions<typeof input>)
        syncContact(): void {}
      }
      return CrmTools;
    };
    expect(definitionError(define).message).toMatch(/^@AgentFunction on CrmTools\.syncContact: `timeoutMs`/);
  });

  it("refuses static methods", () => {
    const define = () => {
      class CrmTools {
        @AgentFunction({ description: "Syncs a contact.", input })
        static syncContact(): void {}
      }
      return CrmTools;
    };
    expect(definitionError(define).message).toBe(
      "@AgentFunction on CrmTools.syncContact: static methods cannot be tools; make it an instance method.",
    );
  });

  it("refuses getters", () => {
    class CrmTools {
      get contact(): string {
        return "c";
      }
    }
    const descriptor = Object.getOwnPropertyDescriptor(CrmTools.prototype, "contact")!;
    expect(
      definitionError(() => AgentFunction({ description: "Reads.", input })(CrmTools.prototype, "contact", descriptor))
        .message,
    ).toContain("only methods can be tools");
  });

  it("refuses two methods of one class declaring the same tool name, naming both", () => {
    const define = () => {
      @AgentFunctionGroup()
      class OrderTools {
        @AgentFunction({ name: "lookup", description: "Looks up an order.", input })
        findOrder(): void {}

        @AgentFunction({ name: "lookup", description: "Looks up an order again.", input })
        getOrder(): void {}
      }
      return OrderTools;
    };
    expect(definitionError(define).message).toBe(
      "@AgentFunctionGroup on OrderTools: methods 'findOrder' and 'getOrder' both declare the tool 'lookup'. Give one a different `name`.",
    );
  });

  it("refuses a `name` that collides with another method's default name", () => {
    const define = () => {
      @AgentFunctionGroup()
      class OrderTools {
        @AgentFunction({ description: "Looks up an order.", input })
        lookup(): void {}

        @AgentFunction({ name: "lookup", description: "Looks up an order again.", input })
        find(): void {}
      }
      return OrderTools;
    };
    expect(definitionError(define).message).toContain("methods 'lookup' and 'find' both declare the tool 'lookup'");
  });
});

describe("@AgentFunctionGroup", () => {
  it("registers the class and its tools in agentFunctionRegistry at definition time", () => {
    const before = agentFunctionRegistry.size;
    @AgentFunctionGroup()
    class InventoryTools {
      @AgentFunction({ description: "Counts stock.", input: z.object({ sku: z.string() }) })
      countStock(): number {
        return 1;
      }
    }
    declared.push(InventoryTools);
    expect(agentFunctionRegistry.size).toBe(before + 1);
    expect(agentFunctionRegistry.has(InventoryTools)).toBe(true);
    expect(agentFunctionRegistry.get(InventoryTools)).toMatchObject({
      target: InventoryTools,
      options: {},
      functions: [{ name: "countStock", group: {} }],
    });
    expect([...agentFunctionRegistry].map((g) => g.target)).toContain(InventoryTools);
  });

  it("records groups, roundPolicy and lifetime, and lists by group", () => {
    @AgentFunctionGroup({ groups: ["crm", "sync"], roundPolicy: "all-or-nothing", lifetime: "transient" })
    class CrmTools {
      @AgentFunction({ description: "Syncs a contact.", input })
      syncContact(): void {}
    }
    @AgentFunctionGroup("billing")
    class BillingTools {
      @AgentFunction({ description: "Refunds.", input })
      refund(): void {}
    }
    @AgentFunctionGroup(["billing", "reports"])
    class ReportTools {
      @AgentFunction({ description: "Reports.", input })
      report(): void {}
    }
    declared.push(CrmTools, BillingTools, ReportTools);
    const crm = agentFunctionRegistry.get(CrmTools)!;
    expect(crm.options).toEqual({ groups: ["crm", "sync"], roundPolicy: "all-or-nothing", lifetime: "transient" });
    expect(crm.functions[0]!.group).toEqual(crm.options);
    expect(agentFunctionRegistry.get(BillingTools)!.options).toEqual({ groups: ["billing"] });
    expect(agentFunctionRegistry.get(ReportTools)!.options).toEqual({ groups: ["billing", "reports"] });
    const billing = agentFunctionRegistry
      .list((g) => g.options.groups?.includes("billing") ?? false)
      .map((g) => g.target);
    expect(billing).toEqual([BillingTools, ReportTools]);
  });

  it("makes the class injectable: constructor dependencies resolve without @inject", () => {
    class Clock {
      now(): number {
        return 7;
      }
    }
    @AgentFunctionGroup()
    class TimeTools {
      constructor(readonly clock: Clock) {}
      @AgentFunction({ description: "Tells the time.", input: z.object({}) })
      now(): number {
        return this.clock.now();
      }
    }
    declared.push(TimeTools);
    expect(rootContainer.createChildContainer().resolve(TimeTools).now()).toBe(7);
  });

  it("inherits tool methods from a base class; a subclass override replaces the base options", () => {
    class BaseTools {
      @AgentFunction({ description: "Pings.", input: z.object({}) })
      ping(): string {
        return "pong";
      }
      @AgentFunction({ description: "Base lookup.", input })
      lookup(): void {}
    }
    @AgentFunctionGroup()
    class DerivedTools extends BaseTools {
      @AgentFunction({ description: "Derived lookup.", input })
      override lookup(): void {}
    }
    declared.push(DerivedTools);
    expect(agentFunctionRegistry.get(DerivedTools)!.functions.map((f) => [f.name, f.description])).toEqual([
      ["ping", "Pings."],
      ["lookup", "Derived lookup."],
    ]);
  });

  it.each([
    [
      { roundPolicy: "yolo" },
      "@AgentFunctionGroup on SyncTools: `roundPolicy` must be one of best-effort, all-or-nothing, fail-fast.",
    ],
    [{ lifetime: "scoped" }, "@AgentFunctionGroup on SyncTools: `lifetime` must be 'singleton' or 'transient'."],
    [{ groups: "crm" }, "@AgentFunctionGroup on SyncTools: `groups` must be an array of non-empty strings."],
    [
      { lifetme: "transient" },
      "@AgentFunctionGroup on SyncTools: unknown option 'lifetme'. Did you mean 'lifetime'? Known options: groups, roundPolicy, lifetime, inject.",
    ],
    ["", "@AgentFunctionGroup on SyncTools: a group name must be a non-empty string."],
    [[""], "@AgentFunctionGroup on SyncTools: group names must be non-empty strings."],
    [42, "@AgentFunctionGroup on SyncTools: expected a group name, a list of names or an options object."],
  ])("rejects %o, naming the class", (bad, message) => {
    class SyncTools {}
    expect(definitionError(() => AgentFunctionGroup(bad as never)(SyncTools)).message).toBe(message);
    expect(agentFunctionRegistry.has(SyncTools)).toBe(false);
  });
});
