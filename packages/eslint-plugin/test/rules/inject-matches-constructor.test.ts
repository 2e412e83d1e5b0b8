import { injectMatchesConstructor } from "../../src/rules/inject-matches-constructor.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { group } from "../sources.js";

const twoParameters = "constructor(private readonly orders: OrderRepository, private readonly clock: Clock) {}";

ruleTester().run("inject-matches-constructor", injectMatchesConstructor, {
  valid: [
    group("@AgentFunctionGroup({ inject: [OrderRepository, Clock] })", twoParameters),
    // String and symbol tokens say nothing about the type.
    group('@AgentFunctionGroup({ inject: ["Mailer"] })', "constructor(private readonly mailer: Mailer) {}"),
    group(
      "@AgentFunctionGroup({ inject: [delay(() => OrderRepository)] })",
      "constructor(private readonly orders: OrderRepository) {}",
    ),
    // A parameter with a default need not be injected.
    group(
      "@AgentFunctionGroup({ inject: [OrderRepository] })",
      "constructor(private readonly orders: OrderRepository, private readonly clock: Clock = new Clock()) {}",
    ),
    // Without types, swapped tokens cannot be told apart: only lengths are read.
    javaScript(`import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
class OrderRepository {}
class Clock {}
@AgentFunctionGroup({ inject: [Clock, OrderRepository] })
export class OrderTools {
  constructor(orders, clock) { this.orders = orders; this.clock = clock; }
  @AgentFunction({ description: "Gets.", input: {} }) get() {}
}`),
  ],
  invalid: [
    {
      code: group("@AgentFunctionGroup({ inject: [OrderRepository] })", twoParameters),
      errors: [{ messageId: "tooFew", line: 8, data: { tokens: 1, name: "OrderTools", count: 2 } }],
    },
    {
      code: group(
        "@AgentFunctionGroup({ inject: [OrderRepository, Clock] })",
        "constructor(private readonly orders: OrderRepository) {}",
      ),
      errors: [{ messageId: "tooMany", data: { tokens: 2, name: "OrderTools", count: 1 } }],
    },
    {
      code: group("@AgentFunctionGroup({ inject: [Clock, OrderRepository] })", twoParameters),
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
    {
      code: group('@AgentFunctionGroup({ groups: ["orders"], inject: [] })', twoParameters),
      errors: [{ messageId: "tooFew", data: { tokens: 0, name: "OrderTools", count: 2 } }],
    },
    {
      // A list held in a constant is read where it is declared.
      code: group(
        "@AgentFunctionGroup({ inject: DEPENDENCIES })",
        `${twoParameters}
  static readonly x = 1;`,
      ).replace("interface Mailer", "const DEPENDENCIES = [Clock];\ninterface Mailer"),
      errors: [{ messageId: "tooFew", data: { tokens: 1, name: "OrderTools", count: 2 } }],
    },
    {
      ...javaScript(`import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
class OrderRepository {}
@AgentFunctionGroup({ inject: [OrderRepository] })
export class OrderTools {
  constructor(orders, clock) { this.orders = orders; this.clock = clock; }
  @AgentFunction({ description: "Gets.", input: {} }) get() {}
}`),
      errors: [{ messageId: "tooFew", data: { tokens: 1, name: "OrderTools", count: 2 } }],
    },
  ],
});

runsOnJavaScript("inject-matches-constructor", injectMatchesConstructor);
