/**
 * Programs a user compiles with standard (TC39) decorators: what tsx, esbuild, Vite and Bun do by
 * default, with no `design:paramtypes`. Kept as text: they run in a temp app against the BUILT
 * packages (see standard-decorators.test.ts), not through this repository's swc setup.
 */

/** The README quick start, with standard decorators and `inject`. */
export const QUICK_START = `
import "reflect-metadata";
import { container } from "tsyringe";
import { z } from "zod";
import { AgentFunction, AgentFunctionGroup, ToolResult } from "@needlework/core";
import { ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";

class OrderRepository {
  find(id: string) { return id === "ORD-1" ? { status: "shipped" } : undefined; }
}

@AgentFunctionGroup({ inject: [OrderRepository] })              // names the constructor's dependencies
class OrderTools {
  constructor(private readonly orders: OrderRepository) {}

  @AgentFunction({ description: "Looks up an order by ID.", input: z.object({ orderId: z.string().describe("Order id.") }), readOnly: true })
  getOrderStatus({ orderId }: { orderId: string }) {
    const order = this.orders.find(orderId);
    if (!order) return ToolResult.fail(\`Order '\${orderId}' not found\`, { code: "ORDER_NOT_FOUND", suggestion: "Verify the ID." });
    return ToolResult.ok(order.status);
  }
}

const factory = usingAgentFramework(container)
  .addAgentFunctions(OrderTools)
  .usingResilience()
  .usingToolResultMiddleware()
  .buildAgentFactory();

console.log(factory.formatOutcome(await factory.tools.invoke({ name: "getOrderStatus", arguments: '{"orderId":"ORD-2"}' })));
console.log(JSON.stringify((await factory.tools.invoke({ name: "getOrderStatus", arguments: { orderId: "ORD-1" } })).data));
console.log(JSON.stringify(factory.tools.definitions[0]?.flags));

const chatClient = new ScriptedChatClient([
  { toolCalls: [{ name: "getOrderStatus", arguments: { orderId: "ORD-1" } }] },
  { text: "Order ORD-1 has shipped." },
]);
const run = await factory.createAgent({ name: "support", instructions: "Answer order questions.", chatClient }).run("Where is ORD-1?");
console.log(run.status, run.text);
`;

/** Inheritance, a transient group, \`inject\` winning over a string token, and \`@Agent\`. */
export const INJECT_AND_AGENT = `
import "reflect-metadata";
import { container } from "tsyringe";
import { z } from "zod";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";
import { Agent, ScriptedChatClient, usingAgentFramework } from "@needlework/workflows";

class Clock { now() { return "2026-01-01"; } }
const GREETING = Symbol("greeting");

class BaseTools {
  constructor(protected readonly clock: Clock, protected readonly greeting: string) {}
  @AgentFunction({ description: "Says the date.", input: z.object({}) })
  today() { return this.clock.now(); }
}

@AgentFunctionGroup({ groups: ["hello"], lifetime: "transient", inject: [Clock, GREETING] })
class HelloTools extends BaseTools {
  @AgentFunction({ description: "Greets someone.", input: z.object({ who: z.string() }) })
  greet({ who }: { who: string }) { return \`\${this.greeting}, \${who} (\${this.clock.now()})\`; }
}

@Agent({ name: "greeter", instructions: "Greet people.", functionGroups: ["hello"] })
class Greeter {}

const child = container.createChildContainer();
child.register(GREETING, { useValue: "Hello" });
const factory = usingAgentFramework(child).addAgentFunctions(HelloTools).addAgents(Greeter).usingToolResultMiddleware().buildAgentFactory();
console.log(JSON.stringify(factory.tools.definitions.map((d) => d.name)));
console.log(JSON.stringify((await factory.tools.invoke({ name: "greet", arguments: { who: "Ada" } })).data));
const chatClient = new ScriptedChatClient([{ toolCalls: [{ name: "today", arguments: {} }] }, { text: "done" }]);
console.log((await factory.createAgent(Greeter, { chatClient }).run("hi")).status);
`;

/** A group with a constructor dependency and neither metadata nor \`inject\`. */
export const NEITHER = `
import "reflect-metadata";
import { container } from "tsyringe";
import { z } from "zod";
import { AgentFunction, AgentFunctionGroup, registerAgentFunctions } from "@needlework/core";
import { usingAgentFramework } from "@needlework/workflows";

class OrderRepository {}

@AgentFunctionGroup()
class OrderTools {
  constructor(private readonly orders: OrderRepository) {}
  @AgentFunction({ description: "Looks up an order.", input: z.object({ orderId: z.string() }) })
  getOrderStatus() { return this.orders; }
}

for (const attempt of [
  () => usingAgentFramework(container.createChildContainer()).addAgentFunctions(OrderTools).usingToolResultMiddleware().buildAgentFactory(),
  () => registerAgentFunctions(container.createChildContainer(), OrderTools),
]) {
  try {
    attempt();
    console.log("built");
  } catch (error) {
    console.log(JSON.stringify({ name: (error as Error).name, code: (error as { code?: string }).code, message: (error as Error).message }));
  }
}
`;

/** Misuse a standard decorator compiler makes possible, refused at import with clear errors. */
export const MISUSE = `
import "reflect-metadata";
import { z } from "zod";
import { AgentFunction, AgentFunctionGroup } from "@needlework/core";

const tries: Array<() => unknown> = [
  () => { class A { @AgentFunction({ description: "d", input: z.object({}) }) static s() {} } return A; },
  () => { class B { @AgentFunction({ description: "d", input: z.object({}) }) #p() {} } return B; },
  () => { class C { constructor(readonly a: string, readonly b: string) {} } return AgentFunctionGroup({ inject: [String] })(C); },
];
for (const attempt of tries) {
  try { attempt(); console.log("accepted"); } catch (error) { console.log((error as Error).message); }
}
`;

/**
 * Type-checked with experimentalDecorators off: the parameter check holds for standard decorators.
 * Every \`@ts-expect-error\` must be needed, and nothing else may fail.
 */
export const TYPES = `
import { z } from "zod";
import { AgentFunction, AgentFunctionGroup, type ToolContext } from "@needlework/core";
import { Agent } from "@needlework/workflows";

const OrderInput = z.object({ orderId: z.string(), quantity: z.number().int().default(1) });

@AgentFunctionGroup({ inject: [] })
export class OrderTools {
  @AgentFunction({ description: "Exact.", input: OrderInput })
  exact(args: z.output<typeof OrderInput>, ctx: ToolContext): string { return args.orderId + ctx.attempt; }

  @AgentFunction({ description: "Destructured.", input: OrderInput })
  destructured({ orderId }: { orderId: string }): string { return orderId; }

  @AgentFunction({ description: "No args.", input: z.object({}) })
  noArgs(): number { return 1; }

  // @ts-expect-error orderId is a string in the schema, not a number
  @AgentFunction({ description: "Wrong type.", input: OrderInput })
  wrongType(args: { orderId: number }): unknown { return args; }

  // @ts-expect-error the schema has no customerId
  @AgentFunction({ description: "Extra field.", input: OrderInput })
  extraField(args: { orderId: string; customerId: string }): unknown { return args; }

  // @ts-expect-error the second parameter is a ToolContext
  @AgentFunction({ description: "Bad context.", input: OrderInput })
  badContext(args: z.output<typeof OrderInput>, ctx: string): unknown { return [args, ctx]; }
}

@Agent({ name: "support", instructions: "Help." })
export class SupportAgent {}
`;
