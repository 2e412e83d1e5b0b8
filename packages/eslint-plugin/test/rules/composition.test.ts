// The rules over how a program is put together: builder chains, injection, agents and imports.
import { injectMatchesConstructor } from "../../src/rules/inject-matches-constructor.js";
import { knownFunctionGroup } from "../../src/rules/known-function-group.js";
import { noDuplicatePlugin } from "../../src/rules/no-duplicate-plugin.js";
import { pluginOrder } from "../../src/rules/plugin-order.js";
import { reflectMetadataFirst } from "../../src/rules/reflect-metadata-first.js";
import { requireInject } from "../../src/rules/require-inject.js";
import { uniqueAgentName } from "../../src/rules/unique-agent-name.js";
import { fileIn, ruleTester } from "../rule-tester.js";

const standard = ruleTester("standard");
const metadata = ruleTester("metadata");

const builder = (chain: string) => `import "reflect-metadata";
import { container } from "tsyringe";
import { usingAgentFramework } from "@needlework/workflows";
import { OrderTools } from "./groups.js";

export const factory = usingAgentFramework(container)
  .addAgentFunctions(OrderTools)
${chain}
  .buildAgentFactory();
`;

standard.run("plugin-order", pluginOrder, {
  valid: [
    builder(
      "  .usingResilience({ retry: { maxAttempts: 3 } })\n  .usingToolResultMiddleware()\n  .usingTruncation()\n  .usingRedaction()",
    ),
    // Resilience alone, or the result middleware alone, has no order to get wrong.
    builder("  .usingToolResultMiddleware()"),
    // Not needlework's builder.
    `const b = { usingToolResultMiddleware() { return b; }, usingResilience() { return b; } };
b.usingToolResultMiddleware().usingResilience();`,
  ],
  invalid: [
    {
      code: builder("  .usingToolResultMiddleware() // outermost\n  .usingResilience({ retry: { maxAttempts: 3 } })"),
      errors: [
        {
          messageId: "resultBeforeResilience",
          line: 8,
          suggestions: [
            {
              messageId: "swap",
              output: builder(
                "  .usingResilience({ retry: { maxAttempts: 3 } }) // outermost\n  .usingToolResultMiddleware()",
              ),
            },
          ],
        },
      ],
    },
    {
      code: builder("  .usingResilience()\n  .usingRedaction()\n  .usingToolResultMiddleware()"),
      errors: [
        {
          messageId: "shapingInsideResult",
          line: 9,
          suggestions: [
            {
              messageId: "swap",
              output: builder("  .usingResilience()\n  .usingToolResultMiddleware()\n  .usingRedaction()"),
            },
          ],
        },
      ],
    },
  ],
});

standard.run("no-duplicate-plugin", noDuplicatePlugin, {
  valid: [
    builder("  .usingResilience()\n  .usingToolResultMiddleware()\n  .usingMiddleware(a)\n  .usingMiddleware(b)"),
    builder("  .usingPlugin(audit)\n  .usingPlugin(metrics)"),
  ],
  invalid: [
    {
      code: builder(
        "  .usingResilience()\n  .usingToolResultMiddleware()\n  .usingResilience({ retry: { maxAttempts: 5 } })",
      ),
      errors: [
        {
          messageId: "duplicate",
          line: 10,
          suggestions: [
            { messageId: "remove", output: builder("  .usingResilience()\n  .usingToolResultMiddleware()") },
          ],
        },
      ],
    },
    {
      code: builder("  .usingPlugin(auditPlugin)\n  .usingPlugin(auditPlugin)"),
      errors: [
        {
          messageId: "duplicate",
          line: 9,
          data: { plugin: "usingPlugin(auditPlugin)" },
          suggestions: [{ messageId: "remove", output: builder("  .usingPlugin(auditPlugin)") }],
        },
      ],
    },
  ],
});

const group = (
  decorator: string,
  ctor: string,
) => `import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { z } from "zod";

class OrderRepository { find(id: string) { return id; } }
class Clock { now() { return 0; } }
interface Mailer { send(to: string): void }

${decorator}
export class OrderTools {
  ${ctor}

  @AgentFunction({ description: "Gets.", input: z.object({ id: z.string().describe("Id.") }) })
  get({ id }: { id: string }) { return id; }
}
`;

standard.run("require-inject (standard decorators)", requireInject, {
  valid: [
    group(
      "@AgentFunctionGroup({ inject: [OrderRepository] })",
      "constructor(private readonly orders: OrderRepository) {}",
    ),
    group('@AgentFunctionGroup("orders")', "constructor() {}"),
    // Parameters with defaults are not injected (Function.length stops before them).
    group('@AgentFunctionGroup("orders")', "constructor(private readonly clock: Clock = new Clock()) {}"),
    // No constructor of its own.
    group('@AgentFunctionGroup("orders")', ""),
  ],
  invalid: [
    {
      code: group(
        "@AgentFunctionGroup()",
        "constructor(private readonly orders: OrderRepository, private readonly clock: Clock) {}",
      ),
      errors: [
        {
          messageId: "missing",
          line: 9,
          suggestions: [
            {
              messageId: "addInject",
              output: group(
                "@AgentFunctionGroup({ inject: [OrderRepository, Clock] })",
                "constructor(private readonly orders: OrderRepository, private readonly clock: Clock) {}",
              ),
            },
          ],
        },
      ],
    },
    {
      code: group('@AgentFunctionGroup("orders")', "constructor(private readonly orders: OrderRepository) {}"),
      errors: [
        {
          messageId: "missing",
          suggestions: [
            {
              messageId: "addInject",
              output: group(
                '@AgentFunctionGroup({ groups: ["orders"], inject: [OrderRepository] })',
                "constructor(private readonly orders: OrderRepository) {}",
              ),
            },
          ],
        },
      ],
    },
    {
      // An interface has no runtime value to inject: no suggestion, the user picks a token.
      code: group('@AgentFunctionGroup({ groups: ["orders"] })', "constructor(private readonly mailer: Mailer) {}"),
      errors: [{ messageId: "missing", suggestions: [] }],
    },
  ],
});

metadata.run("require-inject (emitDecoratorMetadata)", requireInject, {
  valid: [
    {
      code: group("@AgentFunctionGroup()", "constructor(private readonly orders: OrderRepository) {}"),
      filename: fileIn("metadata"),
    },
  ],
  invalid: [
    {
      // Built by esbuild whatever the tsconfig says.
      code: group("@AgentFunctionGroup()", "constructor(private readonly orders: OrderRepository) {}"),
      filename: fileIn("metadata"),
      options: [{ metadata: "none" }],
      errors: [
        {
          messageId: "missing",
          suggestions: [
            {
              messageId: "addInject",
              output: group(
                "@AgentFunctionGroup({ inject: [OrderRepository] })",
                "constructor(private readonly orders: OrderRepository) {}",
              ),
            },
          ],
        },
      ],
    },
  ],
});

standard.run("inject-matches-constructor", injectMatchesConstructor, {
  valid: [
    group(
      "@AgentFunctionGroup({ inject: [OrderRepository, Clock] })",
      "constructor(private readonly orders: OrderRepository, private readonly clock: Clock) {}",
    ),
    // String and symbol tokens say nothing about the type.
    group('@AgentFunctionGroup({ inject: ["Mailer"] })', "constructor(private readonly mailer: Mailer) {}"),
    group(
      "@AgentFunctionGroup({ inject: [delay(() => OrderRepository)] })",
      "constructor(private readonly orders: OrderRepository) {}",
    ),
  ],
  invalid: [
    {
      code: group(
        "@AgentFunctionGroup({ inject: [OrderRepository] })",
        "constructor(private readonly orders: OrderRepository, private readonly clock: Clock) {}",
      ),
      errors: [{ messageId: "tooFew", line: 8, data: { tokens: 1, name: "OrderTools", count: 2 } }],
    },
    {
      code: group(
        "@AgentFunctionGroup({ inject: [OrderRepository, Clock] })",
        "constructor(private readonly orders: OrderRepository) {}",
      ),
      errors: [{ messageId: "tooMany" }],
    },
    {
      code: group(
        "@AgentFunctionGroup({ inject: [Clock, OrderRepository] })",
        "constructor(private readonly orders: OrderRepository, private readonly clock: Clock) {}",
      ),
      errors: [
        {
          messageId: "wrongType",
          data: { index: 0, given: "Clock", parameter: "orders", name: "OrderTools", expected: "OrderRepository" },
        },
        {
          messageId: "wrongType",
          data: { index: 1, given: "OrderRepository", parameter: "clock", name: "OrderTools", expected: "Clock" },
        },
      ],
    },
  ],
});

const agent = (options: string) => `import { Agent } from "@needlework/workflows";

@Agent(${options})
export class BillingAgent {}
`;

standard.run("known-function-group", knownFunctionGroup, {
  valid: [
    agent('{ name: "billing", instructions: "Bills.", functionGroups: ["billing", "shipping"] }'),
    agent('{ name: "billing", instructions: "Bills.", functionGroups: ["ledger"] }') === ""
      ? ""
      : {
          code: agent('{ name: "billing", instructions: "Bills.", functionGroups: ["ledger"] }'),
          options: [{ knownGroups: ["ledger"] }],
        },
  ],
  invalid: [
    {
      code: agent('{ name: "billing", instructions: "Bills.", functionGroups: ["billing", "shiping"] }'),
      errors: [
        {
          messageId: "unknown",
          line: 3,
          data: { agent: "billing", group: "shiping", declared: "billing, orders, shipping" },
          suggestions: [
            {
              messageId: "rename",
              output: agent('{ name: "billing", instructions: "Bills.", functionGroups: ["billing", "shipping"] }'),
            },
          ],
        },
      ],
    },
  ],
});

standard.run("unique-agent-name", uniqueAgentName, {
  valid: [agent('{ name: "billing", instructions: "Bills.", functionGroups: ["billing"] }')],
  invalid: [
    {
      // agents.ts, earlier in the program, declares "support".
      code: agent('{ name: "support", instructions: "Bills.", functionGroups: ["billing"] }'),
      errors: [{ messageId: "duplicate", line: 3, data: { name: "support", where: "agents.ts:4" } }],
    },
    {
      code: `import { Agent } from "@needlework/workflows";
@Agent({ name: "triage", instructions: "Sorts." })
class TriageAgent {}
@Agent({ name: "triage", instructions: "Sorts again." })
class TriageAgentV2 {}
`,
      errors: [{ messageId: "duplicate", line: 4, data: { name: "triage", where: "line 2" } }],
    },
  ],
});

standard.run("reflect-metadata-first", reflectMetadataFirst, {
  valid: [
    `import "reflect-metadata";\nimport { container } from "tsyringe";\nimport { usingAgentFramework } from "@needlework/workflows";`,
    // Type-only imports load nothing.
    `import type { ToolOutcome } from "@needlework/core";\nimport "reflect-metadata";`,
    // A module without reflect-metadata relies on its entry point: not this rule's business.
    `import { container } from "tsyringe";`,
  ],
  invalid: [
    {
      code: `import { container } from "tsyringe";\nimport { z } from "zod";\nimport "reflect-metadata";\nexport { container, z };\n`,
      output: `import "reflect-metadata";\nimport { container } from "tsyringe";\nimport { z } from "zod";\nexport { container, z };\n`,
      errors: [{ messageId: "late", line: 3, data: { first: "tsyringe" } }],
    },
  ],
});
