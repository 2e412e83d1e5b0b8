import { requireInject } from "../../src/rules/require-inject.js";
import { fileIn, javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { group } from "../sources.js";

const addInject = (output: string) => [{ messageId: "addInject" as const, output }];

ruleTester("standard").run("require-inject (standard decorators)", requireInject, {
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
    // Without a program the tsconfig cannot be read: nothing is said.
    javaScript(`import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
@AgentFunctionGroup()
export class OrderTools {
  constructor(orders) { this.orders = orders; }
  @AgentFunction({ description: "Gets.", input: {} }) get() {}
}`),
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
          suggestions: addInject(
            group(
              "@AgentFunctionGroup({ inject: [OrderRepository, Clock] })",
              "constructor(private readonly orders: OrderRepository, private readonly clock: Clock) {}",
            ),
          ),
        },
      ],
    },
    {
      code: group('@AgentFunctionGroup("orders")', "constructor(private readonly orders: OrderRepository) {}"),
      errors: [
        {
          messageId: "missing",
          suggestions: addInject(
            group(
              '@AgentFunctionGroup({ groups: ["orders"], inject: [OrderRepository] })',
              "constructor(private readonly orders: OrderRepository) {}",
            ),
          ),
        },
      ],
    },
    {
      // An interface has no runtime value to inject: no suggestion, the user picks a token.
      code: group('@AgentFunctionGroup({ groups: ["orders"] })', "constructor(private readonly mailer: Mailer) {}"),
      errors: [{ messageId: "missing", suggestions: [] }],
    },
    {
      code: group('@AgentFunctionGroup(["orders", "billing"])', "constructor(private readonly clock: Clock) {}"),
      errors: [
        {
          messageId: "missing",
          suggestions: addInject(
            group(
              '@AgentFunctionGroup({ groups: ["orders", "billing"], inject: [Clock] })',
              "constructor(private readonly clock: Clock) {}",
            ),
          ),
        },
      ],
    },
    {
      code: group('@AgentFunctionGroup({ lifetime: "transient" })', "constructor(readonly orders: OrderRepository) {}"),
      errors: [
        {
          messageId: "missing",
          suggestions: addInject(
            group(
              '@AgentFunctionGroup({ lifetime: "transient", inject: [OrderRepository] })',
              "constructor(readonly orders: OrderRepository) {}",
            ),
          ),
        },
      ],
    },
  ],
});

ruleTester("metadata").run("require-inject (emitDecoratorMetadata)", requireInject, {
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
          suggestions: addInject(
            group(
              "@AgentFunctionGroup({ inject: [OrderRepository] })",
              "constructor(private readonly orders: OrderRepository) {}",
            ),
          ),
        },
      ],
    },
  ],
});

runsOnJavaScript("require-inject", requireInject);
